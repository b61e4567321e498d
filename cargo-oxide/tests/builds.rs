//! `cargo oxide build` on tests/fixtures/same_kernel_name (a program and two kernel libraries
//! that both define a kernel `same`, a workspace of its own): the libraries link together, the
//! PTX shown is the PTX linked after an architecture switch, and ptxas assembles what is built.
//! The fixture's target dir persists (git-ignored), so only the first run compiles much.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use common::{succeed, text};

/// The tests share the fixture's target dir and check which architecture its files hold: one
/// at a time.
static FIXTURE: Mutex<()> = Mutex::new(());

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/same_kernel_name")
        .canonicalize()
        .expect("tests/fixtures/same_kernel_name")
}

fn cargo_oxide() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-oxide"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// `cargo oxide build --arch <arch> <fixture>/app`: the `ptx:` files and the binary.
fn oxide_build(arch: &str) -> (Vec<PathBuf>, PathBuf) {
    let app = fixture().join("app");
    let out = succeed(cargo_oxide().args(["build", "--arch", arch]).arg(&app));
    let stdout = text(&out.stdout);
    let field = |key: &str| -> Vec<PathBuf> {
        stdout
            .lines()
            .filter_map(|l| l.strip_prefix(key))
            .map(PathBuf::from)
            .collect()
    };
    let binary = field("binary: ").pop().expect("a binary line");
    (field("ptx: "), binary)
}

/// The `.target` line of a PTX text.
fn target_of(ptx: &str) -> &str {
    ptx.lines()
        .find(|l| l.starts_with(".target "))
        .unwrap_or_else(|| panic!("no .target in\n{ptx}"))
}

/// Issue 7: the marker was an `export_name`, one global symbol per kernel name, so two crates
/// with a kernel `same` failed to link ("duplicate symbol: __oxide_kernel__same"), even under
/// plain `cargo build`.
#[test]
fn two_crates_with_a_kernel_of_one_name_link_together() {
    let _one = FIXTURE.lock().unwrap_or_else(|e| e.into_inner());
    let root = fixture();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    succeed(
        Command::new(&cargo)
            .args(["build", "-p", "same_kernel_name"])
            .current_dir(&root)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS"),
    );
    let plain = root.join("target/debug/same_kernel_name");
    let run = text(&succeed(&mut Command::new(&plain)).stdout);
    assert!(run.contains("emulator: 1 2"), "{run}");

    let (ptx, binary) = oxide_build("sm_90");
    let names: Vec<String> = ptx
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ptx.len(), 2, "{names:?}");
    assert!(names[0].starts_with("kernels_first-"), "{names:?}");
    assert!(names[1].starts_with("kernels_second-"), "{names:?}");
    for file in &ptx {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains(".entry same("), "{}", file.display());
    }
    // Each crate's launcher runs its own kernel: on the emulator here, and on the GPU when
    // this machine has one (then both must run).
    let run = text(&succeed(&mut Command::new(&binary)).stdout);
    assert!(run.contains("emulator: 1 2"), "{run}");
    let gpu = cargo_oxide::driver::libcuda_loadable();
    assert!(
        run.contains(if gpu { "gpu: 1 2" } else { "gpu: not run" }),
        "{run}"
    );
}

/// Issue 7: after `--arch sm_80` then `--arch sm_90`, cargo reused the sm_90 artifacts of an
/// earlier build (its cache keeps one set per set of flags), and `<crate>.ptx`, the last
/// compilation's, still said sm_80. Whatever cargo reuses, the PTX shown (`ptx:`, the crate's
/// `.ptx`, `inspect`) must be the PTX in the binary.
#[test]
fn the_ptx_shown_is_the_ptx_linked_after_an_arch_switch() {
    let _one = FIXTURE.lock().unwrap_or_else(|e| e.into_inner());
    // The last two builds reuse the artifacts of the first two.
    for arch in ["sm_80", "sm_90", "sm_80", "sm_90", "sm_80"] {
        let (ptx, binary) = oxide_build(arch);
        let want = format!(".target {arch}");
        let binary = std::fs::read(&binary).unwrap();
        for file in &ptx {
            let shown = std::fs::read_to_string(file).unwrap();
            assert_eq!(target_of(&shown), want, "{}", file.display());
            // The binary embeds exactly this text.
            assert!(
                binary.windows(shown.len()).any(|w| w == shown.as_bytes()),
                "{} is not the PTX in the binary",
                file.display()
            );
            // `<crate>-<hash>.ptx`: the crate's PTX that does not change with the flags.
            let stem = file.file_stem().unwrap().to_string_lossy();
            let krate = stem.split('-').next().unwrap();
            let crate_ptx = file.with_file_name(format!("{krate}.ptx"));
            let crate_ptx = std::fs::read_to_string(&crate_ptx).unwrap();
            assert_eq!(target_of(&crate_ptx), want, "{krate}.ptx after {arch}");
        }
        let app = fixture().join("app");
        let inspect = succeed(cargo_oxide().args(["inspect", "--arch", arch]).arg(&app));
        assert_eq!(target_of(&text(&inspect.stdout)), want, "inspect");
    }
}

/// A ptxas stand-in that records its arguments beside itself and rejects the PTX.
fn rejecting_ptxas(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join("ptxas");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> {}\necho 'ptxas fatal : stand-in rejects it' >&2\nexit 255\n",
        dir.join("args").display()
    );
    std::fs::write(&exe, script).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    exe
}

/// Issue 7: `cargo oxide build` did not run ptxas, so an assembler error showed only when the
/// driver loaded the PTX. It assembles every PTX it built, for the chosen architecture; without
/// a ptxas it says so once, and builds.
#[test]
fn ptxas_assembles_what_is_built_and_a_missing_one_is_a_note() {
    let _one = FIXTURE.lock().unwrap_or_else(|e| e.into_inner());
    let app = fixture().join("app");
    let scratch = std::env::temp_dir().join(format!("cargo-oxide-ptxas-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);

    let fake = rejecting_ptxas(&scratch.join("rejecting"));
    let out = cargo_oxide()
        .args(["build", "--arch", "sm_80"])
        .arg(&app)
        .env("OXIDE_PTXAS", &fake)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error: ptxas rejected"), "{stderr}");
    assert!(stderr.contains("stand-in rejects it"), "{stderr}");
    let args = std::fs::read_to_string(scratch.join("rejecting/args")).unwrap();
    assert!(args.starts_with("-arch=sm_80 -o /dev/null "), "{args}");
    assert!(args.trim_end().ends_with(".ptx"), "{args}");

    // No ptxas: none on PATH, and a python3 that finds no pip wheel.
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let python = bin.join("python3");
        std::fs::write(&python, "#!/bin/sh\nexit 1\n").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(bin)
        .chain(std::env::split_paths(&path).filter(|d| !d.join("ptxas").exists()));
    let out = succeed(
        cargo_oxide()
            .args(["build", "--arch", "sm_80"])
            .arg(&app)
            .env_remove("OXIDE_PTXAS")
            .env("PATH", std::env::join_paths(dirs).unwrap()),
    );
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr
            .matches(&cargo_oxide::build::missing_ptxas_note())
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(text(&out.stdout).matches("ptx: ").count(), 2);
    std::fs::remove_dir_all(&scratch).unwrap();
}
