//! Snapshots of every pipeline stage for kernels/vecadd, as `cargo oxide pipeline` prints them.
//! `UPDATE_EXPECT=1 cargo test -p oxide-tests --test pipeline_snapshots` rewrites them; review
//! the diff like code.

use cargo_oxide::build::{self, BuildOptions};
use expect_test::{ExpectFile, expect_file};
use oxide_tests::repo_root;

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
    let stages: [(&str, ExpectFile); 7] = [
        (
            "1-rustc-mir.txt",
            expect_file!["../snapshots/vecadd/1-rustc-mir.txt"],
        ),
        (
            "2-mir-dialect.txt",
            expect_file!["../snapshots/vecadd/2-mir-dialect.txt"],
        ),
        (
            "3-mir-dialect-opt.txt",
            expect_file!["../snapshots/vecadd/3-mir-dialect-opt.txt"],
        ),
        (
            "4-llvm-dialect.txt",
            expect_file!["../snapshots/vecadd/4-llvm-dialect.txt"],
        ),
        (
            "5-llvm-ir.ll",
            expect_file!["../snapshots/vecadd/5-llvm-ir.ll"],
        ),
        (
            "6-llvm-ir-opt.ll",
            expect_file!["../snapshots/vecadd/6-llvm-ir-opt.ll"],
        ),
        ("7-ptx.ptx", expect_file!["../snapshots/vecadd/7-ptx.ptx"]),
    ];
    for (file, expected) in stages {
        let text =
            std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        expected.assert_eq(&normalize(&text));
    }
}
