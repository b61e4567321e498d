//! What the code `#[kernel]` generates calls (docs/contracts.md). Not an API: it changes with
//! the macro.

use crate::emulate::KernelFailure;
use crate::host::{Error, Gpu, KernelFunction, KernelModule, LaunchConfig};

/// Compiles only when `P` is a kernel parameter: what the code `#[kernel]` generates checks each
/// argument's type with, once, at the kernel's definition.
#[inline(always)]
pub fn kernel_param<P: crate::KernelParam>(_: &P) {}

/// What a `requires` condition may read as a value: a by-value argument (plain device data,
/// `Copy`), which the launchers take as the kernel's own type.
#[diagnostic::on_unimplemented(
    message = "`requires` reads the kernel's by-value arguments, and `{Self}` is not one",
    label = "read as a value in this `requires` condition",
    note = "a condition reads a buffer argument's length as `name.len()` (its element count), \
            nothing else of it"
)]
pub trait RequiredValue {}

impl<T: crate::DeviceData + Copy> RequiredValue for T {}

/// Compiles only when `T` is an argument a `requires` condition may name.
#[inline(always)]
pub fn required_value<T: RequiredValue>() {}

/// What a `requires` condition may read as `name.len()`: an argument whose element count the
/// launchers measure (`MeasuredParam`).
#[diagnostic::on_unimplemented(
    message = "`requires` reads `.len()` of the kernel's buffer arguments, and `{Self}` is not one",
    label = "`.len()` read in this `requires` condition",
    note = "`.len()` in a condition is the element count of a slice, a `Matrix` or an output \
            (its buffer's length); a by-value argument is read by its name alone"
)]
pub trait RequiredLength {}

impl<P: ?Sized + crate::MeasuredParam> RequiredLength for P {}

/// What a `requires` condition may read the shape of (`out.width()`, `out.pitch()`,
/// `out.rows()`, `out.origin()`, or whole as `out.shape()`): the outputs a launch passes as a
/// `Rows`.
#[diagnostic::on_unimplemented(
    message = "`requires` reads `.width()`, `.pitch()`, `.rows()`, `.origin()` and `.shape()` of \
               the kernel's row outputs, and `{Self}` is not one",
    label = "its shape read in this `requires` condition",
    note = "the row outputs are `DisjointRows`, `WarpRows`, `WarpChunkRows`, `BlockTiles` and \
            `MmaTiles` (passed as `Rows::new(&mut buf, width)?`); any buffer's element count is \
            `name.len()`"
)]
pub trait RequiredRows {}

impl<T> RequiredRows for crate::DisjointRows<'_, T> {}
impl<T> RequiredRows for crate::WarpRows<'_, T> {}
impl<T, const C: usize> RequiredRows for crate::WarpChunkRows<'_, T, C> {}
impl<T, const R: usize, const C: usize, O: crate::outputs::TileOrder> RequiredRows
    for crate::BlockTiles<'_, T, R, C, O>
{
}
impl<T, const R: usize, const C: usize, const WR: usize, const WC: usize, O> RequiredRows
    for crate::MmaTiles<'_, T, R, C, WR, WC, O>
where
    O: crate::outputs::TileOrder,
{
}

/// Compiles only when `P` is an argument a `requires` condition may read the shape of.
#[inline(always)]
pub fn required_rows<P: ?Sized + RequiredRows>() {}

/// The shape a row output's launch passes, from its words (the launcher's `LaunchArg::words`,
/// the emulator's `ThreadArg::words`).
pub fn row_shape<W: Copy + TryInto<usize>>(words: &[W]) -> oxide_launch::RowShape {
    oxide_launch::RowShape::from_words(words)
}

/// Compiles only when `P` is an argument a `requires` condition may read as `name.len()`.
#[inline(always)]
pub fn required_length<P: ?Sized + RequiredLength>() {}

/// Compiles only when `P` has a length the launch contracts `same_len` and `covers` can check.
#[inline(always)]
pub fn counted<P: ?Sized + crate::CountedParam>() {}

/// The PTX entry of one instance of a generic kernel, named as the backend names the entries
/// it compiles (docs/contracts.md).
pub use oxide_contract::{generic_entry, is_ptx_image_symbol};

/// The instance of the generic kernel `name` whose type arguments have the `type_names`, from
/// the crate's module; errors call it `name::<T1, T2>`.
pub fn generic_function(
    module: &KernelModule,
    name: &str,
    type_names: &[&str],
) -> Result<KernelFunction, Error> {
    crate::host::generic_function(module, name, type_names)
}

