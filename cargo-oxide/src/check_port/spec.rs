//! What `check-port` runs, as the command line states it: buffers (type, length, role), each
//! side's kernel arguments in its own order, launch shapes and the comparison.

use std::str::FromStr;

pub use super::terms::{Elem, Expr, parse_u64};
use super::values::ValueRange;

/// What a buffer is for: read only (generated, not compared), written (zeros before, compared
/// after), or both (generated, compared after).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    In,
    Out,
    InOut,
}

impl Role {
    pub fn generated(self) -> bool {
        matches!(self, Role::In | Role::InOut)
    }
    pub fn compared(self) -> bool {
        matches!(self, Role::Out | Role::InOut)
    }
}

/// `--buffer NAME:TYPE:LEN:ROLE[:LO..HI]`, e.g. `a:f32:n:in` or `ids:i32:n:in:0..50257`.
#[derive(Debug, Clone, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub elem: Elem,
    pub len: Expr,
    pub role: Role,
    /// The values a generated buffer takes (`None`: every integer, floats in [-1, 1)).
    pub range: Option<ValueRange>,
}

impl FromStr for Buffer {
    type Err = String;
    fn from_str(s: &str) -> Result<Buffer, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let (name, elem, len, role, range) = match parts[..] {
            [name, elem, len, role] => (name, elem, len, role, None),
            [name, elem, len, role, range] => (name, elem, len, role, Some(range)),
            _ => {
                return Err(format!(
                    "`{s}`: a buffer is NAME:TYPE:LEN:ROLE[:LO..HI], e.g. a:f32:n:in, \
                     c:f32:n:out or ids:i32:n:in:0..50257"
                ));
            }
        };
        if !is_identifier(name) {
            return Err(format!(
                "`{name}` is not a buffer name (letters, digits, _)"
            ));
        }
        let role = match role {
            "in" => Role::In,
            "out" => Role::Out,
            "inout" => Role::InOut,
            other => return Err(format!("`{other}` is not a role: in, out or inout")),
        };
        let elem: Elem = elem.parse()?;
        let range = match range {
            None => None,
            Some(_) if !role.generated() => {
                return Err(format!(
                    "`{s}`: a range of values is for generated buffers (roles in, inout)"
                ));
            }
            Some(r) => Some(ValueRange::parse(r, elem)?),
        };
        Ok(Buffer {
            name: name.to_owned(),
            elem,
            len: len.parse()?,
            role,
            range,
        })
    }
}

/// An ASCII C identifier: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A PTX identifier, which every PTX entry name is: what `--kernel` must be, since the harness
/// quotes it in C++ (the contract's rule, which the backend's entries follow).
pub use oxide_contract::is_ptx_identifier;

/// A CUDA kernel's name as the harness pastes it into C++ (`name<<<...>>>(...)`): an
/// identifier, maybe qualified (`ns::k`), maybe one template instance (`scale<float>`,
/// `k<unsigned int, 4>`, `k<T*>`) whose arguments hold only identifiers, numbers, `::`, `,`,
/// `*`, `-`, spaces and nested `<>`. Nothing else (no quotes, parentheses, semicolons, braces,
/// `#`, newlines) can reach the generated program, so a name can only name something.
pub fn is_cuda_kernel_name(s: &str) -> bool {
    let (path, args) = match s.split_once('<') {
        Some((path, rest)) => (path, Some(rest)),
        None => (s, None),
    };
    let path = path.strip_prefix("::").unwrap_or(path);
    if !path.split("::").all(is_identifier) {
        return false;
    }
    let Some(args) = args else {
        return true;
    };
    // `rest` is what follows the first `<`: balanced brackets, closing exactly at its end.
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_:,*- <>".contains(c);
    let mut depth = 1u32;
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1 == args.len() && args[..i].trim() != "";
                }
            }
            c if allowed(c) => {}
            _ => return false,
        }
    }
    false
}

/// One kernel parameter, in a side's order.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A buffer: a pointer in CUDA; its pointer and length (elements) in oxide's ABI.
    Buffer(String),
    /// oxide's 2-D outputs (`DisjointRows`, `WarpRows`, `WarpChunkRows`, `BlockTiles`) over the whole buffer:
    /// pointer, length, width, pitch (= width), rows, origin `(0, 0)`.
    Rows(String, Expr),
    /// oxide's `DisjointPairs`: pointer, length, distance.
    Pairs(String, Expr),
    /// oxide's read-only `Matrix` over the whole buffer, rows of `COLS` one after another
    /// (`MatrixShape::new(buf, len / cols, cols)`): pointer, length, cols, pitch (= cols), rows.
    Matrix(String, Expr),
    /// A scalar by value: `u32=n`, `f32=2.5`.
    Scalar(Elem, Scalar),
}

