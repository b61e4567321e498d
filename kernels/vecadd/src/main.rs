//! `c = a + b` over `n` f32 elements: run on the GPU, check every element, report bandwidth.
//! Where there is no GPU (no driver, no device, or a build without `cargo oxide`), it runs the
//! kernel on the CPU emulator instead, at most [`EMULATED_MAX`] elements, and checks those.
//!
//! `vecadd [N]` (N defaults to 2^28; `1048579`, `2^20`, `1<<20` and `3*2^20` work). Exit 0 on
//! PASS, 1 on FAIL or an error, 2 when the argument is not a count.

use std::process::ExitCode;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

// Two launch contracts: a 1-D grid (the launcher rejects 2-D/3-D shapes, and in exchange the
// kernel's `ThreadIndex::linear()` costs what a 1-D index does), and one length for the three
// slices (the launcher checks it once, so each thread tests its index once, as CUDA's
// `if (i < n)`).
#[kernel(grid = "1d", same_len = "a, b, c")]
pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = c.get_mut(idx) {
        *out = a[i] + b[i];
    }
}

const BLOCK: u32 = 256;

/// The most elements the emulator run checks: it runs every GPU thread as a CPU thread, so
/// 2^28 would take far longer than the check is worth.
const EMULATED_MAX: usize = 1 << 16;

fn main() -> ExitCode {
    bench::main("vecadd", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    // Find out whether this machine and build can run the kernel before any other work.
    let gpu = match Gpu::new(0).and_then(|gpu| vecadd::load(&gpu).map(|_| gpu)) {
        Ok(gpu) => gpu,
        Err(e) if e.is_unavailable() => return on_the_emulator(n, &e),
        Err(e) => return Err(e),
    };
    let (a, b) = bench::addends(n);

    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(n)?;
    let cfg = LaunchConfig::for_num_elems(n, BLOCK)?;

    vecadd::launch(&gpu, cfg, &da, &db, &mut dc)?;
    let c = gpu.dtoh(&dc)?;
    if !check(n, &a, &b, &c) {
        return Ok(false);
    }

    let bytes = 3 * n as u64 * size_of::<f32>() as u64;
    bench::report_timed(&gpu, "vecadd", n, "", bytes, || {
        vecadd::launch(&gpu, cfg, &da, &db, &mut dc)
    })
}

/// Whether `c` is `a + b` in every element; prints the first that is not. IEEE addition is
/// exact to the bit on both sides, so the comparison is exact.
fn check(n: usize, a: &[f32], b: &[f32], c: &[f32]) -> bool {
    for (i, ((&x, &y), &got)) in a.iter().zip(b).zip(c).enumerate() {
        let expected = x + y;
        if got.to_bits() != expected.to_bits() {
            println!("vecadd n={n} FAIL at {i}: got {got} expected {expected}");
            return false;
        }
    }
    true
}

/// The kernel on the CPU emulator, for a machine or build that cannot run it on a GPU
/// (`why`): every element checked, no timing (the emulator's time says nothing of a GPU's).
fn on_the_emulator(n: usize, why: &Error) -> Result<bool, Error> {
    let n = n.min(EMULATED_MAX);
    println!("vecadd: no GPU ({why}): running on the CPU emulator at n={n}");
    let (a, b) = bench::addends(n);
    let mut c = vec![0.0f32; n];
    vecadd::emulate(&LaunchConfig::for_num_elems(n, BLOCK)?, &a, &b, &mut c)?;
    if !check(n, &a, &b, &c) {
        return Ok(false);
    }
    println!("vecadd n={n} PASS on the CPU emulator");
    Ok(true)
}
