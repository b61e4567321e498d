//! Every check of a kernel's launch contract, made before anything runs, alike on the GPU and
//! on the emulator: its shape options (`grid = "1d"`, `block`, `max_threads`; the rule is
//! oxide-contract's, which `cargo oxide check-port` applies too), `same_len`, `covers`, and the
//! size of a `DynShared` array. Each refusal is a [`Breach`], which the GPU launcher turns into
//! an `oxide::host::Error` and the emulator into a [`KernelFailure`].

use oxide_contract::KernelOptions;

use crate::{FailureKind, KernelFailure, LaunchConfig, MAX_DYNAMIC_SHARED_MEM_BYTES};

/// Why a launch breaks its kernel's contract; nothing ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breach {
    /// The shape breaks the kernel's shape options.
    LaunchShape(String),
    /// Arguments whose lengths break `same_len` or `covers`.
    ArgumentLengths(String),
    /// Arguments that break a `requires` condition.
    Requires(String),
    /// A `DynShared` array of more bytes than a launch may have.
    SharedMemory {
        /// The bytes asked for (`u32::MAX` past it).
        requested: u32,
        /// The most a launch may have.
        limit: u32,
    },
}

impl Breach {
    /// The emulator's failure for it.
    pub fn emulated(self, kernel: &'static str) -> KernelFailure {
        let kind = match self {
            Breach::LaunchShape(reason) => FailureKind::LaunchShape(reason),
            Breach::ArgumentLengths(reason) => FailureKind::ArgumentLengths(reason),
            Breach::Requires(reason) => FailureKind::Requires(reason),
            Breach::SharedMemory { requested, limit } => {
                FailureKind::SharedMemory { requested, limit }
            }
        };
        KernelFailure { kernel, kind }
    }
}

/// The shape options of `options` against `cfg` (`sm` is about the device, which only the GPU
/// launcher has, and `min_blocks_per_sm` is a hint).
pub fn launch_shape(
    kernel: &str,
    cfg: &LaunchConfig,
    options: &KernelOptions,
) -> Result<(), Breach> {
    options
        .check_launch_shape(kernel, cfg.grid, cfg.block)
        .map_err(Breach::LaunchShape)
}

/// The contract `same_len = "a, b"`: the named arguments (`(name, length)`) have one length.
pub fn same_len(kernel: &str, group: &[(&str, usize)]) -> Result<(), Breach> {
    let Some(&(first, len)) = group.first() else {
        return Ok(());
    };
    match group.iter().find(|&&(_, l)| l != len) {
        None => Ok(()),
        Some(&(other, other_len)) => Err(Breach::ArgumentLengths(format!(
            "kernel `{kernel}` is declared `same_len` over its arguments {}: `{first}` has {len} \
             elements and `{other}` {other_len}",
            group
                .iter()
                .map(|(n, _)| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// What a `requires` condition read of an argument, for its refusal's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `name.len()`.
    Length(usize),
    /// `name.width()`, `.pitch()`, `.rows()` or `.origin()` of a row output.
    Shape(crate::RowShape),
}

/// The contract `requires = "condition"`: `holds`, the condition evaluated on the launch's
/// arguments; `read`, what it read of them (`("x", Read::Length(100))` for `x.len()`), which
/// the refusal names: measured only for a refusal, so a launch that passes pays nothing for it.
pub fn requires<'a>(
    kernel: &str,
    condition: &str,
    holds: bool,
    read: impl FnOnce() -> Vec<(&'a str, Read)>,
) -> Result<(), Breach> {
    if holds {
        return Ok(());
    }
    let each: Vec<String> = read()
        .iter()
        .map(|(name, read)| match read {
            Read::Length(len) => format!("`{name}.len()` = {len}"),
            Read::Shape(s) => format!(
                "`{name}` {} × {} (rows × width), pitch {}, origin {:?}",
                s.rows(),
                s.width(),
                s.pitch(),
                s.origin()
            ),
        })
        .collect();
    let read = if each.is_empty() {
        String::new()
    } else {
        format!(" ({})", each.join(", "))
    };
    Err(Breach::Requires(format!(
        "kernel `{kernel}` requires `{condition}`, which these arguments do not satisfy{read}"
    )))
}

/// The contract `covers = "out"`: the grid has a thread for each element of `out`.
pub fn covers(kernel: &str, cfg: &LaunchConfig, name: &str, len: usize) -> Result<(), Breach> {
    let (g, b) = (cfg.grid, cfg.block);
    let threads = [g.0, g.1, g.2, b.0, b.1, b.2]
        .iter()
        .try_fold(1u128, |n, &d| n.checked_mul(u128::from(d)))
        .unwrap_or(u128::MAX);
    if threads >= len as u128 {
        Ok(())
    } else {
        Err(Breach::ArgumentLengths(format!(
            "kernel `{kernel}` is declared `covers = \"{name}\"`: the grid needs a thread per \
             element of `{name}` ({len}), and grid {g:?} of blocks {b:?} has {threads}"
        )))
    }
}

/// `cfg` with its dynamic shared memory set to `len` elements of `T`, for a kernel's
/// `DynShared<T>` (the launch's own `shared_mem_bytes` is replaced: nothing else can use the
/// region safely), refused when a launch may not have that much.
pub fn with_dynamic_shared<T>(cfg: &LaunchConfig, len: usize) -> Result<LaunchConfig, Breach> {
    let too_much = |requested| Breach::SharedMemory {
        requested,
        limit: MAX_DYNAMIC_SHARED_MEM_BYTES,
    };
    let bytes = len
        .checked_mul(size_of::<T>())
        .and_then(|b| u32::try_from(b).ok())
        .ok_or(too_much(u32::MAX))?;
    if bytes > MAX_DYNAMIC_SHARED_MEM_BYTES {
        return Err(too_much(bytes));
    }
    Ok(LaunchConfig {
        shared_mem_bytes: bytes,
        ..*cfg
    })
}
