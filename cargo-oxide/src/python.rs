//! `cargo oxide python <crate>`: builds a kernel crate whose library is a Python extension
//! module (`crate-type = ["cdylib", ...]`, `oxide::python_module!`) with the backend, and
//! writes an abi3 wheel of it (one wheel for every CPython from 3.9): `<name>.abi3.so` and its
//! `.dist-info` (docs/python.md).

use std::path::PathBuf;

use crate::build::{self, BuildOptions};
use crate::error::{Error, Result};
use crate::wheel::{self, Entry};

/// Builds the crate and writes its wheel to `<workspace>/target/oxide/wheels/`; returns the
/// wheel's path.
pub fn python(opts: &BuildOptions) -> Result<PathBuf> {
    // The module must not link libpython: the interpreter that imports it provides it.
    let built = build::cargo_build_with(opts, &[("PYO3_BUILD_EXTENSION_MODULE", "1")])?;
    let krate = opts.crate_dir.display().to_string();
    let module = built
        .artifacts
        .iter()
        .filter(|a| a.manifest_path == built.manifest && a.has_kind("cdylib"))
        .find_map(|a| Some((a, a.file_ending(".so")?)))
        .ok_or_else(|| Error::NotAPythonModule {
            krate: krate.clone(),
        })?;
    let (artifact, library) = module;
    let name = artifact.crate_name();
    // `path+file:///r/kernels/pyops#0.1.0` or `...#pyops@0.1.0`.
    let version = artifact
        .package_id
        .rsplit(['#', '@'])
        .next()
        .unwrap_or("0.0.0")
        .to_owned();
    let tag = wheel::tag(&built.triple).ok_or_else(|| Error::NoWheelTag {
        triple: built.triple.clone(),
    })?;
    let data = std::fs::read(library).map_err(Error::io(library))?;
    let files = vec![Entry {
        path: format!("{name}.abi3.so"),
        data,
    }];
    let archive = wheel::zip(&wheel::with_dist_info(&name, &version, &tag, files));
    let dir = built.target_dir.join("wheels");
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    let path = dir.join(format!("{name}-{version}-{tag}.whl"));
    std::fs::write(&path, archive).map_err(Error::io(&path))?;
    Ok(path)
}
