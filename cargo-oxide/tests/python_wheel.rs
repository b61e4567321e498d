//! `cargo oxide python kernels/pyops`: the wheel builds, installs into a fresh venv (no network:
//! `pip install --no-index`), imports without importing torch, states each kernel's torch op
//! schema, and refuses every bad call before the GPU (tests/python/refusals.py, with fake
//! `__cuda_array_interface__` objects). Needs `python3` with `venv`; no GPU, no torch.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{succeed, text};

#[test]
fn the_wheel_installs_imports_and_refuses_bad_calls() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = succeed(
        Command::new(env!("CARGO_BIN_EXE_cargo-oxide"))
            .args(["python"])
            .arg(root.join("kernels/pyops"))
            .current_dir(&root),
    );
    let stdout = text(&out.stdout);
    let wheel = stdout
        .lines()
        .find_map(|l| l.strip_prefix("wheel: "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no `wheel:` line in\n{stdout}"));
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, "pyops-0.1.0-cp39-abi3-linux_x86_64.whl");

    let venv = std::env::temp_dir().join(format!("oxide-python-wheel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&venv);
    succeed(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    let python = venv.join("bin/python");
    succeed(
        Command::new(&python)
            .args(["-m", "pip", "install", "--no-index", "--no-deps", "--quiet"])
            .arg(&wheel),
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/refusals.py");
    let run = succeed(Command::new(&python).arg(&script));
    assert!(
        text(&run.stdout).contains("all refusals raised"),
        "{}",
        text(&run.stdout)
    );
    let _ = std::fs::remove_dir_all(&venv);
}
