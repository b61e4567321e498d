//! `cargo oxide new NAME`: a kernel crate of its own, outside any workspace: a kernel and its CPU
//! reference (src/lib.rs), a host program that runs and checks it (src/main.rs), a test that
//! runs it on the emulator, the pinned toolchain and oxide as a path dependency.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

const CARGO_TOML: &str = include_str!("../templates/new/Cargo.toml.in");
const LIB_RS: &str = include_str!("../templates/new/lib.rs.in");
const MAIN_RS: &str = include_str!("../templates/new/main.rs.in");
const GITIGNORE: &str = include_str!("../templates/new/gitignore.in");
/// The crate pins the toolchain oxide builds with: device-std needs that nightly even under
/// plain `cargo test`.
const TOOLCHAIN_TOML: &str = include_str!("../../rust-toolchain.toml");

/// Creates the crate at `dir` (its last component is the crate's name), depending on the oxide
/// checkout at `oxide_root`. Returns the files written.
pub fn create(dir: &Path, oxide_root: &Path) -> Result<Vec<PathBuf>> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    check_name(&name)?;
    if dir.exists() {
        return Err(Error::AlreadyExists(dir.to_path_buf()));
    }
    let oxide = oxide_root.join("device-std").join("oxide");
    let fill = |template: &str| {
        template
            .replace("{name}", &name)
            .replace("{lib}", &name.replace('-', "_"))
            .replace("{oxide}", &toml_path(&oxide))
    };
    let mut files = vec![
        (dir.join("Cargo.toml"), fill(CARGO_TOML)),
        (dir.join("rust-toolchain.toml"), TOOLCHAIN_TOML.to_owned()),
        (dir.join(".gitignore"), GITIGNORE.to_owned()),
        (dir.join("src").join("lib.rs"), fill(LIB_RS)),
        (dir.join("src").join("main.rs"), fill(MAIN_RS)),
    ];
    // oxide's own lock file as the seed: the new crate resolves to the versions oxide is tested
    // with (and already downloaded); cargo drops the entries it does not use.
    if let Ok(lock) = std::fs::read_to_string(oxide_root.join("Cargo.lock")) {
        files.push((dir.join("Cargo.lock"), lock));
    }
    std::fs::create_dir_all(dir.join("src")).map_err(Error::io(dir.join("src")))?;
    for (path, text) in &files {
        std::fs::write(path, text).map_err(Error::io(path))?;
    }
    Ok(files.into_iter().map(|(path, _)| path).collect())
}

/// Every Rust keyword, strict and reserved, in any edition (2024's `gen` included): none can
/// name a crate (`use self::...` already means this module), and cargo refuses them.
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Every name the Rust 2024 standard prelude puts in the type namespace (the types and traits
/// of `std::prelude::rust_2024`). Where a crate's own name is in scope (its binaries, tests and
/// examples: `src/main.rs` of the template), rustc finds it before the standard prelude, so a
/// crate named `Vec` makes `Vec<f32>` there name the crate (E0573). A template cannot dodge
/// this for the code its user goes on to write, so these names are refused. The template's
/// own items (`saxpy`, `BLOCK`, ...) and the oxide prelude's names (`thread`, `LaunchConfig`,
/// ...) need no entry: `main.rs.in` names the crate as `::{lib}`, which only the crate can be,
/// and tests/new_names.rs builds crates of such names.
const STD_PRELUDE_TYPES: &[&str] = &[
    "AsMut",
    "AsRef",
    "AsyncFn",
    "AsyncFnMut",
    "AsyncFnOnce",
    "Box",
    "Clone",
    "Copy",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Future",
    "Into",
    "IntoFuture",
    "IntoIterator",
    "Iterator",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
];

/// Why `name` cannot name the new crate (a package, its library and its binary), if it cannot:
/// what cargo refuses, and what would not compile beside the crates it uses.
fn name_problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    // The library's name: cargo turns `-` into `_`.
    let lib = name.replace('-', "_");
    Some(if !well_formed {
        "a crate name starts with an ASCII letter and holds only ASCII letters, digits, `_` and \
         `-`"
        .to_owned()
    } else if KEYWORDS.contains(&lib.as_str()) {
        format!("`{lib}` is a Rust keyword, which cargo refuses and Rust code cannot `use`")
    } else if matches!(
        lib.as_str(),
        "core" | "std" | "alloc" | "proc_macro" | "test"
    ) {
        format!("`{lib}` is a crate of Rust's standard library, which it would shadow")
    } else if lib == "oxide" || is_oxide_crate(&lib) {
        format!("`{name}` is one of oxide's own crates, which the new crate depends on")
    } else if STD_PRELUDE_TYPES.contains(&lib.as_str()) {
        format!(
            "`{lib}` is a name of Rust's standard prelude, which the crate's name would shadow \
             in its own binaries and tests (`{lib}` there would be the crate)"
        )
    } else if matches!(lib.as_str(), "build" | "deps" | "examples" | "incremental") {
        format!(
            "`{name}` is a folder of cargo's target directory, which cargo refuses as a binary's name"
        )
    } else {
        return None;
    })
}

