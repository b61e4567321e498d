//! `y = a * x + y_in` over `n` f32 elements: run on the GPU, check every element, report
//! bandwidth.
//!
//! `saxpy [N]` (N defaults to 2^28; `1048579`, `2^20`, `1<<20` and `3*2^20` work). Exit 0 on
//! PASS, 1 on FAIL or a GPU error, 2 when this machine or build cannot run kernels (no driver,
//! no device, or built without `cargo oxide`).

use std::process::ExitCode;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

// Two launch contracts: a 1-D grid (the launcher rejects 2-D/3-D shapes, and in exchange the
// kernel's `ThreadIndex::linear()` costs what a 1-D index does), and one length for the three
// slices (the launcher checks it once, so each thread tests its index once, as CUDA's
// `if (i < n)`).
#[kernel(grid = "1d", same_len = "x, y_in, y")]
pub fn saxpy(a: f32, x: &[f32], y_in: &[f32], mut y: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = y.get_mut(idx) {
        *out = a * x[i] + y_in[i];
    }
}

const BLOCK: u32 = 256;
const A: f32 = 1.75;

fn main() -> ExitCode {
    bench::main("saxpy", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    // Find out whether this machine and build can run the kernel before any other work.
    let gpu = Gpu::new(0)?;
    saxpy::load(&gpu)?;

    let x: Vec<f32> = (0..n).map(|i| (i % 10007) as f32 * 0.001).collect();
    let y_in: Vec<f32> = (0..n).map(|i| (i % 1009) as f32 * 0.5 - 250.0).collect();

    let (dx, dy_in) = (gpu.htod(&x)?, gpu.htod(&y_in)?);
    let mut dy = gpu.alloc_zeroed::<f32>(n)?;
    let cfg = LaunchConfig::for_num_elems(n, BLOCK)?;

    saxpy::launch(&gpu, cfg, A, &dx, &dy_in, &mut dy)?;
    let y = gpu.dtoh(&dy)?;
    // The GPU code may or may not contract `a * x + y` into one FMA; both roundings are correct
    // results, so accept exactly either of them and nothing else.
    for (i, ((&xi, &yi), &got)) in x.iter().zip(&y_in).zip(&y).enumerate() {
        let fused = A.mul_add(xi, yi);
        let unfused = A * xi + yi;
        if got.to_bits() != fused.to_bits() && got.to_bits() != unfused.to_bits() {
            println!("saxpy n={n} FAIL at {i}: got {got} expected {fused}");
            return Ok(false);
        }
    }

    let bytes = 3 * n as u64 * size_of::<f32>() as u64;
    bench::report_timed(&gpu, "saxpy", n, "", bytes, || {
        saxpy::launch(&gpu, cfg, A, &dx, &dy_in, &mut dy)
    })
}
