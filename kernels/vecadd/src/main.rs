//! `c = a + b` over `n` f32 elements: run on the GPU, check every element, report bandwidth.
//!
//! `vecadd [N]` (N defaults to 2^28; `1048579`, `2^20`, `1<<20` and `3*2^20` work). Exit 0 on
//! PASS, 1 on FAIL or a GPU error, 2 when this machine or build cannot run kernels (no driver,
//! no device, or built without `cargo oxide`).

use std::process::ExitCode;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

// A 1-D launch contract: the launcher rejects 2-D/3-D shapes, and in exchange the kernel's
// `ThreadIndex::linear()` costs what a 1-D index does.
#[kernel(grid = "1d")]
pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = c.get_mut(idx) {
        *out = a[i] + b[i];
    }
}

const BLOCK: u32 = 256;

fn main() -> ExitCode {
    bench::main("vecadd", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    // Find out whether this machine and build can run the kernel before any other work.
    let gpu = Gpu::new(0)?;
    vecadd::load(&gpu)?;

    // Exactly representable inputs and sums, varied across the index range.
    let a: Vec<f32> = (0..n).map(|i| (i % 4096) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n)
        .map(|i| (i.wrapping_mul(7) % 1000) as f32 * 0.25)
        .collect();

    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(n)?;
    let cfg = LaunchConfig::for_num_elems(n, BLOCK)?;

    vecadd::launch(&gpu, cfg, &da, &db, &mut dc)?;
    let c = gpu.dtoh(&dc)?;
    // IEEE addition is exact to the bit on both sides: compare every element exactly.
    for (i, ((&x, &y), &got)) in a.iter().zip(&b).zip(&c).enumerate() {
        let expected = x + y;
        if got.to_bits() != expected.to_bits() {
            println!("vecadd n={n} FAIL at {i}: got {got} expected {expected}");
            return Ok(false);
        }
    }

    let bytes = 3 * n as u64 * size_of::<f32>() as u64;
    bench::report_timed(&gpu, "vecadd", n, "", bytes, || {
        vecadd::launch(&gpu, cfg, &da, &db, &mut dc)
    })
}
