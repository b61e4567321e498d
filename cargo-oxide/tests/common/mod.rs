//! What cargo-oxide's integration tests that run commands share.

use std::process::{Command, Output};

/// A command's output as text (lossy: it is for messages).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `cmd`, failing the test with its output unless it succeeds.
#[allow(dead_code)] // Not every test file runs commands this way.
pub fn succeed(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} did not run: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}
