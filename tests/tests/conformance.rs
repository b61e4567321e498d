//! The conformance corpus (tests/conformance) through the backend: every case compiles to PTX
//! that ptxas accepts, the corpus holds exactly the cases of tests/conformance/cases.txt, and
//! every one of them ran on the CPU emulator and matched its body run as plain Rust. (The GPU run,
//! GPU against emulator, is in the GPU suite.) `OXIDE_BLESS=1` rewrites cases.txt from the
//! corpus's `--list`; review the diff: a case that disappears from it is a lost test.

use std::collections::BTreeSet;
use std::process::Command;

use cargo_oxide::build::{self, BuildOptions};
use oxide_contract::DEFAULT_ARCH;
use oxide_tests::{bless, ptxas_or_fail, repo_root};

#[test]
fn corpus_compiles_assembles_and_emulates() {
    let ptxas = ptxas_or_fail();
    let corpus = repo_root().join("tests/conformance");
    let out =
        build::build(&BuildOptions::new(&corpus)).expect("cargo oxide build tests/conformance");
    ptxas
        .check(&out.ptx, DEFAULT_ARCH.name())
        .expect("ptxas accepts the corpus");
    let binary = out
        .binary(&corpus, None, || Ok(None))
        .expect("the corpus is one binary")
        .path
        .clone();
    let run = |arg: &str| {
        let out = Command::new(&binary)
            .arg(arg)
            .output()
            .unwrap_or_else(|e| panic!("running {} {arg}: {e}", binary.display()));
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };

    let (listed_ok, listed) = run("--list");
    assert!(listed_ok, "conformance --list failed:\n{listed}");
    if let Err(e) = bless::check_file(&corpus.join("cases.txt"), &listed) {
        panic!("the corpus's cases are not the committed list: {e}");
    }
    let cases: Vec<&str> = listed.lines().collect();
    let unique: BTreeSet<&str> = cases.iter().copied().collect();
    assert_eq!(
        unique.len(),
        cases.len(),
        "two cases share a name:\n{listed}"
    );

    let (success, stdout) = run("--cpu");
    let summary = stdout.lines().last().unwrap_or_default();
    let failures: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        success && failures.is_empty(),
        "{summary}\n{}",
        failures.join("\n")
    );
    // Every listed case, and nothing else, reported `ok`: a case that silently did not run
    // fails here.
    let passed: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("ok "))
        // `ok   name: largest difference 1 ulp (bound 2)` for cases with an ulp bound.
        .map(|l| l.split(':').next().unwrap_or(l).trim())
        .collect();
    let not_run: Vec<&&str> = unique.difference(&passed).collect();
    let unlisted: Vec<&&str> = passed.difference(&unique).collect();
    assert!(
        not_run.is_empty() && unlisted.is_empty(),
        "listed but not passed: {not_run:?}; passed but not listed: {unlisted:?}\n{summary}"
    );
    assert_eq!(
        summary,
        format!("{} passed, 0 failed", cases.len()),
        "the summary disagrees with the list"
    );
    eprintln!("conformance --cpu: {summary}");
}
