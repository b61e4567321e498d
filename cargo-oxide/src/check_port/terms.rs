//! The words of a check-port spec that the rest is built from: sizes and values in terms of
//! the problem size `n`, numbers, and the element types both languages name.

use std::fmt;
use std::str::FromStr;

/// A size or value in terms of the problem size `n`: `n`, `1024`, `n/1024`, `n*4`, `n+3`, `n-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expr {
    Literal(u64),
    N,
    Div(u64),
    Mul(u64),
    Add(u64),
    Sub(u64),
}

impl Expr {
    pub fn eval(self, n: u64) -> Result<u64, String> {
        let overflow = || format!("{self} overflows at n = {n}");
        match self {
            Expr::Literal(v) => Ok(v),
            Expr::N => Ok(n),
            Expr::Div(k) => Ok(n / k),
            Expr::Mul(k) => n.checked_mul(k).ok_or_else(overflow),
            Expr::Add(k) => n.checked_add(k).ok_or_else(overflow),
            Expr::Sub(k) => n.checked_sub(k).ok_or_else(overflow),
        }
    }
}

impl FromStr for Expr {
    type Err = String;
    fn from_str(s: &str) -> Result<Expr, String> {
        let s = s.trim();
        let bad = || format!("`{s}` is not a size: write n, a number, or n/K, n*K, n+K, n-K");
        if let Ok(v) = parse_u64(s) {
            return Ok(Expr::Literal(v));
        }
        let Some(rest) = s.strip_prefix('n') else {
            return Err(bad());
        };
        let rest = rest.trim();
        if rest.is_empty() {
            return Ok(Expr::N);
        }
        let mut chars = rest.chars();
        let op = chars.next().ok_or_else(bad)?;
        let k = parse_u64(chars.as_str().trim()).map_err(|_| bad())?;
        match op {
            '/' if k == 0 => Err(format!("`{s}` divides by zero")),
            '/' => Ok(Expr::Div(k)),
            '*' => Ok(Expr::Mul(k)),
            '+' => Ok(Expr::Add(k)),
            '-' => Ok(Expr::Sub(k)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Literal(v) => write!(f, "{v}"),
            Expr::N => f.write_str("n"),
            Expr::Div(k) => write!(f, "n/{k}"),
            Expr::Mul(k) => write!(f, "n*{k}"),
            Expr::Add(k) => write!(f, "n+{k}"),
            Expr::Sub(k) => write!(f, "n-{k}"),
        }
    }
}

/// `1048576`, `1<<20` or `2^20`.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let s = s.trim().replace('_', "");
    let shifted = s
        .split_once("<<")
        .or_else(|| s.split_once('^').filter(|(b, _)| *b == "2"));
    let value = match shifted {
        Some((base, exp)) => {
            let base: u64 = base.trim().parse().map_err(|_| format!("`{s}`"))?;
            let exp: u32 = exp.trim().parse().map_err(|_| format!("`{s}`"))?;
            if s.contains('^') {
                2u64.checked_pow(exp)
            } else {
                base.checked_shl(exp).filter(|v| v >> exp == base)
            }
        }
        None => s.parse().ok(),
    };
    value.ok_or_else(|| format!("`{s}` is not a number"))
}

/// An element type both languages name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Elem {
    pub fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::I32 | Elem::U32 | Elem::F32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    /// The C++ type of an element.
    pub fn cuda(self) -> &'static str {
        match self {
            Elem::U8 => "unsigned char",
            Elem::I32 => "int",
            Elem::U32 => "unsigned",
            Elem::I64 => "long long",
            Elem::U64 => "unsigned long long",
            Elem::F32 => "float",
            Elem::F64 => "double",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Elem::I32 | Elem::I64)
    }

    /// The smallest and largest value of an integer type (floats: `f64`'s integer range,
    /// unused).
    pub fn int_limits(self) -> (i128, i128) {
        match self {
            Elem::U8 => (0, u8::MAX.into()),
            Elem::I32 => (i32::MIN.into(), i32::MAX.into()),
            Elem::U32 => (0, u32::MAX.into()),
            Elem::I64 => (i64::MIN.into(), i64::MAX.into()),
            Elem::U64 => (0, u64::MAX.into()),
            Elem::F32 | Elem::F64 => (i128::MIN, i128::MAX),
        }
    }

    /// The largest value of an integer type (`None` for floats). Scalar values are sizes in
    /// terms of `n`, never negative, so the smallest is 0.
    pub fn int_max(self) -> Option<u64> {
        match self {
            Elem::U8 => Some(u8::MAX.into()),
            Elem::I32 => Some(i32::MAX as u64),
            Elem::U32 => Some(u32::MAX.into()),
            Elem::I64 => Some(i64::MAX as u64),
            Elem::U64 => Some(u64::MAX),
            Elem::F32 | Elem::F64 => None,
        }
    }
}

impl FromStr for Elem {
    type Err = String;
    fn from_str(s: &str) -> Result<Elem, String> {
        Ok(match s.trim() {
            "u8" => Elem::U8,
            "i32" => Elem::I32,
            "u32" => Elem::U32,
            "i64" => Elem::I64,
            "u64" | "usize" => Elem::U64,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            other => {
                return Err(format!(
                    "`{other}` is not an element type: u8, i32, u32, i64, u64, f32, f64"
                ));
            }
        })
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Elem::U8 => "u8",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::I64 => "i64",
            Elem::U64 => "u64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        })
    }
}
