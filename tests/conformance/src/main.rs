//! The conformance runner: `conformance --cpu | --gpu [--case NAME] [--no-traps] [--list]`
//! (and `--print <reference|emulator|gpu>`, the child process of the printing case).
//! `--no-traps` leaves out the cases that trap on purpose (what compute-sanitizer runs: a trap
//! is an error to it).

// `Atomic*::from_mut` on a thread's output element (cases/atomics.rs).
#![feature(atomic_from_mut)]
// Half-precision arithmetic (cases/strict_float.rs).
#![feature(f16)]

mod cases;
mod harness;

use std::process::ExitCode;

use harness::{Case, Check, Outcome, compare, inputs};
use oxide::host::Gpu;

enum Mode {
    Cpu,
    Gpu,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args.iter().any(|a| a == "--gpu") {
        Mode::Gpu
    } else {
        Mode::Cpu
    };
    let only = args
        .iter()
        .position(|a| a == "--case")
        .and_then(|i| args.get(i + 1))
        .cloned();
    if let Some(how) = args
        .iter()
        .position(|a| a == "--print")
        .map(|i| args.get(i + 1).map_or("", String::as_str))
    {
        // A child of the printing case (cases/debug.rs).
        return match cases::debug::print_for_parent(how, &inputs()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("conformance --print {how}: {e}");
                ExitCode::from(1)
            }
        };
    }
    let all = cases::all();
    if args.iter().any(|a| a == "--list") {
        for case in &all {
            println!("{}", case.name());
        }
        return ExitCode::SUCCESS;
    }
    let no_traps = args.iter().any(|a| a == "--no-traps");
    let selected: Vec<&Box<dyn Case>> = all
        .iter()
        .filter(|c| only.as_deref().is_none_or(|n| n == c.name()))
        .filter(|c| !(no_traps && matches!(c.check(), Check::Traps)))
        .collect();
    if selected.is_empty() {
        eprintln!("conformance: no case named {only:?}");
        return ExitCode::from(2);
    }
    // Panics of the reference bodies are expected for trapping cases; keep stderr readable.
    std::panic::set_hook(Box::new(|_| {}));
    let input = inputs();

    let gpu = match mode {
        Mode::Cpu => None,
        Mode::Gpu => match Gpu::new(0) {
            Ok(gpu) => Some(gpu),
            Err(e) => {
                eprintln!("conformance: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let (mut passed, mut failed) = (0, 0);
    for case in selected {
        let result = match (&gpu, case.check()) {
            (None, _) => {
                let reference = case.reference(&input);
                let emulated = case.emulate(&input);
                compare(
                    case.as_ref(),
                    ("emulator", &emulated),
                    ("reference", &reference),
                )
            }
            // A trap poisons the CUDA context: each trapping case runs in a process of its own.
            (Some(_), Check::Traps) if only.is_none() => run_isolated(case.name()),
            (Some(gpu), _) => {
                let emulated = case.emulate(&input);
                let on_gpu = case.gpu(gpu, &input);
                compare(case.as_ref(), ("gpu", &on_gpu), ("emulator", &emulated))
            }
        };
        match result {
            Ok(note) if note.is_empty() => {
                passed += 1;
                println!("ok   {}", case.name());
            }
            Ok(note) => {
                passed += 1;
                println!("ok   {}: {note}", case.name());
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {}: {why}", case.name());
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

fn run_isolated(name: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .args(["--gpu", "--case", name])
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() {
        Ok(String::new())
    } else {
        Err(stdout
            .lines()
            .find(|l| l.starts_with("FAIL"))
            .unwrap_or("child failed")
            .to_string())
    }
}

#[allow(dead_code)]
fn describe(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Values(_) => "values",
        Outcome::Failed(_) => "failure",
    }
}
