//! What the code `#[kernel]` generates calls (docs/contracts.md). Not an API: it changes with
//! the macro.

use crate::emulate::{FailureKind, KernelFailure};
use crate::host::{Error, KernelFunction, KernelModule, LaunchConfig};

/// The PTX entry of one instance of a generic kernel, named as the backend names the entries
/// it compiles (docs/contracts.md).
pub use oxide_contract::generic_entry;

/// The instance of the generic kernel `name` whose type arguments have the `type_names`, from
/// the crate's module; errors call it `name::<T1, T2>`.
pub fn generic_function(
    module: &KernelModule,
    name: &str,
    type_names: &[&str],
) -> Result<KernelFunction, Error> {
    crate::host::generic_function(module, name, type_names)
}

/// The launch contract of a `#[kernel(grid = "1d")]` kernel, checked before its launch: grid and
/// block have y = z = 1.
pub fn check_grid_1d(kernel: &str, cfg: &LaunchConfig) -> Result<(), Error> {
    grid_1d(kernel, cfg).map_err(Error::LaunchShape)
}

/// [`check_grid_1d`] for the emulator.
pub fn emulate_check_grid_1d(
    kernel: &'static str,
    cfg: &LaunchConfig,
) -> Result<(), KernelFailure> {
    grid_1d(kernel, cfg).map_err(|reason| KernelFailure {
        kernel,
        kind: FailureKind::LaunchShape(reason),
    })
}

fn grid_1d(kernel: &str, cfg: &LaunchConfig) -> Result<(), String> {
    if cfg.is_1d() {
        Ok(())
    } else {
        Err(format!(
            "kernel `{kernel}` is declared `#[kernel(grid = \"1d\")]`: grid and block must have \
             y = z = 1, and this launch has grid {:?} and block {:?}",
            cfg.grid, cfg.block
        ))
    }
}

/// The launch contract of a `#[kernel(block = "...")]` kernel, checked before its launch: the
/// block is exactly `shape`.
pub fn check_block(kernel: &str, cfg: &LaunchConfig, shape: [u32; 3]) -> Result<(), Error> {
    exact_block(kernel, cfg, shape).map_err(Error::LaunchShape)
}

/// [`check_block`] for the emulator.
pub fn emulate_check_block(
    kernel: &'static str,
    cfg: &LaunchConfig,
    shape: [u32; 3],
) -> Result<(), KernelFailure> {
    exact_block(kernel, cfg, shape).map_err(|reason| KernelFailure {
        kernel,
        kind: FailureKind::LaunchShape(reason),
    })
}

fn exact_block(kernel: &str, cfg: &LaunchConfig, [x, y, z]: [u32; 3]) -> Result<(), String> {
    if cfg.block == (x, y, z) {
        Ok(())
    } else {
        Err(format!(
            "kernel `{kernel}` is declared `#[kernel(block = \"{x}x{y}x{z}\")]`: its blocks must \
             be exactly ({x}, {y}, {z}), and this launch has block {:?}",
            cfg.block
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_1d_contract() {
        let one_d = LaunchConfig::for_num_elems(100, 32).unwrap();
        assert!(check_grid_1d("k", &one_d).is_ok());
        assert!(emulate_check_grid_1d("k", &one_d).is_ok());
        let two_d = LaunchConfig {
            grid: (2, 2, 1),
            block: (8, 8, 1),
            shared_mem_bytes: 0,
        };
        let e = check_grid_1d("k", &two_d).unwrap_err();
        assert!(matches!(&e, Error::LaunchShape(_)), "{e}");
        assert_eq!(
            e.to_string(),
            "invalid launch shape: kernel `k` is declared `#[kernel(grid = \"1d\")]`: grid and \
             block must have y = z = 1, and this launch has grid (2, 2, 1) and block (8, 8, 1)"
        );
        assert!(check_block("k", &two_d, [8, 8, 1]).is_ok());
        let e = check_block("k", &two_d, [32, 8, 1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid launch shape: kernel `k` is declared `#[kernel(block = \"32x8x1\")]`: its \
             blocks must be exactly (32, 8, 1), and this launch has block (8, 8, 1)"
        );
        assert!(emulate_check_block("k", &two_d, [64, 1, 1]).is_err());
        let f = emulate_check_grid_1d("k", &two_d).unwrap_err();
        assert!(matches!(f.kind, FailureKind::LaunchShape(_)), "{f}");
        assert_eq!(f.kernel, "k");
    }
}
