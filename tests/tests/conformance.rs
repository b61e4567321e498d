//! The conformance corpus (tests/conformance) through the backend: every case compiles to PTX
//! that ptxas accepts, and every case's kernel on the CPU emulator matches its body run as plain
//! Rust. (The GPU run, GPU against emulator, is in the GPU suite.)

use cargo_oxide::build::{self, BuildOptions};
use oxide_tests::{ptxas_or_fail, repo_root};

#[test]
fn corpus_compiles_assembles_and_emulates() {
    let ptxas = ptxas_or_fail();
    let out = build::build(&BuildOptions::new(repo_root().join("tests/conformance")))
        .expect("cargo oxide build tests/conformance");
    ptxas
        .check(&out.ptx, "sm_90")
        .expect("ptxas accepts the corpus");

    let binary = out.binary.expect("the corpus is a binary");
    let run = std::process::Command::new(&binary)
        .arg("--cpu")
        .output()
        .expect("run the corpus");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    let failures: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        run.status.success() && failures.is_empty(),
        "{summary}\n{}",
        failures.join("\n")
    );
    let passed: usize = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        passed >= 80,
        "the corpus has {passed} cases; the issue asks for at least 80"
    );
    eprintln!("conformance --cpu: {summary}");
}
