//! The 256-bin histogram of `n` bytes: block-shared atomics, then one global atomic per bin
//! per block.
//!
//! `histogram [N]` (N defaults to 2^28). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when this
//! machine or build cannot run kernels.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};

use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

const BINS: usize = 256;

#[kernel(grid = "1d")]
pub fn histogram(bytes: &[u32], bins: &[AtomicU32], counts: Shared<[AtomicU32; BINS]>) {
    let counts = counts.init(|_| AtomicU32::new(0)).sync();
    // Four bytes per word, as CUDA histograms read them.
    let stride = thread::grid_dim_x() as usize * thread::block_dim_x() as usize;
    let mut i = thread::index_1d();
    while i < bytes.len() {
        let word = bytes[i];
        for shift in [0, 8, 16, 24] {
            let bin = (word >> shift) & 0xff;
            counts[bin as usize].fetch_add(1, Ordering::Relaxed);
        }
        i += stride;
    }
    let counts = counts.sync().sync();
    let mut bin = thread::thread_idx_x() as usize;
    while bin < BINS {
        let count = counts[bin].load(Ordering::Relaxed);
        if count != 0 {
            bins[bin].fetch_add(count, Ordering::Relaxed);
        }
        bin += thread::block_dim_x() as usize;
    }
}

const BLOCK: u32 = 256;
/// 8 blocks of 256 threads per SM of the H200 (132 SMs): a full machine.
const MAX_BLOCKS: usize = 8 * 132;

/// The launch shape over `words` words: at least 8 words per thread, at most [`MAX_BLOCKS`].
fn shape(words: usize) -> LaunchConfig {
    let blocks = words.div_ceil(BLOCK as usize * 8).clamp(1, MAX_BLOCKS) as u32;
    LaunchConfig {
        grid: (blocks, 1, 1),
        block: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `n` bytes (rounded up to whole words), skewed so that some bins are hot, as in images.
fn input(n: usize) -> Vec<u32> {
    (0..n.div_ceil(4))
        .map(|i| {
            let x = (i as u32).wrapping_mul(2_654_435_761);
            let hot = if x.is_multiple_of(4) { 0x4040_4040 } else { x };
            hot ^ (x >> 16 & 0x0707)
        })
        .collect()
}

fn cpu_histogram(words: &[u32]) -> Vec<u32> {
    let mut bins = vec![0u32; BINS];
    for w in words {
        for b in w.to_le_bytes() {
            bins[b as usize] += 1;
        }
    }
    bins
}

fn main() -> ExitCode {
    bench::main("histogram", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    histogram::load(&gpu)?;
    let words = input(n);
    let expected = cpu_histogram(&words);
    let dwords = gpu.htod(&words)?;
    let mut bins = gpu.alloc_zeroed::<u32>(BINS)?;
    let cfg = shape(words.len());
    histogram::launch(&gpu, cfg, &dwords, &mut bins)?;
    let got = gpu.dtoh(&bins)?;
    if let Some(b) = (0..BINS).find(|&b| got[b] != expected[b]) {
        println!(
            "histogram n={n} FAIL at bin {b}: got {} expected {}",
            got[b], expected[b]
        );
        return Ok(false);
    }
    let bytes = words.len() as u64 * size_of::<u32>() as u64;
    bench::report_timed(&gpu, "histogram", n, "", bytes, || {
        histogram::launch(&gpu, cfg, &dwords, &mut bins)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_counts_like_the_cpu() {
        for n in [4, 1001, 256 * 8 * 4 * 2 + 12] {
            let words = input(n);
            let mut bins = vec![0u32; BINS];
            histogram::emulate(&shape(words.len()), &words, &mut bins).unwrap();
            assert_eq!(bins, cpu_histogram(&words), "n = {n}");
        }
    }
}
