//! Inclusive prefix sum of `n` u32 (wrapping) in three passes: block scans, a scan of the block
//! totals, and the carry added to every element.
//!
//! `scan [N]` (N defaults to 2^25). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when this
//! machine or build cannot run kernels.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};

use oxide::block;
use oxide::host::Error;
use oxide::prelude::*;
use oxide_bench as bench;

const BLOCK: u32 = 1024;

/// Pass 1: each block's inclusive scan of its values, and its total in `totals[block]`.
#[kernel(grid = "1d", block = "1024")]
pub fn scan_blocks(input: &[u32], mut out: DisjointSlice<u32>, totals: &[AtomicU32]) {
    let idx = ThreadIndex::linear();
    let v = input.get(idx.get()).copied().unwrap_or(0);
    let scanned = block::inclusive_scan(v, u32::wrapping_add);
    if thread::thread_idx_x() + 1 == thread::block_dim_x() {
        totals[thread::block_idx_x() as usize].store(scanned, Ordering::Relaxed);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = scanned;
    }
}

/// Pass 2, one block: the inclusive scan of the block totals, in place, in rounds of one value
/// per thread with the running total carried from round to round.
#[kernel(grid = "1d", block = "1024")]
pub fn scan_totals(totals: &[AtomicU32]) {
    let (t, n) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let mut carry = 0u32;
    let rounds = totals.len().div_ceil(n);
    for round in 0..rounds {
        let i = round * n + t;
        let v = totals.get(i).map_or(0, |x| x.load(Ordering::Relaxed));
        let scanned = block::inclusive_scan(v, u32::wrapping_add).wrapping_add(carry);
        if let Some(x) = totals.get(i) {
            x.store(scanned, Ordering::Relaxed);
        }
        // The round's total: what the last thread got, sent to every thread.
        carry = block::broadcast(scanned, n as u32 - 1);
    }
}

/// Pass 3: every element adds the totals of the blocks before its own.
#[kernel(grid = "1d", block = "1024")]
pub fn add_carries(totals: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let b = thread::block_idx_x() as usize;
    if let Some(o) = out.get_mut(idx)
        && b > 0
    {
        *o = o.wrapping_add(totals[b - 1]);
    }
}

fn input(n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 20) ^ (i as u32 & 7))
        .collect()
}

fn cpu_scan(values: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    values
        .iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect()
}

/// The three launches over `n` elements.
fn scan(
    gpu: &Gpu,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
    totals: &mut DeviceBuffer<u32>,
) -> Result<(), Error> {
    let cfg = LaunchConfig::for_num_elems(input.len(), BLOCK)?;
    // Each launch reborrows the buffers (`&mut *out`): a launcher's arguments are generic, so
    // a `&mut` passed on as it is would move into the first launch.
    scan_blocks::launch(gpu, cfg, input, &mut *out, &mut *totals)?;
    scan_totals::launch(
        gpu,
        LaunchConfig::for_num_elems(BLOCK as usize, BLOCK)?,
        &mut *totals,
    )?;
    add_carries::launch(gpu, cfg, &*totals, out)
}

fn main() -> ExitCode {
    bench::main("scan", 1 << 25, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    scan_blocks::load(&gpu)?;
    let values = input(n);
    let expected = cpu_scan(&values);
    let dinput = gpu.htod(&values)?;
    let mut dout = gpu.alloc_zeroed::<u32>(n)?;
    let mut dtotals = gpu.alloc_zeroed::<u32>(n.div_ceil(BLOCK as usize))?;
    scan(&gpu, &dinput, &mut dout, &mut dtotals)?;
    let got = gpu.dtoh(&dout)?;
    if let Some(i) = (0..n).find(|&i| got[i] != expected[i]) {
        println!(
            "scan n={n} FAIL at {i}: got {} expected {}",
            got[i], expected[i]
        );
        return Ok(false);
    }
    let bytes = 2 * n as u64 * size_of::<u32>() as u64;
    bench::report_timed(&gpu, "scan", n, "", bytes, || {
        scan(&gpu, &dinput, &mut dout, &mut dtotals)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_scans_like_the_cpu() {
        for n in [1, 1000, 3 * 1024 + 17] {
            let values = input(n);
            let blocks = n.div_ceil(BLOCK as usize);
            let (mut out, mut totals) = (vec![0u32; n], vec![0u32; blocks]);
            let cfg = LaunchConfig::for_num_elems(n, BLOCK).unwrap();
            scan_blocks::emulate(&cfg, &values, &mut out, &mut totals).unwrap();
            let one = LaunchConfig::for_num_elems(BLOCK as usize, BLOCK).unwrap();
            scan_totals::emulate(&one, &mut totals).unwrap();
            add_carries::emulate(&cfg, &totals, &mut out).unwrap();
            assert_eq!(out, cpu_scan(&values), "n = {n}");
        }
    }
}