/// A scalar argument's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Int(Expr),
    Float(f64),
}

impl FromStr for Arg {
    type Err = String;
    fn from_str(s: &str) -> Result<Arg, String> {
        let s = s.trim();
        if let Some((ty, value)) = s.split_once('=') {
            let elem: Elem = ty.parse()?;
            let value = if elem.is_float() {
                let x: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not a number for {elem}"))?;
                // The harness writes the value into C++ as a literal, which has no infinity or
                // NaN; an f32 beyond f32's range would silently become one.
                let fits = x.is_finite() && (elem == Elem::F64 || (x as f32).is_finite());
                if !fits {
                    return Err(format!("`{value}` is not a finite {elem}"));
                }
                Scalar::Float(x)
            } else {
                Scalar::Int(value.parse()?)
            };
            return Ok(Arg::Scalar(elem, value));
        }
        if let Some((name, rest)) = s.split_once('@') {
            let inner = |prefix: &str| {
                rest.strip_prefix(prefix)
                    .and_then(|r| r.strip_suffix(')'))
                    .map(str::parse::<Expr>)
            };
            return match (inner("rows("), inner("pairs("), inner("matrix(")) {
                (Some(w), _, _) => Ok(Arg::Rows(name.to_owned(), w?)),
                (_, Some(d), _) => Ok(Arg::Pairs(name.to_owned(), d?)),
                (_, _, Some(c)) => Ok(Arg::Matrix(name.to_owned(), c?)),
                _ => Err(format!(
                    "`{s}`: after @ comes rows(WIDTH), pairs(DISTANCE) or matrix(COLS)"
                )),
            };
        }
        if is_identifier(s) {
            Ok(Arg::Buffer(s.to_owned()))
        } else {
            Err(format!(
                "`{s}` is not an argument: a buffer name, NAME@rows(W), NAME@pairs(D), \
                 NAME@matrix(C) or TYPE=VALUE"
            ))
        }
    }
}

impl Arg {
    pub fn buffer(&self) -> Option<&str> {
        match self {
            Arg::Buffer(b) | Arg::Rows(b, _) | Arg::Pairs(b, _) | Arg::Matrix(b, _) => Some(b),
            Arg::Scalar(..) => None,
        }
    }
}

/// A comma-separated argument list.
pub fn parse_args(s: &str) -> Result<Vec<Arg>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    s.split(',').map(str::parse).collect()
}

/// `256`, `32x8`, `32,8,1`; a grid may also be `auto`: enough blocks of the block's threads
/// for `n`, along x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dims {
    Auto,
    Fixed([Expr; 3]),
}

impl FromStr for Dims {
    type Err = String;
    fn from_str(s: &str) -> Result<Dims, String> {
        if s.trim() == "auto" {
            return Ok(Dims::Auto);
        }
        let parts: Vec<&str> = s.split(['x', ',']).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!(
                "`{s}` is not a shape: X, XxY or XxYxZ (or auto for a grid)"
            ));
        }
        let mut dims = [Expr::Literal(1); 3];
        for (d, p) in dims.iter_mut().zip(&parts) {
            *d = p.parse()?;
        }
        Ok(Dims::Fixed(dims))
    }
}

impl Dims {
    /// The shape at `n`, `Auto` as `ceil(n / threads per block)` blocks.
    pub fn eval(self, n: u64, block: [u32; 3]) -> Result<[u32; 3], String> {
        // In u128: three u32 dimensions multiply to under 2^96, so no block's count wraps.
        let threads: u128 = block.iter().map(|&d| u128::from(d)).product();
        let values = match self {
            Dims::Auto => [u128::from(n).div_ceil(threads.max(1)).max(1), 1, 1],
            Dims::Fixed(e) => [e[0].eval(n)?, e[1].eval(n)?, e[2].eval(n)?].map(u128::from),
        };
        let mut out = [0u32; 3];
        for (o, v) in out.iter_mut().zip(values) {
            *o = u32::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("a launch dimension of {v} (at n = {n})"))?;
        }
        Ok(out)
    }
}

/// How outputs must agree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    Exact,
    /// Floats within this many units in the last place.
    Ulps(u64),
    /// Floats within `rel * max(|expected|, 1)`.
    Relative(f64),
}

