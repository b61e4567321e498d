//! `cargo oxide run`: build, then run the host binary. It runs whether or not this machine has
//! an NVIDIA driver: the program picks the GPU or, without one, whatever it does instead (a
//! program of `cargo oxide new` runs its kernels on the CPU emulator and checks them there).
//! What is said before it runs is only what cargo-oxide knows: whether there is a driver.

use std::ffi::OsString;
use std::process::{Command, ExitStatus};

use crate::build::{self, BuildOptions};
use crate::error::Result;
use crate::{cargo, driver};

/// Builds the crate and runs its binary `bin` (or its only one, or its `default-run`) with
/// `args`; returns the binary's exit code.
pub fn run(opts: &BuildOptions, bin: Option<&str>, args: &[OsString]) -> Result<i32> {
    let out = build::build(opts)?;
    let binary = out.binary(&opts.crate_dir, bin, || {
        cargo::default_run(&build::manifest_of(&opts.crate_dir)?)
    })?;
    eprintln!("{}", running_note(&binary.path, driver::libcuda_loadable()));
    tracing::info!("running {} {args:?}", binary.path.display());
    let status = Command::new(&binary.path)
        .args(args)
        .status()
        .map_err(|source| oxide_cuda_tools::Error::Spawn {
            program: binary.path.display().to_string(),
            source,
        })?;
    Ok(exit_code(status))
}

/// The line said before running `binary` (on stderr, as cargo's `Running`, so that the
/// program's own output is all of stdout).
pub fn running_note(binary: &std::path::Path, driver: bool) -> String {
    if driver {
        format!("running {}", binary.display())
    } else {
        format!(
            "running {}: no NVIDIA driver on this machine, so it cannot use a GPU (a program \
             of `cargo oxide new` runs its kernels on the CPU emulator instead, and says so)",
            binary.display()
        )
    }
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
    fn the_note_says_what_is_known() {
        let bin = std::path::Path::new("/t/hello");
        assert_eq!(super::running_note(bin, true), "running /t/hello");
        let without = super::running_note(bin, false);
        assert!(
            without.starts_with("running /t/hello: no NVIDIA driver"),
            "{without}"
        );
        assert!(without.contains("CPU emulator"), "{without}");
    }

    #[test]
    fn forwards_codes_and_signals() {
        let sh = |script: &str| Command::new("sh").args(["-c", script]).status().unwrap();
        assert_eq!(exit_code(sh("exit 0")), 0);
        assert_eq!(exit_code(sh("exit 3")), 3);
        assert_eq!(exit_code(sh("kill -9 $$")), 137);
    }
}
