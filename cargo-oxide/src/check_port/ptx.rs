//! What check-port reads from the oxide PTX it launches, which is all it has when it is given
//! `--ptx` (on a GPU machine without Rust): the entry's parameters and its launch contract.
//!
//! The contract is read from what the PTX says rather than from the crate's source, so that it
//! is the contract of the code that runs: `.reqntid` (a `#[kernel(block = "32x8")]`) and
//! `.maxntid` (`max_threads = 256`) are declared; `grid = "1d"` leaves no directive, but the
//! backend compiles such a kernel with every y and z index folded away, so its PTX reads none
//! (no `%tid.y`, `%ctaid.z`, ...). A kernel that reads no y or z index computes the same thing
//! in every thread of one x position, so a launch with y or z above 1 would run each of its
//! threads several times over on the same elements: check-port refuses it for any such kernel,
//! which includes every `grid = "1d"` one.

use oxide_contract::KernelOptions;

/// The special registers that tell threads apart along y and z.
const Y_Z_REGISTERS: [&str; 8] = [
    "%tid.y",
    "%tid.z",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.y",
    "%nctaid.z",
];

/// One `.entry` of a PTX module, as far as a launch needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its number of `.param`s.
    pub params: usize,
    /// `.reqntid x, y, z`: the exact block shape.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid x, y, z`: at most x·y·z threads per block (in u128: three u32 dimensions
    /// multiply to under 2^96, which no u64 holds).
    pub max_threads: Option<u128>,
    /// Whether it, or any `.func` of the module, reads a y or z index.
    pub reads_y_or_z: bool,
}

/// The entry `name` of the PTX module `ptx`.
pub fn entry(ptx: &str, name: &str) -> Result<Entry, String> {
    let header = format!(".entry {name}(");
    let start = ptx
        .find(&header)
        .ok_or_else(|| format!("no `.entry {name}`"))?;
    let rest = &ptx[start + header.len()..];
    let close = rest
        .find(')')
        .ok_or_else(|| format!("`.entry {name}` has no closing `)`"))?;
    let params = rest[..close].matches(".param").count();
    let after = &rest[close + 1..];
    let open = after
        .find('{')
        .ok_or_else(|| format!("`.entry {name}` has no body"))?;
    let directives = &after[..open];
    let reqntid = shape_directive(directives, ".reqntid")?;
    let max_threads = shape_directive(directives, ".maxntid")?
        .map(|[x, y, z]| u128::from(x) * u128::from(y) * u128::from(z));
    let mut bodies = vec![body(&after[open..])];
    bodies.extend(function_bodies(ptx));
    let reads_y_or_z = bodies
        .iter()
        .any(|b| Y_Z_REGISTERS.iter().any(|r| b.contains(r)));
    Ok(Entry {
        params,
        reqntid,
        max_threads,
        reads_y_or_z,
    })
}

/// `directive x[, y[, z]]` among an entry's performance directives, as (x, y, z).
fn shape_directive(text: &str, directive: &str) -> Result<Option<[u32; 3]>, String> {
    let Some(at) = text.find(directive) else {
        return Ok(None);
    };
    let mut shape = [1u32; 3];
    let words = text[at + directive.len()..]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .take_while(|w| w.chars().all(|c| c.is_ascii_digit()));
    for (i, word) in words.enumerate() {
        let slot = shape
            .get_mut(i)
            .ok_or_else(|| format!("`{directive}` has more than three dimensions"))?;
        *slot = word
            .parse()
            .map_err(|_| format!("`{directive} {word}` is not a dimension"))?;
    }
    Ok(Some(shape))
}

/// The text from `text`'s first `{` to its matching `}` (the whole rest if unbalanced).
fn body(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[..=i];
                }
            }
            _ => {}
        }
    }
    text
}