impl FromStr for Tolerance {
    type Err = String;
    fn from_str(s: &str) -> Result<Tolerance, String> {
        let bad = || format!("`{s}` is not a tolerance: exact, ulps:K or rel:X (rel:1e-6)");
        match s.split_once(':') {
            None if s == "exact" => Ok(Tolerance::Exact),
            Some(("ulps", k)) => k.parse().map(Tolerance::Ulps).map_err(|_| bad()),
            Some(("rel", x)) => x
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .map(Tolerance::Relative)
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }
}

/// One side's launch: its kernel's arguments, shape and dynamic shared memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub kernel: String,
    pub args: Vec<Arg>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// Everything the harness needs, evaluated at one `n`.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub n: u64,
    pub buffers: Vec<(Buffer, u64)>,
    pub cuda: Side,
    pub oxide: Side,
    pub tolerance: Tolerance,
    pub reps: u32,
}

impl Plan {
    /// Checks that every argument names a buffer, every buffer is used, and names are unique.
    pub fn validate(&self) -> Result<(), String> {
        for (i, (b, _)) in self.buffers.iter().enumerate() {
            if self.buffers[..i].iter().any(|(o, _)| o.name == b.name) {
                return Err(format!("buffer `{}` is declared twice", b.name));
            }
        }
        for (side, args) in [
            ("--cuda-args", &self.cuda.args),
            ("--oxide-args", &self.oxide.args),
        ] {
            for arg in args.iter() {
                if let Some(name) = arg.buffer()
                    && !self.buffers.iter().any(|(b, _)| b.name == name)
                {
                    return Err(format!("{side} names `{name}`, which no --buffer declares"));
                }
            }
        }
        for (b, _) in &self.buffers {
            let used = |args: &[Arg]| args.iter().any(|a| a.buffer() == Some(b.name.as_str()));
            if !used(&self.cuda.args) || !used(&self.oxide.args) {
                return Err(format!(
                    "buffer `{}` must be an argument of both kernels (--cuda-args and --oxide-args)",
                    b.name
                ));
            }
        }
        if !self.buffers.iter().any(|(b, _)| b.role.compared()) {
            return Err("no buffer is `out` or `inout`: nothing would be compared".into());
        }
        for (side, args) in [
            ("--cuda-args", &self.cuda.args),
            ("--oxide-args", &self.oxide.args),
        ] {
            for arg in args.iter() {
                self.check_arg(side, arg)?;
            }
        }
        Ok(())
    }

    /// The length of buffer `name`, which [`Plan::validate`] found declared.
    fn len_of(&self, name: &str) -> u64 {
        self.buffers
            .iter()
            .find(|(b, _)| b.name == name)
            .map_or(0, |(_, len)| *len)
    }