/// What `#[kernel(...)]` stated: the generated launcher and emulator pass it to
/// [`check_launch`] and [`emulate_check_launch`].
pub use oxide_contract::KernelOptions;

use oxide_launch::contract;

/// The launch contract of a kernel, checked before its launch: its shape options (`grid =
/// "1d"`, `block`, `max_threads`) against `cfg`, and `sm` against the device.
pub fn check_launch(
    gpu: &Gpu,
    kernel: &str,
    cfg: &LaunchConfig,
    options: &KernelOptions,
) -> Result<(), Error> {
    contract::launch_shape(kernel, cfg, options)?;
    if let Some(needs) = options.min_sm {
        let has = gpu.compute_capability()?;
        if has < needs {
            return Err(Error::UnsupportedDevice {
                kernel: kernel.to_string(),
                needs,
                ordinal: gpu.ordinal(),
                device: gpu.name().unwrap_or_else(|_| "?".to_string()),
                has,
            });
        }
    }
    Ok(())
}

/// [`check_launch`] for the emulator: the shape options (the emulator has no device).
pub fn emulate_check_launch(
    kernel: &'static str,
    cfg: &LaunchConfig,
    options: &KernelOptions,
) -> Result<(), KernelFailure> {
    contract::launch_shape(kernel, cfg, options).map_err(|b| b.emulated(kernel))
}

/// The contract `same_len = "a, b"`: the named arguments (`(name, length)`) have one length.
pub fn same_len(kernel: &str, group: &[(&str, usize)]) -> Result<(), Error> {
    Ok(contract::same_len(kernel, group)?)
}

/// [`same_len`] for the emulator.
pub fn emulate_same_len(
    kernel: &'static str,
    group: &[(&str, usize)],
) -> Result<(), KernelFailure> {
    contract::same_len(kernel, group).map_err(|b| b.emulated(kernel))
}

/// The contract `requires = "condition"`: `holds`, the condition on the launch's arguments;
/// `read`, the lengths and shapes it read.
pub fn requires<'a>(
    kernel: &str,
    condition: &str,
    holds: bool,
    read: impl FnOnce() -> Vec<(&'a str, contract::Read)>,
) -> Result<(), Error> {
    Ok(contract::requires(kernel, condition, holds, read)?)
}

/// [`requires`] for the emulator.
pub fn emulate_requires<'a>(
    kernel: &'static str,
    condition: &str,
    holds: bool,
    read: impl FnOnce() -> Vec<(&'a str, contract::Read)>,
) -> Result<(), KernelFailure> {
    contract::requires(kernel, condition, holds, read).map_err(|b| b.emulated(kernel))
}

pub use contract::Read as RequiredRead;

/// The contract `covers = "out"`: the grid has a thread for each element of `out`.
pub fn covers(kernel: &str, cfg: &LaunchConfig, name: &str, len: usize) -> Result<(), Error> {
    Ok(contract::covers(kernel, cfg, name, len)?)
}

/// [`covers`] for the emulator.
pub fn emulate_covers(
    kernel: &'static str,
    cfg: &LaunchConfig,
    name: &str,
    len: usize,
) -> Result<(), KernelFailure> {
    contract::covers(kernel, cfg, name, len).map_err(|b| b.emulated(kernel))
}

/// `cfg` with its dynamic shared memory set to `len` elements of `T`, for a kernel's
/// `DynShared<T>`; too much is an `Error::SharedMemory`, before anything runs.
pub fn with_dynamic_shared<T>(cfg: LaunchConfig, len: usize) -> Result<LaunchConfig, Error> {
    Ok(contract::with_dynamic_shared::<T>(&cfg, len)?)
}

