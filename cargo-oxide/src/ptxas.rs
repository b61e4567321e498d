//! Finding and running NVIDIA's PTX assembler, shared by `doctor` and the tests.
//!
//! Lookup order: `$OXIDE_PTXAS`, then `ptxas` on PATH, then the pip wheel nvidia-cuda-nvcc
//! (`<python3's nvidia package>/cu13/bin/ptxas`, what ci/setup.sh installs).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;
use crate::error::{Error, Result};

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

/// Finds ptxas, or says how to install it.
pub fn find() -> Result<Ptxas> {
    if let Some(path) = std::env::var_os("OXIDE_PTXAS") {
        let path = PathBuf::from(path);
        if is_executable(&path) {
            return Ok(Ptxas {
                path,
                source: Source::Env,
            });
        }
        tracing::warn!("OXIDE_PTXAS={} is not an executable file", path.display());
        return Err(Error::PtxasNotFound);
    }
    if let Some(path) = find_on_path("ptxas") {
        return Ok(Ptxas {
            path,
            source: Source::Path,
        });
    }
    if let Some(path) = pip_wheel_ptxas() {
        return Ok(Ptxas {
            path,
            source: Source::PipWheel,
        });
    }
    Err(Error::PtxasNotFound)
}

/// The first executable `name` in the folders of `$PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// `<nvidia package>/cu13/bin/ptxas` of python3's nvidia-cuda-nvcc wheel, if installed.
fn pip_wheel_ptxas() -> Option<PathBuf> {
    let out = cargo::output(
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
        let out = cargo::output(Command::new(&self.path).arg("--version"))?;
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
        cargo::output(&mut cmd).map(drop).map_err(|e| match e {
            Error::CommandFailed { stderr, .. } => Error::PtxasRejected {
                ptx: ptx.to_path_buf(),
                stderr,
            },
            other => other,
        })
    }
}