    /// Checks what the launch passes for `arg` beside its type: a scalar's value fits its type
    /// (never truncated), a row width divides its buffer, a pair distance is a power of two and
    /// a matrix's columns are at least 1 (the host runtime's `Rows::new`, `Pairs::new` and
    /// `MatrixShape::new` rules, `oxide_contract`'s).
    fn check_arg(&self, side: &str, arg: &Arg) -> Result<(), String> {
        let n = self.n;
        match arg {
            Arg::Scalar(elem, Scalar::Int(e)) => {
                let value = e.eval(n)?;
                match elem.int_max() {
                    Some(max) if value > max => Err(format!(
                        "{side}: `{elem}={e}` is {value} at n = {n}, more than {elem} holds \
                         ({max}): give a wider type or a smaller value"
                    )),
                    _ => Ok(()),
                }
            }
            Arg::Scalar(_, Scalar::Float(_)) | Arg::Buffer(_) => Ok(()),
            Arg::Rows(name, width) => {
                let (len, w) = (self.len_of(name), width.eval(n)?);
                if oxide_contract::rows_fit(len, w, w) {
                    Ok(())
                } else {
                    Err(format!(
                        "{side}: `{name}@rows({width})`: buffer `{name}` of {len} elements cannot \
                         be seen as rows of {w}: the width must be at least 1 and divide the \
                         length (as `Rows::new` requires)"
                    ))
                }
            }
            Arg::Matrix(name, cols) => {
                let (len, c) = (self.len_of(name), cols.eval(n)?);
                // The rows are the whole rows the buffer holds, so only a width of 0 (no rows
                // to count) can break `matrix_fits`.
                if c >= 1 && oxide_contract::matrix_fits(len, len / c, c, c) {
                    Ok(())
                } else {
                    Err(format!(
                        "{side}: `{name}@matrix({cols})`: buffer `{name}` of {len} elements cannot \
                         be read as rows of {c}: the columns must be at least 1 (as \
                         `MatrixShape::new` requires)"
                    ))
                }
            }
            Arg::Pairs(name, distance) => {
                let d = distance.eval(n)?;
                if oxide_contract::pairs_distance_fits(d) {
                    Ok(())
                } else {
                    Err(format!(
                        "{side}: `{name}@pairs({distance})`: the distance is {d}, not a power of \
                         two; `DisjointPairs` pairs are disjoint only then (as `Pairs::new` \
                         requires)"
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_numbers() {
        assert_eq!(parse_u64("1<<20").unwrap(), 1 << 20);
        assert_eq!(parse_u64("2^28").unwrap(), 1 << 28);
        assert_eq!(parse_u64("1_048_579").unwrap(), 1_048_579);
        assert!(parse_u64("1<<64").is_err());
        assert_eq!(
            "n/1024".parse::<Expr>().unwrap().eval(1 << 20).unwrap(),
            1024
        );
        assert_eq!("n".parse::<Expr>().unwrap().eval(7).unwrap(), 7);
        assert_eq!("n * 4".parse::<Expr>().unwrap().eval(3).unwrap(), 12);
        assert_eq!("256".parse::<Expr>().unwrap(), Expr::Literal(256));
        assert!("n-8".parse::<Expr>().unwrap().eval(4).is_err());
        assert!("n/0".parse::<Expr>().is_err());
        assert!("m".parse::<Expr>().is_err());
        // Not a char boundary after the `n`: an error, not a panic.
        assert!("nü".parse::<Expr>().is_err());
        assert!("n/ä".parse::<Expr>().is_err());
    }

    #[test]
    fn buffers_and_arguments() {
        let b: Buffer = "c:f32:n:out".parse().unwrap();
        assert_eq!((b.elem, b.len, b.role), (Elem::F32, Expr::N, Role::Out));
        assert!("c:f16:n:out".parse::<Buffer>().is_err());
        assert!("c:f32:n".parse::<Buffer>().is_err());
        assert!("1c:f32:n:in".parse::<Buffer>().is_err());
        let args =
            parse_args("a, out@rows(1024), keys@pairs(n/2), m@matrix(64), u32=n, f32=2.5").unwrap();
        assert_eq!(
            args,
            [
                Arg::Buffer("a".into()),
                Arg::Rows("out".into(), Expr::Literal(1024)),
                Arg::Pairs("keys".into(), Expr::Div(2)),
                Arg::Matrix("m".into(), Expr::Literal(64)),
                Arg::Scalar(Elem::U32, Scalar::Int(Expr::N)),
                Arg::Scalar(Elem::F32, Scalar::Float(2.5)),
            ]
        );
        assert!(parse_args("a@cols(3)").is_err());
        assert!(parse_args("u32=x").is_err());
    }

    #[test]
    fn names_pasted_into_cpp_can_only_name() {
        for good in ["vecadd", "_k", "k$1", "%k"] {
            assert!(is_ptx_identifier(good), "{good}");
        }
        for bad in ["", "1k", "k\"x", "k()", "k;int", "k\n", "_", "ü"] {
            assert!(!is_ptx_identifier(bad), "{bad:?}");
        }
        for good in [
            "vecadd",
            "ns::k",
            "::k",
            "scale<float>",
            "k<unsigned int, 4>",
            "k<float*>",
            "k<ns::T<2>, -1>",
        ] {
            assert!(is_cuda_kernel_name(good), "{good}");
        }
        for bad in [
            "",
            "k()",
            "k\"",
            "k; system(\"rm\")",
            "k<float>(); int x",
            "k<float>x",
            "k<float",
            "k<>",
            "k<a>>",
            "a::",
            "k /* */",
            "k\n#include <x>",
            "k{}",
            "1k",
        ] {
            assert!(!is_cuda_kernel_name(bad), "{bad:?}");
        }
    }

    fn plan(buffers: &[&str], cuda: &str, oxide: &str, n: u64) -> Result<Plan, String> {
        let buffers = buffers
            .iter()
            .map(|b| {
                let b: Buffer = b.parse()?;
                let len = b.len.eval(n)?;
                Ok((b, len))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let side = |args: &str| -> Result<Side, String> {
            Ok(Side {
                kernel: "k".into(),
                args: parse_args(args)?,
                grid: [1, 1, 1],
                block: [1, 1, 1],
                shared_bytes: 0,
            })
        };
        let plan = Plan {
            n,
            buffers,
            cuda: side(cuda)?,
            oxide: side(oxide)?,
            tolerance: Tolerance::Exact,
            reps: 1,
        };
        plan.validate()?;
        Ok(plan)
    }

    /// Issue 18: `u32=99999999999` was truncated to 32 bits in the harness.
    #[test]
    fn scalars_that_do_not_fit_their_type_are_errors() {
        let b = ["c:u32:1:out"];
        assert!(plan(&b, "c,u32=4294967295", "c", 8).is_ok());
        let e = plan(&b, "c,u32=99999999999", "c", 8).unwrap_err();
        assert!(e.contains("more than u32 holds (4294967295)"), "{e}");
        assert!(plan(&b, "c,u8=256", "c", 8).is_err());
        assert!(plan(&b, "c,i32=2147483648", "c", 8).is_err());
        assert!(plan(&b, "c", "c,i64=n*2", 1 << 62).is_err());
        assert!(plan(&b, "c,u32=n*2", "c", 1 << 31).is_err());
        assert!(plan(&b, "c,u64=n*2", "c", 1 << 31).is_ok());
        for bad in ["f32=1e39", "f32=inf", "f64=nan", "f64=-inf"] {
            assert!(bad.parse::<Arg>().is_err(), "{bad}");
        }
        assert!("f64=1e300".parse::<Arg>().is_ok());
        // Buffers too large to count or hold are limits.rs's, tested there.
    }

    /// Issue 18: `@rows(W)` and `@pairs(D)` were not checked.
    #[test]
    fn rows_and_pairs_follow_the_host_runtimes_rules() {
        let b = ["a:f32:n:in", "c:f32:n:out"];
        assert!(plan(&b, "a,c", "a,c@rows(4)", 12).is_ok());
        let e = plan(&b, "a,c", "a,c@rows(5)", 12).unwrap_err();
        assert!(e.contains("cannot be seen as rows of 5"), "{e}");
        assert!(plan(&b, "a,c", "a,c@rows(0)", 12).is_err());
        assert!(plan(&b, "a,c", "a,c@rows(n)", 12).is_ok());
        assert!(plan(&b, "a,c", "a,c@pairs(4)", 12).is_ok());
        assert!(plan(&b, "a,c", "a,c@pairs(n/4)", 16).is_ok());
        let e = plan(&b, "a,c", "a,c@pairs(3)", 12).unwrap_err();
        assert!(e.contains("not a power of two"), "{e}");
        assert!(plan(&b, "a,c", "a,c@pairs(n/2)", 12).is_err());
        assert!(plan(&b, "a,c", "a,c@pairs(0)", 12).is_err());
        // A matrix's rows are the whole rows its buffer holds: any width of at least 1 fits.
        assert!(plan(&b, "a,c", "a@matrix(4),c", 12).is_ok());
        assert!(plan(&b, "a,c", "a@matrix(5),c", 12).is_ok());
        let e = plan(&b, "a,c", "a@matrix(0),c", 12).unwrap_err();
        assert!(e.contains("the columns must be at least 1"), "{e}");
        assert!(plan(&b, "a,c", "a@matrix(n/2),c", 1).is_err());
    }

    #[test]
    fn shapes() {
        let block: Dims = "32x8".parse().unwrap();
        let block = block.eval(0, [1; 3]).unwrap();
        assert_eq!(block, [32, 8, 1]);
        assert_eq!(Dims::Auto.eval(1000, [256, 1, 1]).unwrap(), [4, 1, 1]);
        assert_eq!(Dims::Auto.eval(0, [256, 1, 1]).unwrap(), [1, 1, 1]);
        let grid: Dims = "n/32,n/32".parse().unwrap();
        assert_eq!(grid.eval(4096, block).unwrap(), [128, 128, 1]);
        assert!("0".parse::<Dims>().unwrap().eval(1, block).is_err());
        // Review of issue 18: a block of u32::MAX³ threads overflowed the count (a panic).
        assert_eq!(Dims::Auto.eval(1 << 40, [u32::MAX; 3]).unwrap(), [1, 1, 1]);
        let e = Dims::Auto.eval(u64::MAX, [1; 3]).unwrap_err();
        assert!(
            e.contains("a launch dimension of 18446744073709551615"),
            "{e}"
        );
        assert!("1x2x3x4".parse::<Dims>().is_err());
    }

    #[test]
    fn tolerances() {
        assert_eq!("exact".parse::<Tolerance>().unwrap(), Tolerance::Exact);
        assert_eq!("ulps:2".parse::<Tolerance>().unwrap(), Tolerance::Ulps(2));
        assert_eq!(
            "rel:1e-6".parse::<Tolerance>().unwrap(),
            Tolerance::Relative(1e-6)
        );
        assert!("rel:-1".parse::<Tolerance>().is_err());
        assert!("close".parse::<Tolerance>().is_err());
    }
}
