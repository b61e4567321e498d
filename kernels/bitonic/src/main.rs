//! Bitonic sort, one launch per compare-exchange step, each thread owning one pair.
//!
//! `bitonic [N]` (N defaults to 2^28; the sort is of the largest power of two at most N, at most
//! 2^24 elements). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when this machine or build cannot
//! run kernels.

use std::process::ExitCode;

use oxide::host::{DeviceBuffer, Error, Pairs};
use oxide::prelude::*;
use oxide_bench as bench;

const BLOCK: u32 = 256;
/// The largest sort: 64 MiB of keys (the CPU check sorts them too).
const MAX_LOG2: u32 = 24;

/// Step `(k, d)` of the network: the pair `(lo, lo + d)` is put in ascending order when
/// `lo & k == 0`, descending otherwise.
#[kernel(grid = "1d")]
pub fn bitonic_step(k: u32, mut pairs: DisjointPairs<u32>) {
    if let Some((lo, a, b)) = pairs.pair_mut(ThreadIndex::linear()) {
        let ascending = lo & k as usize == 0;
        if (*a > *b) == ascending {
            core::mem::swap(a, b);
        }
    }
}

/// The steps of a bitonic sort of `n` (a power of two) elements, in order: `(k, d)` for
/// `k = 2, 4, ..., n` and `d = k/2, ..., 1`.
fn steps(n: usize) -> impl Iterator<Item = (u32, usize)> {
    (1..=n.trailing_zeros()).flat_map(|log_k| {
        (0..log_k)
            .rev()
            .map(move |log_d| (1u32 << log_k, 1usize << log_d))
    })
}

/// One launch per pair of the sort: `n / 2` threads.
fn shape(n: usize) -> Result<LaunchConfig, Error> {
    Ok(LaunchConfig::for_num_elems((n / 2).max(1), BLOCK)?)
}

/// Sorts `keys` (a power of two of them) on the GPU.
fn sort(gpu: &Gpu, keys: &mut DeviceBuffer<u32>) -> Result<(), Error> {
    let n = keys.len();
    let cfg = shape(n)?;
    for (k, d) in steps(n) {
        bitonic_step::launch(gpu, cfg, k, Pairs::new(&mut *keys, d)?)?;
    }
    Ok(())
}

/// The largest power of two at most `n`, at most 2^MAX_LOG2, at least 2.
fn size(n: usize) -> usize {
    let log2 = n.max(2).ilog2().min(MAX_LOG2);
    1 << log2
}

/// Pseudo-random keys (xorshift), with repeats.
fn keys(n: usize) -> Vec<u32> {
    let mut state = 0x2545_f491u32;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if i % 7 == 0 { state % 1000 } else { state }
        })
        .collect()
}

fn main() -> ExitCode {
    bench::main("bitonic", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    bitonic_step::load(&gpu)?;
    let count = size(n);
    let input = keys(count);
    let mut dkeys = gpu.htod(&input)?;
    sort(&gpu, &mut dkeys)?;
    let got = gpu.dtoh(&dkeys)?;
    let mut expected = input.clone();
    expected.sort_unstable();
    if let Some(i) = (0..count).find(|&i| got[i] != expected[i]) {
        println!(
            "bitonic n={n} FAIL at {i} of {count}: got {}, expected {}",
            got[i], expected[i]
        );
        return Ok(false);
    }
    // Every step reads and writes every element once.
    let bytes = 2 * count as u64 * size_of::<u32>() as u64 * steps(count).count() as u64;
    let mut dwork = gpu.htod(&input)?;
    bench::report_timed(
        &gpu,
        "bitonic",
        n,
        &format!("({count} keys)"),
        bytes,
        || sort(&gpu, &mut dwork),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_sorts() {
        for count in [2, 64, 1024] {
            let input = keys(count);
            let mut data = input.clone();
            let cfg = shape(count).unwrap();
            for (k, d) in steps(count) {
                bitonic_step::emulate(&cfg, k, Pairs::new(&mut data[..], d).unwrap()).unwrap();
            }
            let mut expected = input;
            expected.sort_unstable();
            assert_eq!(data, expected, "{count} keys");
        }
    }

    #[test]
    fn the_network_has_the_steps_of_a_bitonic_sort() {
        assert_eq!(
            steps(8).collect::<Vec<_>>(),
            [(2, 1), (4, 2), (4, 1), (8, 4), (8, 2), (8, 1)]
        );
        assert_eq!(steps(1 << 24).count(), 24 * 25 / 2);
        assert_eq!(
            (size(1 << 28), size(1_048_579), size(1)),
            (1 << 24, 1 << 20, 2)
        );
    }
}
