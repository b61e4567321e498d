//! oxide-fuzz: a generator of random well-typed GPU kernels in ordinary Rust, and the campaign
//! that builds them in batches through the oxide backend and ptxas and compares each kernel on the
//! CPU emulator (and on the GPU) with its body run as plain Rust. docs/fuzzing.md describes the
//! generator's coverage, the commands and the findings.

pub mod batch;
pub mod campaign;
pub mod cut;
mod expr;
pub mod generator;
pub mod rng;
pub mod ty;

use std::path::{Path, PathBuf};

use cargo_oxide::backend;
use oxide_contract::GpuArch;

pub use batch::Workspace;
pub use campaign::{Campaign, Kind, Options, Summary};
pub use generator::{Program, generate};

/// The oxide repository (the folder two above this package).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// A workspace in `dir` using the backend built from `repo` now (snapshotted, so a backend
/// rebuilt during the campaign does not change it), or `backend` when given.
pub fn workspace(
    repo: &Path,
    dir: &Path,
    arch: GpuArch,
    backend: Option<PathBuf>,
) -> cargo_oxide::Result<Workspace> {
    std::fs::create_dir_all(dir).map_err(cargo_oxide::Error::io(dir))?;
    let dir = dir.canonicalize().map_err(cargo_oxide::Error::io(dir))?;
    let so = match backend {
        Some(so) => so,
        None => backend::ensure_backend(repo)?,
    };
    let backend = backend::snapshot(&so, &dir.join("target"))?;
    let triple = cargo_oxide::cargo::host_triple(repo)?;
    Ok(Workspace {
        dir,
        repo: repo.to_path_buf(),
        backend,
        triple,
        arch,
    })
}