/// The bodies of the module's `.func` definitions (declarations, which end in `;`, have none).
fn function_bodies(ptx: &str) -> Vec<&str> {
    let mut bodies = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".func") {
        rest = &rest[at + ".func".len()..];
        match (rest.find('{'), rest.find(';')) {
            (Some(open), semicolon) if semicolon.is_none_or(|s| open < s) => {
                let b = body(&rest[open..]);
                bodies.push(b);
                rest = &rest[open + b.len()..];
            }
            _ => {}
        }
    }
    bodies
}

/// Refuses a launch of `entry` (kernel `kernel`) with `grid` and `block` that breaks what its
/// PTX declares or assumes, with the rule of `oxide_contract::KernelOptions` for the declared
/// shape, the one oxide's own launcher applies.
pub fn check_launch(
    entry: &Entry,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<(), String> {
    let (g, b) = ((grid[0], grid[1], grid[2]), (block[0], block[1], block[2]));
    // `KernelOptions` states `max_threads` in a u32, as `#[kernel(max_threads)]` does; a PTX
    // bound past that is checked here, in u128, rather than cut down to one it does not say.
    let (max_threads, wide_max) = match entry.max_threads.map(u32::try_from) {
        Some(Ok(max)) => (Some(max), None),
        Some(Err(_)) => (None, entry.max_threads),
        None => (None, None),
    };
    let threads: u128 = block.iter().map(|&d| u128::from(d)).product();
    if let Some(max) = wide_max
        && threads > max
    {
        return Err(format!(
            "kernel `{kernel}`'s PTX declares `.maxntid` of {max} threads, and this launch has \
             block {b:?}, {threads} threads; give --oxide-block a shape that keeps it"
        ));
    }
    let declared = KernelOptions {
        block: entry.reqntid,
        max_threads,
        ..KernelOptions::default()
    };
    declared.check_launch_shape(kernel, g, b).map_err(|why| {
        format!(
            "{why} (its PTX declares it: `.reqntid`/`.maxntid`); give --oxide-block a shape \
             that keeps it"
        )
    })?;
    let one_d = g.1 == 1 && g.2 == 1 && b.1 == 1 && b.2 == 1;
    if entry.reads_y_or_z || one_d {
        return Ok(());
    }
    // Four u32 factors: under 2^128, so u128 holds the product.
    let copies = u128::from(g.1) * u128::from(g.2) * u128::from(b.1) * u128::from(b.2);
    Err(format!(
        "the PTX of kernel `{kernel}` reads no y or z index (no %tid.y, %ctaid.y, %ntid.y, \
         %nctaid.y nor their z; a `#[kernel(grid = \"1d\")]` kernel compiles to this), so on grid \
         {g:?} and block {b:?} each of its threads would run {copies} times over, on the same \
         elements: launch it 1-D (--oxide-grid and --oxide-block with y = z = 1)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "
.version 8.7
.target sm_90
.address_size 64

.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);

.visible .entry flat(
\t.param .u64 .ptr .global .align 16 flat_param_0,
\t.param .u64 flat_param_1
)
.maxntid 256, 1, 1
{
\t.reg .b32 %r<3>;
\tmov.u32 %r1, %ctaid.x;
\tmov.u32 %r2, %ntid.x;
\t{ .reg .b32 inner; }
\tret;
}

.visible .entry tiles(
\t.param .u64 tiles_param_0
)
.reqntid 32, 8, 1
{
\tmov.u32 %r1, %tid.y;
\tret;
}

.visible .entry helper_user()
{
\tcall.uni helper, ();
\tret;
}
";

    #[test]
    fn entries_and_their_contracts() {
        let flat = entry(PTX, "flat").unwrap();
        assert_eq!(
            flat,
            Entry {
                params: 2,
                reqntid: None,
                max_threads: Some(256),
                reads_y_or_z: false,
            }
        );
        let tiles = entry(PTX, "tiles").unwrap();
        assert_eq!((tiles.params, tiles.reqntid), (1, Some([32, 8, 1])));
        assert!(tiles.reads_y_or_z);
        assert!(entry(PTX, "missing").is_err());
        // `flat` must not be found as a prefix of another entry's name.
        assert!(entry(PTX, "fla").is_err());
        let helper = entry(PTX, "helper_user").unwrap();
        assert!(!helper.reads_y_or_z);
        // A `.func` that reads a y index counts: the entry may call it.
        let with_func =
            format!("{PTX}\n.func helper()\n{{\n\tmov.u32 %r1, %ctaid.z;\n\tret;\n}}\n");
        assert!(entry(&with_func, "helper_user").unwrap().reads_y_or_z);
    }

    /// Issue 18: a `grid = "1d"` kernel was launched on a 2×2 grid.
    #[test]
    fn a_kernel_that_reads_no_y_or_z_index_is_launched_1d() {
        let flat = entry(PTX, "flat").unwrap();
        assert!(check_launch(&flat, "flat", [4, 1, 1], [256, 1, 1]).is_ok());
        let e = check_launch(&flat, "flat", [2, 2, 1], [64, 1, 1]).unwrap_err();
        assert!(e.contains("reads no y or z index"), "{e}");
        assert!(e.contains("2 times over"), "{e}");
        assert!(check_launch(&flat, "flat", [2, 1, 1], [16, 4, 1]).is_err());
        // A kernel that tells y apart may be launched 2-D.
        let tiles = entry(PTX, "tiles").unwrap();
        assert!(check_launch(&tiles, "tiles", [128, 128, 1], [32, 8, 1]).is_ok());
    }

    /// Review of issue 18: `.maxntid 4294967295, 4294967295, 4294967295` overflowed the u64
    /// thread count (a panic), and so did a launch of such a block.
    #[test]
    fn thread_counts_past_u64_are_exact() {
        let max = u32::MAX;
        let ptx = format!(
            ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n\
             .maxntid {max}, {max}, {max}\n{{ ret; }}"
        );
        let k = entry(&ptx, "k").unwrap();
        assert_eq!(k.max_threads, Some(u128::from(max).pow(3)));
        // Every block keeps that bound; one of y = z = 1 is the only 1-D one.
        assert!(check_launch(&k, "k", [1, 1, 1], [max, 1, 1]).is_ok());
        let e = check_launch(&k, "k", [max; 3], [max; 3]).unwrap_err();
        assert!(
            e.contains("340282366604025813516997721482669850625 times over"),
            "{e}"
        );
        // A bound past u32 threads, but below the block's: refused with the PTX's own number.
        let narrower = ptx.replace(
            &format!(".maxntid {max}, {max}, {max}"),
            ".maxntid 65536, 65536",
        );
        let k = entry(&narrower, "k").unwrap();
        let e = check_launch(&k, "k", [1; 3], [65536, 65537, 1]).unwrap_err();
        assert!(e.contains("`.maxntid` of 4294967296 threads"), "{e}");
        assert!(check_launch(&k, "k", [1; 3], [65536, 1, 1]).is_ok());
    }

    #[test]
    fn declared_shapes_are_kept() {
        let tiles = entry(PTX, "tiles").unwrap();
        let e = check_launch(&tiles, "tiles", [128, 128, 1], [256, 1, 1]).unwrap_err();
        assert!(e.contains("must be exactly (32, 8, 1)"), "{e}");
        let flat = entry(PTX, "flat").unwrap();
        let e = check_launch(&flat, "flat", [4, 1, 1], [512, 1, 1]).unwrap_err();
        assert!(e.contains("at most 256 threads"), "{e}");
        assert!(shape_directive(".reqntid 1, 2, 3, 4", ".reqntid").is_err());
        assert_eq!(
            shape_directive("\n.maxntid 128\n", ".maxntid").unwrap(),
            Some([128, 1, 1])
        );
    }
}
