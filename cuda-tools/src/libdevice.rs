//! Finding NVIDIA's libdevice (`libdevice.10.bc`), the math library the backend links into the
//! kernels' LLVM IR when they call `f32::sin` and the like (docs/math.md).
//!
//! Lookup order: `$OXIDE_LIBDEVICE` (when set, it must name a file: nothing else is tried), then
//! `nvvm/libdevice/libdevice.10.bc` beside the `bin/` of the ptxas that [`ptxas::find`] finds: a
//! CUDA install and the pip wheels nvidia-cuda-nvcc + nvidia-nvvm (what ci/setup.sh installs)
//! both have that layout.

use std::path::{Path, PathBuf};

use crate::{Error, Result, ptxas};

/// The environment variable that names the libdevice to use.
pub const ENV: &str = "OXIDE_LIBDEVICE";

/// Finds libdevice, or says how to install it.
pub fn find() -> Result<PathBuf> {
    find_in(std::env::var_os(ENV).map(PathBuf::from), || {
        ptxas::find().ok().map(|p| p.path)
    })
}

/// The lookup of `find`, given `$OXIDE_LIBDEVICE` and the ptxas probe.
fn find_in(env: Option<PathBuf>, ptxas: impl FnOnce() -> Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = env {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::LibdeviceMissing(path))
        };
    }
    ptxas()
        .as_deref()
        .and_then(beside_ptxas)
        .ok_or(Error::LibdeviceNotFound)
}

/// `<root>/nvvm/libdevice/libdevice.10.bc` for a ptxas at `<root>/bin/ptxas`, if it exists.
fn beside_ptxas(ptxas: &Path) -> Option<PathBuf> {
    let root = ptxas.parent()?.parent()?;
    let candidate = root.join("nvvm").join("libdevice").join("libdevice.10.bc");
    candidate.is_file().then_some(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_and_must_name_a_file() {
        let dir = std::env::temp_dir().join(format!("oxide-libdevice-{}", std::process::id()));
        let bc = dir.join("nvvm/libdevice/libdevice.10.bc");
        std::fs::create_dir_all(bc.parent().unwrap()).unwrap();
        std::fs::write(&bc, b"BC").unwrap();
        assert_eq!(find_in(Some(bc.clone()), || None).unwrap(), bc);
        let missing = dir.join("nope.bc");
        assert!(matches!(
            find_in(Some(missing), || Some(dir.join("bin/ptxas"))),
            Err(Error::LibdeviceMissing(_))
        ));
        // Without the variable: beside ptxas, as in a CUDA install or the pip wheels.
        assert_eq!(find_in(None, || Some(dir.join("bin/ptxas"))).unwrap(), bc);
        assert!(matches!(
            find_in(None, || Some(dir.join("nvvm/bin/ptxas"))),
            Err(Error::LibdeviceNotFound)
        ));
        assert!(matches!(
            find_in(None, || None),
            Err(Error::LibdeviceNotFound)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
