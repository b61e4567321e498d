//! Helpers shared by the end-to-end tests in tests/tests/: where the repository and its kernel
//! crates are, which kernels a source declares, ptxas, the bless switch (`bless`) and the
//! directives of tests/ui cases (`ui`).

use std::path::{Path, PathBuf};

pub mod bless;
pub mod ui;

pub use cargo_oxide;
use oxide_cuda_tools::{Ptxas, ptxas};

/// The repository root (the folder above this package).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Every kernel crate: the folders of `<root>/kernels/` that hold a program (Cargo.toml and
/// src/main.rs), sorted; kernels/bench, the programs' shared library, is not one.
pub fn kernel_crates(root: &Path) -> Vec<PathBuf> {
    let dir = root.join("kernels");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").join("main.rs").is_file())
        .collect();
    crates.sort();
    crates
}

/// The `.rs` files under `dir`, sorted, recursively.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The names of the functions marked `#[kernel]` (or `#[oxide::kernel]`) in `source`, in order.
/// Comments are skipped, so a `#[kernel]` in a doc example does not count. A kernel inside a
/// `macro_rules!` is named by its metavariable (`$name`).
pub fn kernel_names(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = Vec::new();
    let mut rest = code.as_str();
    while let Some(start) = rest.find("#[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(']') else { break };
        let attr = after[..end].trim();
        let path = attr.split('(').next().unwrap_or_default().trim();
        rest = &after[end + 1..];
        if path != "kernel" && !path.ends_with("::kernel") {
            continue;
        }
        if let Some(name) = next_fn_name(rest) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The identifier after the next `fn` keyword in `code`, with its `$` when it is a
/// `macro_rules!` metavariable (`fn $name(..)`: a kernel the macro stamps under the names its
/// invocations give).
fn next_fn_name(code: &str) -> Option<&str> {
    let mut words = code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
    words.find(|w| *w == "fn")?;
    words.find(|w| !w.is_empty())
}

/// ptxas, or a panic that says how to get it: the tests need it, and CI installs it.
pub fn ptxas_or_fail() -> Ptxas {
    find_ptxas().unwrap_or_else(|e| panic!("{e}"))
}

/// ptxas, or why there is none and how to get it.
pub fn find_ptxas() -> Result<Ptxas, String> {
    ptxas::find().map_err(|e| {
        format!("{e}\nThese tests check the PTX with ptxas; run ci/setup.sh to install it.")
    })
}

/// Replaces the machine-specific paths in compiler output: the repository root becomes `$DIR`
/// and the toolchain's sysroot `$SYSROOT`.
pub fn normalize(text: &str, root: &Path, sysroot: Option<&Path>) -> String {
    let mut text = text.replace("\r\n", "\n");
    if let Some(sysroot) = sysroot {
        text = text.replace(&*sysroot.to_string_lossy(), "$SYSROOT");
    }
    hide_library_lines(&text.replace(&*root.to_string_lossy(), "$DIR"))
}

/// The line numbers of device-std's sources in a diagnostic (`--> device-std/...rs:402:5` and
/// the gutter of the snippet under it) as `N`s, digit for digit: a diagnostic that points into
/// the library (a collective reached through `mma`) names the library's line, and an
/// expectation should not change whenever that file does (as trybuild hides `$WORKSPACE` lines).
fn hide_library_lines(text: &str) -> String {
    let hide = |s: &str| {
        s.chars()
            .map(|c| if c.is_ascii_digit() { 'N' } else { c })
            .collect::<String>()
    };
    let mut out = Vec::new();
    let mut in_library = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(path) = trimmed
            .strip_prefix("--> ")
            .or_else(|| trimmed.strip_prefix("::: "))
        {
            in_library = path.starts_with("device-std/");
            if in_library {
                // `path:line:col`: hide the numbers after the file's name.
                let at = line.find(".rs:").map_or(line.len(), |i| i + 3);
                out.push(format!("{}{}", &line[..at], hide(&line[at..])));
                continue;
            }
        } else if in_library {
            // A snippet line: `402 |     code` (numbers only before the bar).
            if let Some(bar) = line.find('|') {
                let (gutter, rest) = line.split_at(bar);
                if gutter.trim().chars().all(|c| c.is_ascii_digit()) {
                    out.push(format!("{}{rest}", hide(gutter)));
                    continue;
                }
            } else if !trimmed.is_empty() {
                in_library = false;
            }
        }
        out.push(line.to_string());
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_line_numbers_are_hidden_and_the_user_s_kept() {
        let text = "error: here\n  --> tests/ui/a.rs:12:8\n   |\n12 |     mma()\nnote: reaches\n   --> device-std/device/src/mma/mod.rs:402:5\n    |\n402 |     x();\n    |     ^^^\n\nerror: done\n";
        let hidden = hide_library_lines(text);
        assert!(hidden.contains("--> tests/ui/a.rs:12:8"));
        assert!(hidden.contains("12 |     mma()"));
        assert!(hidden.contains("--> device-std/device/src/mma/mod.rs:NNN:N"));
        assert!(hidden.contains("NNN |     x();"));
        assert!(hidden.ends_with("error: done\n"));
    }

    #[test]
    fn finds_kernel_names() {
        let src = r#"
//! ```
//! #[kernel]
//! pub fn in_a_doc_example() {}
//! ```
use oxide::prelude::*;

#[kernel]
pub fn vecadd(a: &[f32], mut c: DisjointSlice<f32>) {}

#[inline]
fn helper() {}

/// Docs.
#[oxide::kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn saxpy_2(a: f32) {}

#[kernel_helper]
fn not_a_kernel() {}
"#;
        assert_eq!(kernel_names(src), ["vecadd", "saxpy_2"]);
        assert!(kernel_names("fn main() {}").is_empty());
        let stamped = "macro_rules! k { ($name:ident) => { #[kernel] pub fn $name() {} }; }";
        assert_eq!(kernel_names(stamped), ["$name"]);
    }

    #[test]
    fn finds_this_repos_kernel_crates() {
        let crates = kernel_crates(&repo_root());
        assert!(
            crates.iter().any(|c| c.ends_with("kernels/vecadd")),
            "{crates:?}"
        );
    }

    #[test]
    fn normalizes_paths() {
        let root = Path::new("/work/main");
        let sysroot = Path::new("/home/u/.rustup/toolchains/n");
        let text = "error: x\r\n --> /work/main/tests/ui/a.rs:1:1\n  ::: /home/u/.rustup/toolchains/n/lib/x.rs\n";
        assert_eq!(
            normalize(text, root, Some(sysroot)),
            "error: x\n --> $DIR/tests/ui/a.rs:1:1\n  ::: $SYSROOT/lib/x.rs\n"
        );
    }
}

#[cfg(test)]
mod ptxas_tests {
    use super::ptxas_or_fail;

    const GOOD: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n\n}\n";

    #[test]
    fn ptxas_accepts_valid_ptx_and_reports_invalid_ptx() {
        let ptxas = ptxas_or_fail();
        let dir = std::env::temp_dir().join(format!("oxide-tests-ptxas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.ptx");
        let bad = dir.join("bad.ptx");
        std::fs::write(&good, GOOD).unwrap();
        std::fs::write(&bad, GOOD.replace("ret;", "not_an_instruction;")).unwrap();
        ptxas.check(&good, "sm_90").unwrap();
        let err = ptxas.check(&bad, "sm_90").unwrap_err().to_string();
        assert!(
            err.contains("ptxas rejected") && err.contains("bad.ptx"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
