//! How the macros tell the backend which functions are kernels and which options they have, and
//! how both sides name what the backend produces (docs/contracts.md, "How a kernel is marked").

use std::fmt;

/// Every kernel marker starts with this. After it comes either `_<name>` (no options) or
/// `<opt>[_<opt>]__<name>`.
pub const KERNEL_MARKER_PREFIX: &str = "__oxide_kernel_";

/// What `#[kernel(...)]` states about a kernel, carried to the backend in its marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelOptions {
    /// `strict_float` (tag `strict`): no FMA contraction, bit-for-bit Rust float semantics.
    pub strict_float: bool,
    /// `grid = "1d"` (tag `grid1d`): launched with grid and block y = z = 1 (checked by the
    /// launcher), so the backend folds the y and z dimensions to 1 and indices to 0.
    pub grid_1d: bool,
    /// `block = "32x8"` (tag `block32x8x1`): launched with exactly this block shape (checked by
    /// the launcher), so the backend folds `blockDim` to these constants and declares the
    /// shape in the PTX (`.reqntid 32, 8, 1`).
    pub block: Option<[u32; 3]>,
    /// `max_threads = 256` (tag `maxthreads256`): launched with at most this many threads per
    /// block (checked by the launcher); the PTX declares `.maxntid 256, 1, 1`, so ptxas may
    /// give each thread more registers.
    pub max_threads: Option<u32>,
    /// `min_blocks_per_sm = 2` (tag `minblocks2`): ptxas limits registers so that this many
    /// blocks of the largest allowed shape fit on one multiprocessor (`.minnctapersm 2`); an
    /// occupancy hint, nothing to check.
    pub min_blocks_per_sm: Option<u32>,
    /// `sm = 80` (tag `sm80`): the kernel needs a GPU of compute capability 8.0 or later; the
    /// launcher checks the device, and the backend refuses a build for an older architecture.
    pub min_sm: Option<u32>,
}

/// The tag of an exact block shape: `block32x8x1`.
fn block_tag([x, y, z]: [u32; 3]) -> String {
    format!("block{x}x{y}x{z}")
}

/// The numbered tags, in marker order after the block shape: `maxthreads<n>`, `minblocks<n>`,
/// `sm<n>`, each with its option.
type NumberField = fn(&mut KernelOptions) -> &mut Option<u32>;
const NUMBER_TAGS: [(&str, NumberField); 3] = [
    ("maxthreads", |o| &mut o.max_threads),
    ("minblocks", |o| &mut o.min_blocks_per_sm),
    ("sm", |o| &mut o.min_sm),
];

/// The number of a `<prefix><n>` tag, `n` at least 1.
fn parse_number_tag(tag: &str, prefix: &str) -> Option<u32> {
    tag.strip_prefix(prefix)?
        .parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
}

/// The block shape of a `block<x>x<y>x<z>` tag (each at least 1).
fn parse_block_tag(tag: &str) -> Option<[u32; 3]> {
    let dims = tag.strip_prefix("block")?;
    let mut parts = dims
        .split('x')
        .map(|d| d.parse::<u32>().ok().filter(|&v| v > 0));
    let shape = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(shape)
}

/// Gives access to the option a tag stands for.
type OptionField = fn(&mut KernelOptions) -> &mut bool;

/// The option tags in marker order (sorted), each with its option.
const TAGS: [(&str, OptionField); 2] = [
    ("grid1d", |o| &mut o.grid_1d),
    ("strict", |o| &mut o.strict_float),
];

/// The name that marks kernel `name` for the backend: `__oxide_kernel__<name>` without options,
/// else `__oxide_kernel_<tag>[_<tag>]__<name>` with the options' tags sorted. It is the item
/// name of the hidden item `#[kernel]` adds beside the kernel: a `const` holding a non-generic
/// kernel as a function pointer, the wrapper function of a generic one. It is never a symbol,
/// so two crates may each have a kernel of the same name.
pub fn kernel_marker(name: &str, options: &KernelOptions) -> String {
    let mut options = *options;
    // `block...` sorts before the other tags.
    let numbered: Vec<String> = NUMBER_TAGS
        .iter()
        .filter_map(|(tag, field)| field(&mut options).map(|n| format!("{tag}{n}")))
        .collect();
    let tags: Vec<String> = options
        .block
        .map(block_tag)
        .into_iter()
        .chain(numbered)
        .chain(
            TAGS.iter()
                .filter_map(|(tag, field)| (*field(&mut options)).then_some(tag.to_string())),
        )
        .collect();
    if tags.is_empty() {
        format!("{KERNEL_MARKER_PREFIX}_{name}")
    } else {
        format!("{KERNEL_MARKER_PREFIX}{}__{name}", tags.join("_"))
    }
}

