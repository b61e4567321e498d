//! `cargo oxide new NAME` for names that collided with what the template names (review of issue
//! 18): a crate named like the template's kernel (`saxpy`) or like a name of the oxide prelude
//! (`thread`, `LaunchConfig`) must compile, library, binary and tests; a name of the standard
//! prelude (`Vec`) is refused, saying why. One `cargo check` per crate, with the toolchain the
//! crates pin and one target folder for all of them (kept between runs), so this takes seconds
//! once oxide's crates are checked there.

use std::path::Path;
use std::process::{Command, Output};

fn new(dir: &Path, name: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-oxide"))
        .args(["new", name])
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn names_of_the_templates_items_make_crates_that_compile() {
    let tmp = std::env::temp_dir().join(format!("oxide-new-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-names");

    let refused = new(&tmp, "Vec");
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("standard prelude"), "{stderr}");
    assert!(!tmp.join("Vec").exists());

    // The kernel's own name (its module shadowed the crate), a module of the oxide prelude
    // (ambiguous with the crate), a type of the oxide prelude that main.rs uses.
    for name in ["saxpy", "thread", "LaunchConfig"] {
        let out = new(&tmp, name);
        assert!(out.status.success(), "new {name}: {}", text(&out.stderr));
        let mut check = cargo_oxide::cargo::cargo();
        for var in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_TARGET_DIR",
        ] {
            check.env_remove(var);
        }
        let out = check
            .args(["check", "--all-targets", "--quiet"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(tmp.join(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the crate `{name}` does not compile:\n{}",
            text(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
