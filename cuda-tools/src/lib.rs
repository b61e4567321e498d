//! oxide-cuda-tools: where NVIDIA's tools are on this machine. The one ptxas finder and the one
//! libdevice finder of the repository, used by cargo-oxide (`build`, `doctor`), the end-to-end
//! tests (tests/), llvm-emit's tests and the fuzzer. A crate of its own so that a compiler crate
//! and the tests need not depend on the CLI to find ptxas.
//!
//! ci/setup.sh repeats the ptxas lookup in bash (it installs ptxas when this would not find
//! one): a change to the order in [`ptxas`] goes there too.

use std::io;
use std::path::PathBuf;
use std::process::Command;

pub mod libdevice;
pub mod ptxas;

pub use ptxas::Ptxas;

/// What finding or running a tool can fail with. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "ptxas not found: set OXIDE_PTXAS, put ptxas on PATH, or run ci/setup.sh (it pip-installs nvidia-cuda-nvcc)"
    )]
    PtxasNotFound,

    #[error("OXIDE_PTXAS={} is not an executable file", .0.display())]
    PtxasNotExecutable(PathBuf),

    #[error(
        "libdevice not found: set OXIDE_LIBDEVICE to libdevice.10.bc, or run ci/setup.sh (it pip-installs nvidia-nvvm beside ptxas)"
    )]
    LibdeviceNotFound,

    #[error("OXIDE_LIBDEVICE={} is not a file", .0.display())]
    LibdeviceMissing(PathBuf),

    #[error("ptxas rejected {ptx}:\n{stderr}")]
    PtxasRejected { ptx: PathBuf, stderr: String },

    #[error("could not run `{program}`: {source} (is it installed and on PATH?)")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },

    #[error("`{command}` failed ({status}): {stderr}")]
    CommandFailed {
        command: String,
        status: std::process::ExitStatus,
        stderr: String,
    },

    #[error("`{0}` printed nothing this tool understands")]
    UnexpectedOutput(String),
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Runs `cmd` to completion and returns its stdout; a non-zero exit is an error carrying stderr.
/// cargo-oxide runs its commands through this too, so that one rule says what a failed tool is.
pub fn output(cmd: &mut Command) -> Result<String> {
    let program = describe(cmd);
    let out = cmd.output().map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    if !out.status.success() {
        return Err(Error::CommandFailed {
            command: program,
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `program arg arg...`, for messages.
pub fn describe(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|s| s.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