/// A marker names an option this side does not know (one side is newer than the other).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKernelOption {
    /// The kernel's name from the marker.
    pub kernel: String,
    /// The unknown tag.
    pub option: String,
}

impl fmt::Display for UnknownKernelOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}` has the option `{}`, which this backend does not know",
            self.kernel, self.option
        )
    }
}

impl std::error::Error for UnknownKernelOption {}

/// The kernel name and options a marker carries; `None` when `item_name` is not a marker, an error
/// when it is one with an option this side does not know.
pub fn parse_kernel_marker(
    item_name: &str,
) -> Option<Result<(&str, KernelOptions), UnknownKernelOption>> {
    let rest = item_name.strip_prefix(KERNEL_MARKER_PREFIX)?;
    // The options cannot contain `__`, the name can: the first `__` ends the options.
    let (tags, name) = match rest.strip_prefix('_') {
        Some(name) => ("", name),
        None => rest.split_once("__")?,
    };
    if name.is_empty() {
        return None;
    }
    let mut options = KernelOptions::default();
    for tag in tags.split('_').filter(|t| !t.is_empty()) {
        if let Some(shape) = parse_block_tag(tag) {
            options.block = Some(shape);
            continue;
        }
        if let Some((field, n)) = NUMBER_TAGS
            .iter()
            .find_map(|(prefix, field)| parse_number_tag(tag, prefix).map(|n| (field, n)))
        {
            *field(&mut options) = Some(n);
            continue;
        }
        match TAGS.iter().find(|(known, _)| *known == tag) {
            Some((_, field)) => *field(&mut options) = true,
            None => {
                return Some(Err(UnknownKernelOption {
                    kernel: name.to_owned(),
                    option: tag.to_owned(),
                }));
            }
        }
    }
    Some(Ok((name, options)))
}

/// The PTX entry of the non-generic kernel `name` (a Rust identifier, without `r#`): `name`
/// itself when it is made of `[A-Za-z0-9_]` only (every ASCII identifier), else `name` with each
/// other character written `$<hex>$`, its code point in lowercase hex (`façade` is
/// `fa$e7$ade`, `π_kernel` is `$3c0$_kernel`).
///
/// PTX identifiers are `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`, so the result is one.
/// The encoding is injective over all strings: a `$` in the output always opens an escape, since
/// no character is kept as `$`, and the escape's hex digits run to the closing `$`. Rust
/// identifiers never contain `$`, so an ASCII name never equals an encoded one.
pub fn kernel_entry(name: &str) -> String {
    let mut entry = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            entry.push(c);
        } else {
            entry.push_str(&format!("${:x}$", u32::from(c)));
        }
    }
    entry
}

