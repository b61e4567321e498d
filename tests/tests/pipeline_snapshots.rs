//! Snapshots of every pipeline stage for kernels/vecadd, as `cargo oxide pipeline` prints them.
//! `OXIDE_BLESS=1 cargo test -p oxide-tests --test pipeline_snapshots` rewrites them; review
//! the diff like code.

use cargo_oxide::build::{self, BuildOptions};
use oxide_tests::{bless, repo_root};

/// Removes what changes between machines and checkouts but not between compilers: the repo's
/// path and rustc's per-crate symbol hashes.
fn normalize(text: &str) -> String {
    let root = repo_root().display().to_string();
    let mut out = text.replace(&root, "$DIR");
    for marker in ["17h", "::h"] {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(pos) = rest.find(marker) {
            let (head, tail) = rest.split_at(pos + marker.len());
            result.push_str(head);
            let hex = tail.chars().take_while(char::is_ascii_hexdigit).count();
            if hex == 16 {
                result.push_str("<hash>");
                rest = &tail[16..];
            } else {
                rest = tail;
            }
        }
        result.push_str(rest);
        out = result;
    }
    out
}

#[test]
fn vecadd_every_stage() {
    let opts = BuildOptions {
        dump: true,
        ..BuildOptions::new(repo_root().join("kernels/vecadd"))
    };
    let out = build::build(&opts).expect("cargo oxide build --dump of kernels/vecadd");
    let dir = out.pipeline_dir();
    let snapshots = repo_root().join("tests/snapshots/vecadd");
    let stages = [
        "1-rustc-mir.txt",
        "2-mir-dialect.txt",
        "3-mir-dialect-opt.txt",
        "4-llvm-dialect.txt",
        "5-llvm-ir.ll",
        "6-llvm-ir-opt.ll",
        "7-ptx.ptx",
    ];
    // Every stage is compared before failing, so that one run shows (or blesses) them all.
    let failures: Vec<String> = stages
        .iter()
        .filter_map(|file| {
            let text =
                std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            bless::check_file(&snapshots.join(file), &normalize(&text)).err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
