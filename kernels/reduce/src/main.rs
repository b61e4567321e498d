//! The sum of `n` u32 values as a u64: grid-stride accumulation, a block sum, one atomic per
//! block.
//!
//! `reduce [N]` (N defaults to 2^28). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when this
//! machine or build cannot run kernels.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use oxide::block;
use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

#[kernel(grid = "1d")]
pub fn block_sum(input: &[u32], total: &[AtomicU64]) {
    let stride = thread::grid_dim_x() as usize * thread::block_dim_x() as usize;
    let mut acc = 0u64;
    let mut i = thread::index_1d();
    while i < input.len() {
        acc += u64::from(input[i]);
        i += stride;
    }
    let block_total = block::sum(acc);
    if thread::thread_idx_x() == 0 {
        total[0].fetch_add(block_total, Ordering::Relaxed);
    }
}

const BLOCK: u32 = 256;
/// 8 blocks of 256 threads per SM of the H200 (132 SMs): a full machine.
const MAX_BLOCKS: usize = 8 * 132;

/// The launch shape: at least 8 elements per thread, at most [`MAX_BLOCKS`] blocks.
fn shape(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(BLOCK as usize * 8).clamp(1, MAX_BLOCKS) as u32;
    LaunchConfig {
        grid: (blocks, 1, 1),
        block: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn input(n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 8)
        .collect()
}

fn main() -> ExitCode {
    bench::main("reduce", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    block_sum::load(&gpu)?;
    let values = input(n);
    let expected: u64 = values.iter().map(|&v| u64::from(v)).sum();
    let dinput = gpu.htod(&values)?;
    let mut total = gpu.alloc_zeroed::<u64>(1)?;
    let cfg = shape(n);
    block_sum::launch(&gpu, cfg, &dinput, &mut total)?;
    let got = gpu.dtoh(&total)?[0];
    if got != expected {
        println!("reduce n={n} FAIL: got {got} expected {expected}");
        return Ok(false);
    }
    let bytes = n as u64 * size_of::<u32>() as u64;
    bench::report_timed(&gpu, "reduce", n, "", bytes, || {
        block_sum::launch(&gpu, cfg, &dinput, &mut total)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_sums_like_the_cpu() {
        for n in [1, 1000, 256 * 8 * 3 + 5] {
            let values = input(n);
            let mut total = [0u64];
            block_sum::emulate(&shape(n), &values, &mut total).unwrap();
            assert_eq!(
                total[0],
                values.iter().map(|&v| u64::from(v)).sum::<u64>(),
                "n = {n}"
            );
        }
    }
}
