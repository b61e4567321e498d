//! Finding and running NVIDIA's PTX assembler: the one finder of the repository, used by
//! cargo-oxide (`build`, `doctor`), tests/, the fuzzer and llvm-emit's tests (ci/setup.sh mirrors
//! it in bash; keep the two alike).
//!
//! Lookup order: `$OXIDE_PTXAS` (when set, it must name an executable: nothing else is tried),
//! then `ptxas` on PATH, then the pip wheel nvidia-cuda-nvcc
//! (`<python3's nvidia package>/cu13/bin/ptxas`, what ci/setup.sh installs).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Result, output};

/// Where a ptxas was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Env,
    Path,
    PipWheel,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Env => "$OXIDE_PTXAS",
            Source::Path => "PATH",
            Source::PipWheel => "pip wheel nvidia-cuda-nvcc",
        })
    }
}

/// A ptxas executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptxas {
    pub path: PathBuf,
    pub source: Source,
}

/// The environment variable that names the ptxas to use.
pub const ENV: &str = "OXIDE_PTXAS";

/// Finds ptxas, or says how to install it.
pub fn find() -> Result<Ptxas> {
    find_in(
        std::env::var_os(ENV).map(PathBuf::from),
        std::env::var_os("PATH"),
        pip_wheel_ptxas,
    )
}

/// The lookup of `find`, given `$OXIDE_PTXAS`, `$PATH` and the pip wheel probe.
fn find_in(
    env: Option<PathBuf>,
    path_var: Option<OsString>,
    pip_wheel: impl FnOnce() -> Option<PathBuf>,
) -> Result<Ptxas> {
    let found = |path, source| Ok(Ptxas { path, source });
    if let Some(path) = env {
        // A ptxas named explicitly and missing is a mistake to report, not to paper over.
        return if is_executable(&path) {
            found(path, Source::Env)
        } else {
            Err(Error::PtxasNotExecutable(path))
        };
    }
    if let Some(path) = path_var.and_then(|dirs| find_in_dirs(&dirs, "ptxas")) {
        return found(path, Source::Path);
    }
    if let Some(path) = pip_wheel() {
        return found(path, Source::PipWheel);
    }
    Err(Error::PtxasNotFound)
}

/// The first executable `name` in the folders of `dirs`, a `$PATH`-style list.
fn find_in_dirs(dirs: &OsStr, name: &str) -> Option<PathBuf> {
    std::env::split_paths(dirs)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// `<nvidia package>/cu13/bin/ptxas` of python3's nvidia-cuda-nvcc wheel, if installed.
fn pip_wheel_ptxas() -> Option<PathBuf> {
    let out = output(
        Command::new("python3").args(["-c", "import nvidia, os; print(nvidia.__path__[0])"]),
    )
    .ok()?;
    let candidate = Path::new(out.trim()).join("cu13").join("bin").join("ptxas");
    is_executable(&candidate).then_some(candidate)
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

impl Ptxas {
    /// The release line of `ptxas --version`, e.g. `Cuda compilation tools, release 13.0, V13.0.88`.
    pub fn version(&self) -> Result<String> {
        let out = output(Command::new(&self.path).arg("--version"))?;
        out.lines()
            .find(|l| l.contains("release"))
            .or_else(|| out.lines().last())
            .map(|l| l.trim().to_owned())
            .ok_or_else(|| Error::UnexpectedOutput(format!("{} --version", self.path.display())))
    }

    /// Assembles `ptx` for `arch` (`sm_90`) and throws the cubin away: the PTX is valid when this
    /// succeeds.
    pub fn check(&self, ptx: &Path, arch: &str) -> Result<()> {
        let mut cmd = Command::new(&self.path);
        cmd.arg(format!("-arch={arch}"))
            .args(["-o", "/dev/null"])
            .arg(ptx);
        output(&mut cmd).map(drop).map_err(|e| match e {
            Error::CommandFailed { stderr, .. } => Error::PtxasRejected {
                ptx: ptx.to_path_buf(),
                stderr,
            },
            other => other,
        })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A folder holding an executable `ptxas` and a non-executable `notes`.
    fn fixture(name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("oxide-ptxas-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("ptxas");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.join("notes"), "").unwrap();
        dir
    }

    #[test]
    fn lookup_order_is_env_then_path_then_pip_wheel() {
        let dir = fixture("order");
        let exe = dir.join("ptxas");
        let wheel = || Some(PathBuf::from("/wheel/ptxas"));
        let on_path = Some(dir.clone().into_os_string());

        let env = find_in(Some(exe.clone()), on_path.clone(), wheel).unwrap();
        assert_eq!((env.path, env.source), (exe.clone(), Source::Env));
        let path = find_in(None, on_path, || panic!("PATH had one")).unwrap();
        assert_eq!((path.path, path.source), (exe, Source::Path));
        let pip = find_in(None, Some("/nonexistent".into()), wheel).unwrap();
        assert_eq!(pip.source, Source::PipWheel);
        let none = find_in(None, None, || None).unwrap_err();
        assert!(matches!(none, Error::PtxasNotFound), "{none}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_bad_oxide_ptxas_is_an_error_not_a_fallback() {
        let dir = fixture("bad");
        let on_path = Some(dir.clone().into_os_string());
        let err = find_in(Some(dir.join("notes")), on_path, || None).unwrap_err();
        assert!(matches!(err, Error::PtxasNotExecutable(_)), "{err}");
        assert!(err.to_string().starts_with("OXIDE_PTXAS="), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
