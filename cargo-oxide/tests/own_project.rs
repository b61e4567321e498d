//! A new user's first steps, outside this repository, exactly: `cargo install` of cargo-oxide
//! into a fresh root, then in an empty temporary folder `cargo oxide new hello`,
//! `cargo oxide run` and `cargo test`, with nothing of this repository's environment (its
//! toolchain pin, its target dir) leaking in. Needs no GPU: there `cargo oxide run` still runs
//! the program, which runs the kernel on the CPU emulator and checks it. Then a second binary:
//! `build` lists both, `run` asks which (`--bin`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::text;

/// Runs `cmd` in `dir` as a user's shell would (PATH with the installed cargo-oxide first, none
/// of the variables this test runs under), failing the test with its output unless it
/// succeeds.
fn succeed(cmd: &mut Command, dir: &Path, path: &str) -> Output {
    let out = run_as_user(cmd, dir, path);
    assert!(
        out.status.success(),
        "{cmd:?} in {} failed:\n{}\n{}",
        dir.display(),
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// Runs `cmd` in `dir` as a user's shell would, whatever its exit status.
fn run_as_user(cmd: &mut Command, dir: &Path, path: &str) -> Output {
    for var in [
        "CARGO",
        "RUSTC",
        "RUSTUP_TOOLCHAIN",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_MANIFEST_DIR",
        "OXIDE_ROOT",
    ] {
        cmd.env_remove(var);
    }
    // A user has a default toolchain; a machine without one (rustup installed only the pinned
    // nightly) runs the outer cargo with the pin instead.
    if let Some(toolchain) = without_default_toolchain() {
        cmd.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    cmd.current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("the command runs")
}

/// The pinned toolchain when rustup has no default one.
fn without_default_toolchain() -> Option<&'static str> {
    let default = Command::new("rustup").arg("default").output().ok()?;
    let text = text(&default.stdout);
    (!default.status.success() || text.trim().is_empty() || text.contains("no default"))
        .then(cargo_oxide::toolchain::pinned)
}

#[test]
fn install_new_run_and_test_outside_the_repository() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::env::temp_dir().join(format!("oxide-own-project-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (install_root, projects) = (tmp.join("install"), tmp.join("projects"));
    std::fs::create_dir_all(&projects).unwrap();
    let path = format!(
        "{}:{}",
        install_root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );

    // Installing: from a folder outside the repository, so that the user's own toolchain builds
    // cargo-oxide (it needs none of the nightly's features).
    succeed(
        Command::new("cargo")
            .args(["install", "--debug", "--quiet", "--path"])
            .arg(repo.join("cargo-oxide"))
            .arg("--root")
            .arg(&install_root),
        &projects,
        &path,
    );

    let out = succeed(
        Command::new("cargo").args(["oxide", "new", "hello"]),
        &projects,
        &path,
    );
    assert!(text(&out.stdout).contains("created hello"), "{out:?}");
    let hello: PathBuf = projects.join("hello");

    // `cargo oxide run`: the backend (already built for this toolchain by the repository's
    // tests, so reused, not rebuilt per project), the kernel crate, ptxas; then the program
    // runs, with or without a driver, and checks every element: on the GPU, or on the CPU
    // emulator, which both it and cargo-oxide say.
    let driver = cargo_oxide::driver::libcuda_loadable();
    let out = succeed(Command::new("cargo").args(["oxide", "run"]), &hello, &path);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stdout.contains("elements on") && stdout.contains(": PASS"),
        "{stdout}\n{stderr}"
    );
    if !driver {
        assert!(
            stdout.contains("saxpy of 65536 elements on the CPU emulator: PASS"),
            "{stdout}\n{stderr}"
        );
        assert!(
            stderr.contains("no NVIDIA driver on this machine, so it cannot use a GPU"),
            "{stderr}"
        );
    }
    let release = hello.join("target/oxide");
    let binary = std::fs::read_dir(&release)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("release/hello"))
        .find(|p| p.is_file())
        .expect("the program was built");
    let ptx = binary.with_file_name("deps").join("hello.ptx");
    let ptx_text = std::fs::read_to_string(&ptx).expect("the kernel's PTX was written");
    assert!(ptx_text.contains(".entry saxpy"), "{ptx_text}");

    // The program itself: on the GPU, or on the CPU emulator without one.
    let out = succeed(&mut Command::new(&binary), &hello, &path);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("elements on"), "{stdout}");
    assert!(stdout.contains(": PASS"), "{stdout}");

    // `cargo test`: the kernel on the emulator, with the toolchain the new crate pins.
    let out = succeed(Command::new("cargo").arg("test"), &hello, &path);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        all.contains("test tests::saxpy_on_the_emulator ... ok"),
        "{all}"
    );

    // A second binary: `build` prints both, sorted; `run` needs `--bin` to choose, as
    // `cargo run` does.
    let bin_dir = hello.join("src/bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::write(
        bin_dir.join("again.rs"),
        "fn main() { println!(\"again: {}\", hello::saxpy_on_cpu(2.0, &[1.0], &[0.5])[0]); }\n",
    )
    .unwrap();
    let out = succeed(
        Command::new("cargo").args(["oxide", "build"]),
        &hello,
        &path,
    );
    let binaries: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("binary: "))
        .map(|p| {
            Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(binaries, ["again", "hello"], "{}", text(&out.stdout));
    let out = run_as_user(Command::new("cargo").args(["oxide", "run"]), &hello, &path);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("has several binaries (again, hello): choose one with `--bin NAME`"),
        "{stderr}"
    );
    let out = succeed(
        Command::new("cargo").args(["oxide", "run", "--bin", "again"]),
        &hello,
        &path,
    );
    assert_eq!(text(&out.stdout).trim(), "again: 2.5");

    std::fs::remove_dir_all(&tmp).unwrap();
}