/// oxide's crates that a kernel crate depends on, directly or through `oxide`.
fn is_oxide_crate(lib: &str) -> bool {
    matches!(
        lib,
        "oxide_host" | "oxide_device" | "oxide_emulator" | "oxide_macros" | "oxide_contract"
    )
}

/// Refuses a name [`name_problem`] finds a problem with, saying why.
fn check_name(name: &str) -> Result<()> {
    match name_problem(name) {
        None => Ok(()),
        Some(why) => Err(Error::BadCrateName {
            name: name.to_owned(),
            why,
        }),
    }
}

/// `path` as a TOML basic string's contents (backslashes and quotes escaped).
fn toml_path(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_crate_has_its_files_and_names() {
        let tmp = std::env::temp_dir().join(format!("cargo-oxide-new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let dir = tmp.join("my-kernels");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let files = create(&dir, &root).unwrap();
        assert!(files.iter().all(|f| f.is_file()), "{files:?}");
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"my-kernels\""), "{manifest}");
        assert!(manifest.contains("[workspace]"), "{manifest}");
        assert!(manifest.contains("device-std/oxide\" }"), "{manifest}");
        let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
        // An absolute path: the crate, even where an item in scope has its name.
        assert!(main.contains("use ::my_kernels::{"), "{main}");
        assert!(!main.contains("{lib}") && !manifest.contains("{oxide}"));
        let e = create(&dir, &root).unwrap_err();
        assert!(matches!(e, Error::AlreadyExists(_)), "{e}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn names_cargo_refuses_are_refused() {
        for bad in [
            "",
            "9lives",
            "has space",
            "a/b",
            "oxide",
            "test",
            "über",
            "-x",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in [
            "hello",
            "my-kernels",
            "k_2",
            "selfish",
            "crates",
            "oxide-demo",
            "union",
            // The template's own items and the oxide prelude's names: `main.rs` names the crate
            // `::NAME` (review of issue 18: `saxpy`, `thread` did not compile).
            "saxpy",
            "saxpy_on_cpu",
            "BLOCK",
            "inputs",
            "thread",
            "LaunchConfig",
            "vec",
            "f32",
        ] {
            check_name(good).unwrap();
        }
    }

    /// Issue 18: `cargo oxide new self` (or `super`, `crate`) made a crate that did not compile.
    #[test]
    fn keywords_and_names_in_use_are_refused_with_the_reason() {
        for keyword in [
            "self", "super", "crate", "Self", "fn", "async", "gen", "try", "dyn",
        ] {
            let e = check_name(keyword).unwrap_err().to_string();
            assert!(e.contains("is a Rust keyword"), "{keyword}: {e}");
            assert!(e.contains("pick another name"), "{keyword}: {e}");
        }
        for (name, why) in [
            ("core", "standard library"),
            ("proc-macro", "standard library"),
            ("oxide-host", "oxide's own crates"),
            ("oxide_contract", "oxide's own crates"),
            ("deps", "target directory"),
        ] {
            let e = check_name(name).unwrap_err().to_string();
            assert!(e.contains(why), "{name}: {e}");
        }
        for prelude in ["Vec", "Result", "Option", "String", "Clone", "Future"] {
            let e = check_name(prelude).unwrap_err().to_string();
            assert!(e.contains("standard prelude"), "{prelude}: {e}");
        }
        let tmp = std::env::temp_dir().join(format!("cargo-oxide-new-kw-{}", std::process::id()));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert!(matches!(
            create(&tmp.join("super"), &root),
            Err(Error::BadCrateName { .. })
        ));
        assert!(!tmp.join("super").exists());
    }
}
