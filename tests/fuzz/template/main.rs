//! A batch of generated programs (written by oxide-fuzz; docs/fuzzing.md):
//! `batch [--cpu | --gpu] [--start I] [--only NAME]`. Each program's kernel runs on the CPU
//! emulator (`--cpu`) or on the GPU (`--gpu`), and every thread's checksum is compared with the
//! program's body run as plain Rust. Prints `ok NAME` / `FAIL NAME: why` per program, then
//! `N passed, N failed`.

// Generated code is full of unused values and redundant parentheses.
#![allow(warnings)]

mod common;
mod programs;

use std::process::ExitCode;

use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, Error, Gpu, LaunchConfig};

pub type Launch =
    fn(&Gpu, LaunchConfig, &DeviceBuffer<u64>, &mut DeviceBuffer<u64>) -> Result<(), Error>;
pub type Emulate = fn(&LaunchConfig, &[u64], &mut [u64]) -> Result<(), KernelFailure>;

/// One generated program: its kernel's launcher and emulator, and its body as plain Rust.
pub struct Program {
    pub name: &'static str,
    pub body: fn(u64, u64) -> u64,
    pub launch: Launch,
    pub emulate: Emulate,
}

/// Threads per program: several blocks and a partial last one.
const N: usize = 200;
const BLOCK: u32 = 64;

/// Edge values and pseudo-random words, the same on every run.
fn inputs() -> Vec<u64> {
    let edges = [
        0,
        1,
        u64::MAX,
        i64::MIN as u64,
        i64::MAX as u64,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0x7f80_0000,
        0xff80_0000_0000_0000,
        0x7ff8_0000_0000_0001,
        0x3ff0_0000_0000_0000,
    ];
    let mut s = 0x1234_5678_9abc_def0u64;
    (0..N)
        .map(|i| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z ^= z >> 27;
            match i % 4 {
                0 => edges[(i / 4) % edges.len()],
                1 => z % 1000,
                _ => z,
            }
        })
        .collect()
}

fn reference(p: &Program, input: &[u64]) -> Result<Vec<u64>, String> {
    let body = p.body;
    std::panic::catch_unwind(|| {
        (0..input.len())
            .map(|i| body(input[i], input[(i + 1) % input.len()]))
            .collect()
    })
    .map_err(|_| "the plain-Rust body panicked (a generator bug: programs must not panic)".into())
}

fn config() -> LaunchConfig {
    LaunchConfig::for_num_elems(N, BLOCK).expect("a valid launch shape")
}

fn on_gpu(gpu: &Gpu, p: &Program, input: &[u64]) -> Result<Vec<u64>, Error> {
    let input = gpu.htod(input)?;
    let mut out = gpu.alloc_zeroed::<u64>(N)?;
    (p.launch)(gpu, config(), &input, &mut out)?;
    gpu.dtoh(&out)
}

fn compare(what: &str, got: &[u64], want: &[u64]) -> Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what} differs from plain Rust at thread {i}: {:#018x}, plain Rust {:#018x}",
            got[i], want[i]
        )),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gpu_mode = args.iter().any(|a| a == "--gpu");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let start: usize = value("--start").and_then(|s| s.parse().ok()).unwrap_or(0);
    let only = value("--only");
    std::panic::set_hook(Box::new(|_| {}));
    let input = inputs();
    let gpu = if gpu_mode {
        match Gpu::new(0) {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("batch: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    let (mut passed, mut failed) = (0usize, 0usize);
    for (i, p) in programs::ALL.iter().enumerate().skip(start) {
        if only.as_deref().is_some_and(|o| o != p.name) {
            continue;
        }
        let want = reference(p, &input);
        let result = match (&gpu, want) {
            (_, Err(e)) => Err(e),
            (None, Ok(want)) => {
                let mut out = vec![0u64; N];
                match (p.emulate)(&config(), &input, &mut out) {
                    Ok(()) => compare("emulator", &out, &want),
                    Err(f) => Err(format!("the emulator failed: {f}")),
                }
            }
            (Some(gpu), Ok(want)) => match on_gpu(gpu, p, &input) {
                Ok(got) => compare("GPU", &got, &want),
                Err(e) => {
                    // A failed launch poisons the context: go on in a fresh process.
                    println!("FAIL {}: the GPU run failed: {e}", p.name);
                    failed += 1;
                    return continue_in_child(i + 1, passed, failed, only.is_some());
                }
            },
        };
        match result {
            Ok(()) => {
                passed += 1;
                println!("ok {}", p.name);
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {}: {why}", p.name);
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn continue_in_child(start: usize, passed: usize, failed: usize, only: bool) -> ExitCode {
    let rest = if only || start >= programs::ALL.len() {
        Some((0, 0))
    } else {
        std::env::current_exe().ok().and_then(|exe| {
            let out = std::process::Command::new(exe)
                .args(["--gpu", "--start", &start.to_string()])
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let mut summary = None;
            for line in text.lines() {
                match line.split_once(" passed, ") {
                    Some((p, f)) if f.ends_with(" failed") => {
                        summary =
                            Some((p.parse().ok()?, f.trim_end_matches(" failed").parse().ok()?))
                    }
                    _ => println!("{line}"),
                }
            }
            summary
        })
    };
    let (p, f) = rest.unwrap_or((0, 1));
    println!("{} passed, {} failed", passed + p, failed + f);
    ExitCode::from(1)
}