/// [`with_dynamic_shared`] for the emulator.
pub fn emulate_with_dynamic_shared<T>(
    kernel: &'static str,
    cfg: &LaunchConfig,
    len: usize,
) -> Result<LaunchConfig, KernelFailure> {
    contract::with_dynamic_shared::<T>(cfg, len).map_err(|b| b.emulated(kernel))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulate::FailureKind;

    fn options() -> KernelOptions {
        KernelOptions::default()
    }

    #[test]
    fn shape_contracts() {
        let one_d = LaunchConfig::for_num_elems(100, 32).unwrap();
        let grid_1d = KernelOptions {
            grid_1d: true,
            ..options()
        };
        fn launch_shape(
            k: &str,
            cfg: &LaunchConfig,
            options: &KernelOptions,
        ) -> Result<(), String> {
            match contract::launch_shape(k, cfg, options) {
                Ok(()) => Ok(()),
                Err(contract::Breach::LaunchShape(reason)) => Err(reason),
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(launch_shape("k", &one_d, &grid_1d).is_ok());
        assert!(emulate_check_launch("k", &one_d, &grid_1d).is_ok());
        let two_d = LaunchConfig {
            grid: (2, 2, 1),
            block: (8, 8, 1),
            shared_mem_bytes: 0,
        };
        assert_eq!(
            launch_shape("k", &two_d, &grid_1d).unwrap_err(),
            "kernel `k` is declared `#[kernel(grid = \"1d\")]`: grid and block must have y = z \
             = 1, and this launch has grid (2, 2, 1) and block (8, 8, 1)"
        );
        let block = |shape| KernelOptions {
            block: Some(shape),
            ..options()
        };
        assert!(launch_shape("k", &two_d, &block([8, 8, 1])).is_ok());
        assert_eq!(
            launch_shape("k", &two_d, &block([32, 8, 1])).unwrap_err(),
            "kernel `k` is declared `#[kernel(block = \"32x8x1\")]`: its blocks must be exactly \
             (32, 8, 1), and this launch has block (8, 8, 1)"
        );
        let max = |n| KernelOptions {
            max_threads: Some(n),
            ..options()
        };
        assert!(launch_shape("k", &two_d, &max(64)).is_ok());
        assert_eq!(
            launch_shape("k", &two_d, &max(32)).unwrap_err(),
            "kernel `k` is declared `#[kernel(max_threads = 32)]`: its blocks have at most 32 \
             threads, and this launch has block (8, 8, 1), 64 threads"
        );
        let f = emulate_check_launch("k", &two_d, &grid_1d).unwrap_err();
        assert!(matches!(f.kind, FailureKind::LaunchShape(_)), "{f}");
        assert_eq!(f.kernel, "k");
        // The occupancy hint and the device contract say nothing about the shape.
        let hints = KernelOptions {
            min_blocks_per_sm: Some(4),
            min_sm: Some(90),
            ..max(64)
        };
        assert!(emulate_check_launch("k", &two_d, &hints).is_ok());
    }

    #[test]
    fn argument_length_contracts() {
        assert!(same_len("k", &[("a", 4), ("b", 4), ("c", 4)]).is_ok());
        let e = same_len("k", &[("a", 4), ("b", 5)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "argument lengths: kernel `k` is declared `same_len` over its arguments `a`, `b`: \
             `a` has 4 elements and `b` 5"
        );
        let cfg = LaunchConfig::for_num_elems(100, 32).unwrap();
        assert!(covers("k", &cfg, "out", 128).is_ok());
        let e = emulate_covers("k", &cfg, "out", 129).unwrap_err();
        assert!(matches!(e.kind, FailureKind::ArgumentLengths(_)), "{e}");
        assert!(e.to_string().contains("has 128"), "{e}");
    }

    #[test]
    fn dynamic_shared_memory_is_sized_and_bounded() {
        let cfg = LaunchConfig::for_num_elems(100, 32).unwrap();
        assert_eq!(
            with_dynamic_shared::<f32>(cfg, 256)
                .unwrap()
                .shared_mem_bytes,
            1024
        );
        assert_eq!(
            with_dynamic_shared::<u8>(cfg, 0).unwrap().shared_mem_bytes,
            0
        );
        // 227 KiB is the most; above 48 KiB the GPU launch opts in (checked there).
        assert_eq!(
            with_dynamic_shared::<f64>(cfg, 29056)
                .unwrap()
                .shared_mem_bytes,
            232448
        );
        let e = with_dynamic_shared::<f64>(cfg, 29057).unwrap_err();
        assert!(
            matches!(
                e,
                Error::SharedMemory {
                    requested: 232456,
                    limit: 232448
                }
            ),
            "{e}"
        );
        let e = emulate_with_dynamic_shared::<u64>("k", &cfg, usize::MAX).unwrap_err();
        assert!(
            matches!(
                e.kind,
                FailureKind::SharedMemory {
                    requested: u32::MAX,
                    ..
                }
            ),
            "{e}"
        );
    }
}
