//! Finding the oxide repository and building the codegen backend (liboxide_codegen.so) on demand.

use std::path::{Path, PathBuf};

use crate::cargo;
use crate::error::{Error, Result};

/// The backend's package, as named in codegen-backend/Cargo.toml.
pub const BACKEND_PACKAGE: &str = "oxide-codegen";
/// The backend's library target name (its .so is `lib<this>.so`).
pub const BACKEND_LIB: &str = "oxide_codegen";
/// The folders whose sources the backend is built from (itself and its path dependencies).
pub const BACKEND_SOURCES: &[&str] = &["codegen-backend", "pliron-dialects", "llvm-emit"];

/// Whether `dir` is the root of the oxide repository.
pub fn is_oxide_root(dir: &Path) -> bool {
    dir.join("codegen-backend").join("Cargo.toml").is_file()
}

/// The oxide repository holding the backend: `$OXIDE_ROOT` if set, else `workspace` (the kernel
/// crate's workspace) when it is the oxide repository, else the repository cargo-oxide was built
/// from.
pub fn oxide_root(workspace: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("OXIDE_ROOT") {
        let dir = PathBuf::from(dir);
        return if is_oxide_root(&dir) {
            Ok(dir)
        } else {
            Err(Error::NoOxideRoot)
        };
    }
    if let Some(ws) = workspace.filter(|ws| is_oxide_root(ws)) {
        return Ok(ws.to_path_buf());
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if is_oxide_root(&built_from) {
        return built_from
            .canonicalize()
            .map_err(Error::io(built_from.clone()));
    }
    Err(Error::NoOxideRoot)
}

/// Where `cargo build -p oxide-codegen` leaves the backend in the default target dir.
pub fn default_backend_path(root: &Path) -> PathBuf {
    root.join("target").join("debug").join(format!(
        "{}{BACKEND_LIB}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ))
}

/// Builds (or finds up to date) the backend with `cargo build -p oxide-codegen` in `root`, with
/// the default target dir `target/`. Cargo's fingerprints include the rustc version, so a new
/// toolchain rebuilds it. Returns the path of the .so as cargo reports it.
pub fn ensure_backend(root: &Path) -> Result<PathBuf> {
    tracing::info!("building {BACKEND_PACKAGE} in {}", root.display());
    let run = cargo::run_json(
        cargo::cargo()
            .args(["build", "-p", BACKEND_PACKAGE])
            .arg("--message-format=json-render-diagnostics")
            .current_dir(root)
            // The contract puts the backend in `target/`; a target dir set for the kernels must
            // not move it.
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR"),
    )?;
    if !run.success {
        return Err(Error::BackendBuild);
    }
    let so_name = format!(
        "{}{BACKEND_LIB}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let path = run
        .artifacts
        .iter()
        .filter(|a| a.target_name == BACKEND_LIB && (a.has_kind("cdylib") || a.has_kind("dylib")))
        .flat_map(|a| a.filenames.iter())
        .find(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy() == so_name)
        })
        .cloned()
        .ok_or(Error::BackendArtifactMissing)?;
    tracing::info!("backend: {}", path.display());
    Ok(path)
}
