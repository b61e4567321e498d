//! The cargo-oxide binary as a user runs it: both invocation forms, one-line errors, doctor.

use std::process::{Command, Output};

fn cargo_oxide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-oxide"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo-oxide runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_in_both_forms() {
    for args in [&["--help"][..], &["oxide", "--help"]] {
        let out = cargo_oxide(args);
        assert!(out.status.success(), "{args:?}");
        let help = text(&out.stdout);
        for cmd in [
            "build",
            "run",
            "inspect",
            "pipeline",
            "doctor",
            "new",
            "check-port",
        ] {
            assert!(help.contains(cmd), "{args:?} help lacks {cmd}:\n{help}");
        }
    }
}

#[test]
fn a_bad_crate_path_fails_with_one_line() {
    let out = cargo_oxide(&["oxide", "build", "/nonexistent/kernel"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: no Cargo.toml in /nonexistent/kernel"),
        "{stderr}"
    );
}

#[test]
fn a_bad_arch_is_a_usage_error() {
    for (args, why) in [
        (
            &["run", "--arch", "ampere"][..],
            "`ampere` is not a GPU architecture name",
        ),
        (
            &["oxide", "build", "--arch", "sm_1000"],
            "GPU architecture `sm_1000` is not supported",
        ),
        (
            &["build", "--arch", "sm_20"],
            "GPU architecture `sm_20` is not supported",
        ),
    ] {
        let out = cargo_oxide(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
        assert!(
            stderr.contains("the supported architectures are sm_75, sm_80,"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn doctor_reports_every_check() {
    let out = cargo_oxide(&["doctor"]);
    let stdout = text(&out.stdout);
    for what in [
        "toolchain:",
        "rustc-dev:",
        "rust-src:",
        "llvm-tools:",
        "rustc's libLLVM:",
        "backend:",
        "ptxas:",
        "NVIDIA GPU:",
    ] {
        assert!(stdout.contains(what), "doctor lacks {what}:\n{stdout}");
    }
    // It fails exactly when a required check is MISSING.
    assert_eq!(
        out.status.success(),
        !stdout.lines().any(|l| l.starts_with("MISSING")),
        "{stdout}\n{}",
        text(&out.stderr)
    );
}
