//! Finding the oxide repository and building the codegen backend (liboxide_codegen.so) on demand.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};
use crate::{cargo, toolchain};

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
    check_pin(root)?;
    toolchain::ensure_installed()?;
    // Cargo decides what to rebuild; this only says, before a wait of minutes, what is coming.
    let stale = staleness(root);
    if let Some(why) = &stale {
        eprintln!(
            "cargo oxide: building the oxide backend in {} ({why}); the first build for a \
             toolchain takes a few minutes, later builds of any project reuse it",
            root.join("target").display()
        );
    }
    let started = Instant::now();
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
    if stale.is_some() {
        eprintln!(
            "cargo oxide: backend ready after {} s: {}",
            started.elapsed().as_secs(),
            path.display()
        );
    }
    tracing::info!("backend: {}", path.display());
    Ok(path)
}

/// Refuses a root whose rust-toolchain.toml pins another toolchain than this cargo-oxide runs
/// cargo with: the backend would build for one rustc and be loaded by another.
fn check_pin(root: &Path) -> Result<()> {
    let file = root.join("rust-toolchain.toml");
    let pinned = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| toolchain::channel_of(&t));
    match pinned {
        Some(pinned) if pinned != toolchain::pinned() => Err(Error::ToolchainMismatch {
            built: toolchain::pinned().to_owned(),
            pinned,
            root: root.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Why the backend at [`default_backend_path`] needs building (it is missing, or older than a
/// file it is built from), or `None` when it looks up to date.
pub fn staleness(root: &Path) -> Option<String> {
    let so = default_backend_path(root);
    let Some(built) = so.metadata().ok().and_then(|m| m.modified().ok()) else {
        return Some("not built yet".into());
    };
    let mut inputs: Vec<PathBuf> = BACKEND_SOURCES
        .iter()
        .flat_map(|c| [root.join(c).join("src"), root.join(c).join("Cargo.toml")])
        .collect();
    inputs.extend(["Cargo.lock", "rust-toolchain.toml"].map(|f| root.join(f)));
    match inputs.iter().filter_map(|p| newest(p)).max() {
        Some((time, file)) if time > built => Some(format!("older than {}", file.display())),
        _ => None,
    }
}

/// The newest modification time of the files under `path`.
fn newest(path: &Path) -> Option<(SystemTime, PathBuf)> {
    let meta = path.symlink_metadata().ok()?;
    if meta.is_file() {
        return Some((meta.modified().ok()?, path.to_path_buf()));
    }
    if !meta.is_dir() {
        return None;
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| newest(&e.path()))
        .max()
}

/// How many backend snapshots to keep in `<kernel target dir>/backend/`.
const SNAPSHOTS_KEPT: usize = 4;

/// A snapshot (hard link or copy) of the backend at `so` in `<target_dir>/backend/<mtime>-<size>/`, made once per build
/// of the backend, to pass to `-Zcodegen-backend`.
///
/// Cargo fingerprints the rustc version and flags but not the codegen backend's file, so with a
/// fixed path a rebuilt backend would leave every kernel crate "fresh" with its old PTX. A path
/// that changes with each backend build changes the flags, so cargo rebuilds what the new backend
/// compiles; and a rustc that runs from the copy is not disturbed by the next backend build.
pub fn snapshot(so: &Path, target_dir: &Path) -> Result<PathBuf> {
    let meta = so.metadata().map_err(Error::io(so))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let root = target_dir.join("backend");
    let dir = root.join(format!("{mtime:x}-{:x}", meta.len()));
    let dest = dir.join(so.file_name().unwrap_or_default());
    if !dest.is_file() {
        std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        // A hard link costs nothing and stays valid: the linker and cargo replace the built .so
        // with a new file rather than rewriting it. Else copy, then rename, so that a concurrent
        // cargo-oxide never loads a half-written file.
        let partial = dir.join(format!(".partial-{}", std::process::id()));
        let _ = std::fs::remove_file(&partial);
        if std::fs::hard_link(so, &partial).is_err() {
            std::fs::copy(so, &partial).map_err(Error::io(&partial))?;
        }
        std::fs::rename(&partial, &dest).map_err(Error::io(&dest))?;
        prune(&root, &dir);
    }
    Ok(dest)
}

/// Removes all but the newest snapshots (never `keep`); failures only cost disk space.
fn prune(root: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(_, p)| p != keep)
        .collect();
    dirs.sort();
    let excess = dirs.len().saturating_sub(SNAPSHOTS_KEPT - 1);
    for (_, old) in dirs.into_iter().take(excess) {
        let _ = std::fs::remove_dir_all(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_follow_the_backend_and_are_pruned() {
        let tmp = std::env::temp_dir().join(format!("cargo-oxide-snapshot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        let so = tmp.join("liboxide_codegen.so");
        let target = tmp.join("target");

        std::fs::write(&so, "v1").unwrap();
        let first = snapshot(&so, &target).unwrap();
        assert_eq!(
            snapshot(&so, &target).unwrap(),
            first,
            "unchanged backend, same path"
        );
        assert!(first.ends_with("liboxide_codegen.so"));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "v1");

        let mut paths = vec![first];
        for v in 2..=6 {
            // As the linker does: a new file, not the old one rewritten.
            std::fs::remove_file(&so).unwrap();
            std::fs::write(&so, "v".repeat(v)).unwrap();
            let next = snapshot(&so, &target).unwrap();
            assert!(!paths.contains(&next), "a rebuilt backend gets a new path");
            assert_eq!(std::fs::read_to_string(&next).unwrap(), "v".repeat(v));
            paths.push(next);
        }
        let kept = std::fs::read_dir(target.join("backend")).unwrap().count();
        assert_eq!(kept, SNAPSHOTS_KEPT);
        assert_eq!(std::fs::read_to_string(&paths[4]).unwrap(), "vvvvv");
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
