//! `cargo oxide check-port` on the five worked ports of ci/gpu-suite/ports.txt (docs/porting.md),
//! each oxide crate built here. Where there is a GPU and nvcc each port must PASS; without a GPU
//! the check must say what it lacks (exit 2), and where nvcc is found (the pip wheel's, on CI)
//! it must have compiled the generated harness with the port's CUDA source first.

use std::path::Path;
use std::process::Command;

#[test]
fn the_worked_ports_check_or_say_what_they_need() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ports = std::fs::read_to_string(repo.join("ci/gpu-suite/ports.txt")).unwrap();
    let has_nvcc = cargo_oxide::check_port::find_nvcc().is_some();
    let mut checked = 0;
    for line in ports
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (name, rest) = line.split_once(' ').unwrap();
        let work = std::env::temp_dir().join(format!("check-port-{name}-{}", std::process::id()));
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-oxide"))
            .arg("check-port")
            .arg("--cuda")
            .arg(repo.join(format!("ci/gpu-suite/twins/{name}.cu")))
            .arg("--oxide")
            .arg(repo.join("kernels").join(name))
            .arg("--work-dir")
            .arg(&work)
            .args(rest.split_whitespace())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => assert!(stdout.contains("check-port: PASS"), "{name}: {stdout}"),
            Some(2) => {
                assert!(stdout.contains("not run"), "{name}: {stdout}\n{stderr}");
                if has_nvcc {
                    assert!(
                        stdout.contains("compiled the harness") || stdout.contains("built "),
                        "{name}: nvcc is here but did not compile the harness: {stdout}"
                    );
                }
            }
            other => panic!("{name}: exit {other:?}\n{stdout}\n{stderr}"),
        }
        // The generated inputs are the same bytes on every run.
        let first = std::fs::read(work.join(format!("in_{}.bin", input_of(rest)))).unwrap();
        assert!(!first.is_empty(), "{name}");
        std::fs::remove_dir_all(&work).unwrap();
        checked += 1;
    }
    assert_eq!(checked, 5, "ports.txt lists the five worked ports");
}

/// The first `in` buffer of a port's arguments.
fn input_of(args: &str) -> &str {
    let mut words = args.split_whitespace();
    while let Some(w) = words.next() {
        if w == "--buffer"
            && let Some(spec) = words.next()
            && spec.ends_with(":in")
        {
            return spec.split(':').next().unwrap();
        }
    }
    panic!("no input buffer in {args}")
}
