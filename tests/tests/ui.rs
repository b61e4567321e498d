//! Diagnostics of the backend. Each tests/ui/<name>.rs is a kernel crate root that uses something
//! the backend does not support; compiled with the backend, its stderr (paths normalised) must
//! equal tests/ui/<name>.stderr. `OXIDE_BLESS=1 cargo test -p oxide-tests --test ui` rewrites the
//! .stderr files from what the compiler prints now.

use std::path::{Path, PathBuf};

use cargo_oxide::build::{self, BuildOptions, CargoBuild};
use cargo_oxide::cargo;
use oxide_tests::{normalize, repo_root};

#[test]
fn ui() {
    let root = repo_root();
    let cases = cases(&root.join("tests").join("ui"));
    assert!(!cases.is_empty(), "no tests/ui/*.rs");

    // The device library compiled with the backend (what any kernel crate build does first).
    let device = build::cargo_build(&BuildOptions::new(root.join("device-std").join("oxide")))
        .unwrap_or_else(|e| panic!("building device-std with the backend: {e}"));
    let bless = std::env::var_os("OXIDE_BLESS").is_some_and(|v| v != "0" && !v.is_empty());
    let sysroot = cargo::output(
        cargo::rustc()
            .args(["--print", "sysroot"])
            .current_dir(&root),
    )
    .ok()
    .map(|s| PathBuf::from(s.trim()));

    let mut failures = Vec::new();
    for case in &cases {
        let stderr = compile(&root, &device, case);
        let actual = normalize(&stderr, &root, sysroot.as_deref());
        let expected_path = case.with_extension("stderr");
        if bless {
            std::fs::write(&expected_path, &actual).unwrap();
            eprintln!("blessed {}", expected_path.display());
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{}: stderr differs from {}\n--- expected\n{expected}\n--- actual\n{actual}",
                case.display(),
                expected_path.display()
            )),
            Err(_) => failures.push(format!(
                "{}: no {}; its stderr now is:\n{actual}",
                case.display(),
                expected_path.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the new output is right: OXIDE_BLESS=1 cargo test -p oxide-tests --test ui",
        failures.join("\n\n")
    );
}

/// tests/ui/*.rs, sorted.
fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    cases
}

/// Compiles one case with the backend, as cargo would compile a kernel crate's main.rs, and
/// returns rustc's stderr. A case must be rejected: compiling cleanly is a failure.
fn compile(root: &Path, device: &CargoBuild, case: &Path) -> String {
    let name = case.file_stem().unwrap().to_string_lossy().into_owned();
    let oxide = device
        .library("oxide")
        .and_then(|a| a.file_ending(".rlib"))
        .expect("cargo reported no liboxide-*.rlib");
    let macros = device
        .library("oxide_macros")
        .and_then(|a| a.file_ending(std::env::consts::DLL_SUFFIX))
        .expect("cargo reported no liboxide_macros-*.so");
    let out_dir = device.target_dir.join("ui");
    std::fs::create_dir_all(&out_dir).unwrap();

    let mut cmd = cargo::rustc();
    cmd.current_dir(root)
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "bin",
            "--color",
            "never",
        ])
        .args(["--crate-name", &name])
        .args(build::rustflags(&device.backend, "sm_90", false));
    // The device crates' dependencies, and the proc macro's (built for the host, without
    // --target, so in the other deps folder).
    let host_deps = macros.parent().unwrap_or(&device.deps_dir);
    for dir in [&*device.deps_dir, host_deps] {
        cmd.arg("-L").arg(format!("dependency={}", dir.display()));
    }
    cmd.arg("--extern")
        .arg(format!("oxide={}", oxide.display()))
        .arg("--extern")
        .arg(format!("oxide_macros={}", macros.display()))
        .arg("-o")
        .arg(out_dir.join(&name))
        .arg(case.strip_prefix(root).unwrap_or(case))
        // What cargo tells `#[kernel]` (it names the PTX symbol after the crate).
        .env("CARGO_CRATE_NAME", &name)
        .env("CARGO_PKG_NAME", &name)
        // Deterministic output: no ICE files in the repo, no backtraces.
        .env("RUSTC_ICE", "0")
        .env("RUST_BACKTRACE", "0");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", cargo::describe(&cmd)));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{} compiled without error; a ui case must use something the backend rejects.\n{stderr}",
        case.display()
    );
    stderr
}