/// The PTX entry of one instance of the generic kernel `name`: `<entry>__<hash>`, `entry` being
/// [`kernel_entry`]`(name)` and `hash` the 64-bit FNV-1a hash of the bytes of the type
/// arguments' `core::any::type_name`s joined by `,`, as 16 lowercase hex digits. The launcher
/// passes `type_name::<T>()`, the backend rustc's own `type_name` of the instance's type
/// arguments.
pub fn generic_entry(name: &str, type_names: &[&str]) -> String {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET_BASIS;
    for (i, type_name) in type_names.iter().enumerate() {
        let separator: &[u8] = if i == 0 { b"" } else { b"," };
        for &byte in separator.iter().chain(type_name.as_bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    format!("{}__{hash:016x}", kernel_entry(name))
}

/// Whether `s` is a PTX identifier (`[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`), which
/// every [`kernel_entry`] is, and which is what tools may paste where PTX or C names an entry.
pub fn is_ptx_identifier(s: &str) -> bool {
    let follows = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => chars.all(follows),
        Some('_' | '$' | '%') => s.len() > 1 && chars.all(follows),
        _ => false,
    }
}

/// What every [`ptx_image_symbol`] starts with.
pub const PTX_IMAGE_PREFIX: &str = "__oxide_ptx_";

/// The global symbol of the object the backend adds to a crate with kernels: the crate's PTX
/// followed by a NUL byte. `crate_name` is rustc's crate name (`vecadd`).
pub fn ptx_image_symbol(crate_name: &str) -> String {
    format!("{PTX_IMAGE_PREFIX}{crate_name}")
}

/// Whether `symbol` names a crate's embedded PTX ([`ptx_image_symbol`]). A `const fn`, so that
/// the launcher's `__embedded_ptx!` can refuse at compile time any other symbol: it reads the
/// symbol as NUL-terminated text, which only the backend's PTX images are promised to be.
pub const fn is_ptx_image_symbol(symbol: &str) -> bool {
    let (symbol, prefix) = (symbol.as_bytes(), PTX_IMAGE_PREFIX.as_bytes());
    if symbol.len() <= prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if symbol[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ptx_images_are_ptx_image_symbols() {
        assert!(is_ptx_image_symbol(&ptx_image_symbol("vecadd")));
        for other in [
            "malloc",
            "environ",
            "__oxide_ptx_",
            "__oxide_ptx",
            "_oxide_ptx_x",
            "",
        ] {
            assert!(!is_ptx_image_symbol(other), "{other}");
        }
    }

    fn all_options() -> impl Iterator<Item = KernelOptions> {
        [false, true].into_iter().flat_map(|strict_float| {
            [false, true].into_iter().flat_map(move |grid_1d| {
                [None, Some([32, 8, 1]), Some([256, 1, 1])]
                    .into_iter()
                    .flat_map(move |block| {
                        [
                            (None, None, None),
                            (Some(256), Some(2), Some(80)),
                            (Some(1024), None, Some(90)),
                        ]
                        .into_iter()
                        .map(
                            move |(max_threads, min_blocks_per_sm, min_sm)| KernelOptions {
                                strict_float,
                                grid_1d,
                                block,
                                max_threads,
                                min_blocks_per_sm,
                                min_sm,
                            },
                        )
                    })
            })
        })
    }

    #[test]
    fn markers_are_pinned() {
        let opts = |strict_float, grid_1d| KernelOptions {
            strict_float,
            grid_1d,
            ..KernelOptions::default()
        };
        for (options, marker) in [
            (opts(false, false), "__oxide_kernel__vecadd"),
            (opts(true, false), "__oxide_kernel_strict__vecadd"),
            (opts(false, true), "__oxide_kernel_grid1d__vecadd"),
            (opts(true, true), "__oxide_kernel_grid1d_strict__vecadd"),
            (
                KernelOptions {
                    block: Some([32, 8, 1]),
                    ..opts(true, false)
                },
                "__oxide_kernel_block32x8x1_strict__vecadd",
            ),
            (
                KernelOptions {
                    max_threads: Some(256),
                    min_blocks_per_sm: Some(2),
                    min_sm: Some(80),
                    ..opts(false, true)
                },
                "__oxide_kernel_maxthreads256_minblocks2_sm80_grid1d__vecadd",
            ),
        ] {
            assert_eq!(kernel_marker("vecadd", &options), marker);
        }
        // The name follows the first `__` after the options, whatever it holds.
        assert_eq!(
            kernel_marker("_a__b", &opts(true, false)),
            "__oxide_kernel_strict___a__b"
        );
        assert_eq!(
            kernel_marker("_a__b", &KernelOptions::default()),
            "__oxide_kernel___a__b"
        );
    }

    #[test]
    fn every_marker_parses_back() {
        for name in [
            "vecadd",
            "my_kernel",
            "a__b",
            "_a__b",
            "__x",
            "x__",
            "k_",
            "_",
            "__",
        ] {
            for options in all_options() {
                let marker = kernel_marker(name, &options);
                assert!(marker.starts_with(KERNEL_MARKER_PREFIX), "{marker}");
                assert_eq!(
                    parse_kernel_marker(&marker),
                    Some(Ok((name, options))),
                    "{marker}"
                );
            }
        }
    }

    #[test]
    fn options_in_any_order_parse() {
        let both = KernelOptions {
            strict_float: true,
            grid_1d: true,
            ..KernelOptions::default()
        };
        assert_eq!(
            parse_kernel_marker("__oxide_kernel_strict_grid1d__k"),
            Some(Ok(("k", both)))
        );
    }

    #[test]
    fn unknown_options_are_errors() {
        let e = parse_kernel_marker("__oxide_kernel_grid1d_bogus__k")
            .unwrap()
            .unwrap_err();
        assert_eq!(
            e,
            UnknownKernelOption {
                kernel: "k".into(),
                option: "bogus".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "kernel `k` has the option `bogus`, which this backend does not know"
        );
    }

    #[test]
    fn other_symbols_are_not_markers() {
        for symbol in [
            "vecadd",
            "__oxide_kernel",
            "__oxide_kernelx",
            "__oxide_kernel_strict",
            "__oxide_kernel_strict_k",
            "__oxide_kernel__",
            "__oxide_kernel_strict__",
            "oxide_kernel__k",
        ] {
            assert_eq!(parse_kernel_marker(symbol), None, "{symbol}");
        }
    }

    /// docs/contracts.md pins these; device-std's launcher and the backend both call this.
    #[test]
    fn generic_entries_are_pinned() {
        assert_eq!(generic_entry("scale", &["f32"]), "scale__dd635018ff703544");
        assert_eq!(generic_entry("scale", &["u32"]), "scale__4d2bdf193e8526d1");
        assert_eq!(
            generic_entry("pair", &["f32", "u32"]),
            "pair__2416102b7b7bf53a"
        );
        // No type arguments: the hash of nothing is the offset basis.
        assert_eq!(generic_entry("k", &[]), "k__cbf29ce484222325");
    }

    #[test]
    fn generic_entries_hash_the_joined_names() {
        assert_eq!(
            generic_entry("k", &["a", "b"]),
            generic_entry("k", &["a,b"])
        );
        assert_ne!(generic_entry("k", &["a", "b"]), generic_entry("k", &["ab"]));
        assert_ne!(
            generic_entry("k", &["a", "b"]),
            generic_entry("k", &["b", "a"])
        );
    }

    /// docs/contracts.md pins these; the macros' launcher and the backend both call this.
    #[test]
    fn kernel_entries_are_pinned() {
        assert_eq!(kernel_entry("vecadd"), "vecadd");
        assert_eq!(kernel_entry("_a__b9"), "_a__b9");
        assert_eq!(kernel_entry("façade"), "fa$e7$ade");
        assert_eq!(kernel_entry("π_kernel"), "$3c0$_kernel");
        assert_eq!(kernel_entry("日本"), "$65e5$$672c$");
        assert_eq!(
            generic_entry("π", &["f32"]),
            format!("$3c0$__{}", &generic_entry("k", &["f32"])[3..])
        );
    }

    /// The inverse of `kernel_entry`: its existence is what makes the encoding injective.
    fn decode(entry: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = entry;
        while let Some(c) = rest.chars().next() {
            if c == '$' {
                let (hex, after) = rest[1..].split_once('$')?;
                out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
                rest = after;
            } else {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        Some(out)
    }

    #[test]
    fn kernel_entries_are_ptx_identifiers_and_decode_back() {
        let names = [
            "vecadd",
            "façade",
            "π_kernel",
            "_π",
            "a$b",
            "x__",
            "Ünïcödé",
            "k_日本_2",
            "ℵ0",
            "a1",
            "_e7_",
            "fa_e7_ade",
        ];
        for name in names {
            let entry = kernel_entry(name);
            assert!(is_ptx_identifier(&entry), "{name} -> {entry}");
            assert_eq!(decode(&entry).as_deref(), Some(name), "{entry}");
        }
        // Distinct names, distinct entries (injectivity on the sample, decode proves the rest).
        let mut entries: Vec<String> = names.iter().map(|n| kernel_entry(n)).collect();
        entries.sort();
        entries.dedup();
        assert_eq!(entries.len(), names.len());
    }

    #[test]
    fn ptx_image_symbol_is_pinned() {
        assert_eq!(ptx_image_symbol("vecadd"), "__oxide_ptx_vecadd");
    }
}
