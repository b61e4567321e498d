//! `cargo oxide run`: build, then run the host binary when this machine has an NVIDIA driver.

use std::ffi::OsString;
use std::process::{Command, ExitStatus};

use crate::build::{self, BuildOptions};
use crate::driver;
use crate::error::{Error, Result};

/// Builds the crate and runs its binary with `args`; returns the binary's exit code, or 0 when
/// there is no driver to run it on.
pub fn run(opts: &BuildOptions, args: &[OsString]) -> Result<i32> {
    let out = build::build(opts)?;
    let binary = out.binary.ok_or_else(|| Error::NoBinary {
        krate: opts.crate_dir.display().to_string(),
    })?;
    if !driver::libcuda_loadable() {
        println!(
            "no NVIDIA driver on this machine: built {} and {}; not run",
            binary.display(),
            out.ptx.display()
        );
        return Ok(0);
    }
    tracing::info!("running {} {args:?}", binary.display());
    let status = Command::new(&binary)
        .args(args)
        .status()
        .map_err(|source| Error::Spawn {
            program: binary.display().to_string(),
            source,
        })?;
    Ok(exit_code(status))
}

/// The exit code to forward: the child's, or 128 + the signal that killed it (as shells do).
pub fn exit_code(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::exit_code;
    use std::process::Command;

    #[test]
    fn forwards_codes_and_signals() {
        let sh = |script: &str| Command::new("sh").args(["-c", script]).status().unwrap();
        assert_eq!(exit_code(sh("exit 0")), 0);
        assert_eq!(exit_code(sh("exit 3")), 3);
        assert_eq!(exit_code(sh("kill -9 $$")), 137);
    }
}
