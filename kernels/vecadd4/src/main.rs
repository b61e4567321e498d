//! `c = a + b` over `n` f32 elements in chunks of four (16-byte vector loads and stores) in a
//! grid-stride loop.
//!
//! `vecadd4 [N]` (N defaults to 2^28). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when this
//! machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

/// The four elements of `s` from `first`, if there are four.
#[inline]
fn four(s: &[f32], first: usize) -> Option<&[f32; 4]> {
    s.get(first..)?.first_chunk()
}

#[kernel(grid = "1d")]
pub fn vecadd4(a: &[f32], b: &[f32], mut c: DisjointChunks<f32, 4>) {
    let idx = ThreadIndex::linear();
    let mut chunks = c.grid_stride(&idx);
    for (first, out) in &mut chunks {
        if let (Some(x), Some(y)) = (four(a, first), four(b, first)) {
            for k in 0..4 {
                out[k] = x[k] + y[k];
            }
        }
    }
    if let Some((first, tail)) = chunks.into_remainder() {
        for (k, out) in tail.iter_mut().enumerate() {
            *out = a[first + k] + b[first + k];
        }
    }
}

const BLOCK: u32 = 512;
/// 8 blocks of 512 threads per SM of the H200 (132 SMs).
const MAX_BLOCKS: usize = 8 * 132;

/// The launch shape: one chunk of four per thread for small inputs, a full machine for large.
fn shape(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(4 * BLOCK as usize).clamp(1, MAX_BLOCKS) as u32;
    LaunchConfig {
        grid: (blocks, 1, 1),
        block: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn main() -> ExitCode {
    bench::main("vecadd4", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    vecadd4::load(&gpu)?;
    let (a, b) = bench::addends(n);
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(n)?;
    let cfg = shape(n);
    vecadd4::launch(&gpu, cfg, &da, &db, &mut dc)?;
    let c = gpu.dtoh(&dc)?;
    for (i, ((&x, &y), &got)) in a.iter().zip(&b).zip(&c).enumerate() {
        let expected = x + y;
        if got.to_bits() != expected.to_bits() {
            println!("vecadd4 n={n} FAIL at {i}: got {got} expected {expected}");
            return Ok(false);
        }
    }
    let bytes = 3 * n as u64 * size_of::<f32>() as u64;
    bench::report_timed(&gpu, "vecadd4", n, "", bytes, || {
        vecadd4::launch(&gpu, cfg, &da, &db, &mut dc)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_adds_every_element() {
        for n in [1, 3, 4, 4099, 2 * 4 * 512 + 6] {
            let (a, b) = bench::addends(n);
            let mut c = vec![f32::NAN; n];
            vecadd4::emulate(&shape(n), &a, &b, &mut c).unwrap();
            let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            assert_eq!(c, expected, "n = {n}");
        }
    }
}
