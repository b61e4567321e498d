//! What the code `#[kernel]` generates calls (docs/contracts.md). Not an API: it changes with
//! the macro.

use crate::emulate::{FailureKind, KernelFailure};
use crate::host::{Error, KernelFunction, KernelModule, LaunchConfig};

/// The PTX entry of one instance of a generic kernel: `<name>__<hash>`, `hash` being the 64-bit
/// FNV-1a hash (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`) of the bytes of the
/// type arguments' `core::any::type_name`s joined by `,`, as 16 lowercase hex digits. The
/// backend names the entries it compiles the same way (docs/contracts.md).
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
    format!("{name}__{hash:016x}")
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The backend (codegen-backend/src/device.rs) pins the same values.
    #[test]
    fn generic_entry_is_pinned() {
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
    fn generic_entry_hashes_the_joined_names() {
        // Joined by ",": two names and one name holding the same bytes hash alike.
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
        let f = emulate_check_grid_1d("k", &two_d).unwrap_err();
        assert!(matches!(f.kind, FailureKind::LaunchShape(_)), "{f}");
        assert_eq!(f.kernel, "k");
    }
}
