//! `cargo oxide check-port` on inputs at the edges of their types, through the binary: each is
//! refused before anything runs (exit 1, one `error: check-port: ...` line that names the input
//! and says what to change), never a panic (exit 101) or an allocator's abort. The cases are the
//! review of issue 18's: a kernel `k` of one `float*` in CUDA, two parameters in its PTX.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PTX: &str = ".version 8.7\n.target sm_90\n.address_size 64\n\n\
                   .visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n\tret;\n}\n";

/// A folder holding `k.cu`, `k.ptx` and `k2.ptx` (the same entry with a `.maxntid` of
/// u32::MAX in each dimension).
fn inputs(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("check-port-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cu"), "__global__ void k(float* a) {}\n").unwrap();
    std::fs::write(dir.join("k.ptx"), PTX).unwrap();
    let wide = PTX.replace(")\n{", ")\n.maxntid 4294967295, 4294967295, 4294967295\n{");
    std::fs::write(dir.join("k2.ptx"), wide).unwrap();
    dir
}

fn check_port(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-oxide"))
        .current_dir(dir)
        .args(["check-port", "--cuda", "k.cu", "--kernel", "k"])
        .args(["--cuda-args", "a", "--oxide-args", "a"])
        .args(["--work-dir", "work"])
        .args(args)
        .output()
        .unwrap()
}

/// The run was refused with one error line holding every piece of `expected`.
fn refused(out: &Output, expected: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.starts_with("error: check-port: "), "{stderr}");
    for piece in expected {
        assert!(stderr.contains(piece), "no {piece:?} in {stderr}");
    }
}

#[test]
fn launch_shapes_past_u64_threads_are_refused_not_overflowed() {
    let dir = inputs("shapes");
    let block = "4294967295x4294967295x4294967295";
    // The grid `auto` divides n by the block's threads: this panicked counting them.
    let out = check_port(
        &dir,
        &["--ptx", "k.ptx", "--buffer", "a:f32:n:out", "--n", "1024"],
    );
    // A sane launch goes as far as this machine lets it: PASS on a GPU (neither kernel writes
    // its zeros), exit 2 without nvcc or a GPU.
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 2)), "{out:?}");
    let out = check_port(
        &dir,
        &[
            "--ptx",
            "k.ptx",
            "--buffer",
            "a:f32:n:out",
            "--n",
            "1024",
            "--block",
            block,
        ],
    );
    refused(&out, &["reads no y or z index", "launch it 1-D"]);
    // The `.maxntid` of k2.ptx: this panicked reading it.
    let out = check_port(
        &dir,
        &["--ptx", "k2.ptx", "--buffer", "a:f32:n:out", "--n", "1024"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() != Some(101) && !stderr.contains("panicked"),
        "{stderr}"
    );
    let out = check_port(
        &dir,
        &[
            "--ptx",
            "k2.ptx",
            "--buffer",
            "a:f32:n:out",
            "--n",
            "1024",
            "--block",
            block,
        ],
    );
    refused(&out, &["reads no y or z index"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn buffers_no_machine_holds_are_refused_before_anything_is_allocated() {
    let dir = inputs("buffers");
    // 2^60 elements of u64 panicked ("capacity overflow"), 2^44 aborted the process.
    for n in ["2^60", "2^44", "2^34"] {
        let out = check_port(
            &dir,
            &[
                "--ptx",
                "k.ptx",
                "--buffer",
                "a:u64:n:inout",
                "--n",
                n,
                "--grid",
                "1",
            ],
        );
        refused(
            &out,
            &[
                "more than check-port's limit of 68719476736 bytes",
                "`a` ",
                "give a smaller --n",
            ],
        );
    }
    // What would wrap in the harness's C `int` is refused too.
    for flag in ["--reps", "--smem"] {
        let out = check_port(
            &dir,
            &[
                "--ptx",
                "k.ptx",
                "--buffer",
                "a:f32:n:out",
                "--n",
                "8",
                flag,
                "3000000000",
            ],
        );
        refused(&out, &["3000000000", "at most 2147483647"]);
    }
    assert!(!dir.join("work").exists(), "nothing was written");
    std::fs::remove_dir_all(&dir).unwrap();
}
