//! The pinned toolchain: the backend links against one nightly's rustc and LLVM, so every cargo
//! and rustc that cargo-oxide runs is that nightly, whatever the folder it runs in pins (a user's
//! project may be on stable). Installed once per machine when missing, as ci/setup.sh does.

use std::process::Command;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The rust-toolchain.toml this cargo-oxide was built with.
const PIN_FILE: &str = include_str!("../../rust-toolchain.toml");

/// The components the backend and the kernel builds need.
pub const COMPONENTS: &[&str] = &["rustc-dev", "rust-src", "llvm-tools"];

/// The channel of [`PIN_FILE`] (`nightly-2026-05-20`).
pub fn pinned() -> &'static str {
    static CHANNEL: OnceLock<String> = OnceLock::new();
    CHANNEL.get_or_init(|| channel_of(PIN_FILE).unwrap_or_default())
}

/// `channel = "..."` of a rust-toolchain.toml's text.
pub fn channel_of(toml: &str) -> Option<String> {
    toml.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// Whether rustup is on PATH: then the pinned toolchain is selected with `rustup run`; without
/// it, the cargo and rustc found are used as they are (doctor says whether they match).
pub fn has_rustup() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        Command::new("rustup")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `program` (`cargo`, `rustc`) of the pinned toolchain: `rustup run <pin> <program>`, which
/// wins over a rust-toolchain.toml in the folder it runs in.
pub fn command(program: &str) -> Option<Command> {
    if !has_rustup() {
        return None;
    }
    let mut cmd = Command::new("rustup");
    cmd.args(["run", pinned(), program]);
    Some(cmd)
}

/// Installs the pinned toolchain and its components when rustup lacks them (once per machine;
/// `RUSTUP_AUTO_INSTALL=0` machines install nothing implicitly, so this is explicit). Says on
/// stderr what it installs and why; a machine without rustup is left to doctor.
pub fn ensure_installed() -> Result<()> {
    static DONE: OnceLock<()> = OnceLock::new();
    if DONE.get().is_some() || !has_rustup() {
        return Ok(());
    }
    let pin = pinned();
    let installed = Command::new("rustup")
        .args(["component", "list", "--installed", "--toolchain", pin])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let missing = missing_components(&installed);
    if !missing.is_empty() {
        eprintln!(
            "cargo oxide: installing the toolchain oxide is built for, {pin} (missing: {}); this \
             happens once per machine",
            missing.join(", ")
        );
        let mut cmd = Command::new("rustup");
        cmd.args(["toolchain", "install", pin, "--profile", "minimal", "-c"])
            .arg(COMPONENTS.join(","));
        let status = cmd
            .status()
            .map_err(|source| oxide_cuda_tools::Error::Spawn {
                program: oxide_cuda_tools::describe(&cmd),
                source,
            })?;
        if !status.success() {
            return Err(Error::ToolchainInstall {
                toolchain: pin.to_owned(),
            });
        }
    }
    let _ = DONE.set(());
    Ok(())
}

/// The [`COMPONENTS`] (with `rustc` itself) absent from `rustup component list --installed`'s
/// output (`rustc-dev-x86_64-unknown-linux-gnu`, `rust-src`, `llvm-tools-x86_64-...`).
fn missing_components(installed: &str) -> Vec<&'static str> {
    let has = |c: &str| {
        installed.lines().any(|line| {
            let line = line.trim();
            line == c
                || line.strip_prefix(c).is_some_and(|rest| {
                    rest.starts_with('-')
                        && !rest[1..].starts_with("dev")
                        && !rest[1..].starts_with("preview-dev")
                })
        })
    };
    let mut missing: Vec<&'static str> = ["rustc"]
        .into_iter()
        .chain(COMPONENTS.iter().copied())
        .filter(|c| !has(c))
        .collect();
    if missing.first() == Some(&"rustc") && missing.len() == COMPONENTS.len() + 1 {
        // Nothing at all: the toolchain itself is missing.
        missing = vec!["the toolchain"];
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_this_repositorys() {
        assert!(pinned().starts_with("nightly-"), "{}", pinned());
        assert_eq!(
            channel_of("[toolchain]\nchannel = \"nightly-2026-05-20\"\n").as_deref(),
            Some("nightly-2026-05-20")
        );
    }

    #[test]
    fn components_are_read_from_rustups_list() {
        let all = "cargo-x86_64-unknown-linux-gnu\nllvm-tools-x86_64-unknown-linux-gnu\n\
                   rust-src\nrust-std-x86_64-unknown-linux-gnu\nrustc-x86_64-unknown-linux-gnu\n\
                   rustc-dev-x86_64-unknown-linux-gnu\n";
        assert!(missing_components(all).is_empty());
        let no_dev = all.replace("rustc-dev-x86_64-unknown-linux-gnu\n", "");
        assert_eq!(missing_components(&no_dev), ["rustc-dev"]);
        let preview = all.replace("llvm-tools-", "llvm-tools-preview-");
        assert!(
            missing_components(&preview).is_empty(),
            "llvm-tools-preview"
        );
        assert_eq!(missing_components(""), ["the toolchain"]);
    }
}
