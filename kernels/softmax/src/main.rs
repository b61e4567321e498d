//! Row softmax, one warp per row.
//!
//! `softmax [N]` (N defaults to 2^28 elements). Exit 0 on PASS, 1 on FAIL or a GPU error, 2
//! when this machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::{Error, Rows};
use oxide::prelude::*;
use oxide::warp::{self, WARP_SIZE};
use oxide_bench as bench;

/// `out` row `r` is the softmax of `input` row `r`, rows of [`WIDTH`] (as the CUDA twin, the
/// width is a constant, so the loops over a lane's columns unroll; a buffer of another width
/// traps).
#[kernel(grid = "1d", block = "256")]
pub fn softmax(input: &[f32], mut out: WarpRows<f32>) {
    assert!(out.width() == WIDTH, "rows of {WIDTH}");
    // Whole warps leave here (past the last row, or past the input's end): the row is the
    // warp's, so what follows is reached by whole warps and may use warp collectives.
    let Some(mut row) = out.row_mut() else {
        return;
    };
    // The warp's input row, bounds-checked once, as an array of chunks of 32 columns: lane `l`
    // reads column `l` of each (`chunk[lane]`, `lane < 32`), so no read needs a check of its
    // own, the loops over the 32 chunks unroll, and a lane's loads are issued back to back.
    let Some(chunks) = input
        .get(row.row() * WIDTH..(row.row() + 1) * WIDTH)
        .and_then(|xs| <&[[f32; LANES]; CHUNKS]>::try_from(xs.as_chunks::<LANES>().0).ok())
    else {
        return;
    };
    let lane = warp::lane_id() as usize;
    let mut max = f32::NEG_INFINITY;
    for chunk in chunks {
        max = max.max(chunk[lane]);
    }
    let max = warp::max(max);
    // `#pragma unroll`, as CUDA would write it: the 32 loads of the first loop stay in
    // registers for this one, and the row is read from memory once more, not twice.
    let mut sum = 0.0f32;
    for chunk in unroll(chunks) {
        sum += (chunk[lane] - max).exp();
    }
    let sum = warp::sum(sum);
    for (k, chunk) in unroll(chunks.iter().enumerate()) {
        if let Some((_, o)) = row.own_mut(k) {
            *o = (chunk[lane] - max).exp() / sum;
        }
    }
}

/// Lanes of a warp: a lane's columns are `lane + 32k`.
const LANES: usize = WARP_SIZE as usize;
/// Chunks of 32 columns in a row.
const CHUNKS: usize = WIDTH / LANES;

const WIDTH: usize = 1024;
const BLOCK: u32 = 256;

fn shape(rows: usize) -> LaunchConfig {
    let warps_per_block = BLOCK as usize / WARP_SIZE as usize;
    LaunchConfig {
        grid: (rows.div_ceil(warps_per_block) as u32, 1, 1),
        block: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn input(rows: usize) -> Vec<f32> {
    (0..rows * WIDTH)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 20) as f32 / 256.0 - 8.0)
        .collect()
}

fn cpu_softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = row.iter().map(|&v| f64::from(v - max).exp()).sum();
    row.iter()
        .map(|&v| (f64::from(v - max).exp() / sum) as f32)
        .collect()
}

fn main() -> ExitCode {
    bench::main("softmax", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    softmax::load(&gpu)?;
    let rows = (n / WIDTH).max(1);
    let values = input(rows);
    let dinput = gpu.htod(&values)?;
    let mut dout = gpu.alloc_zeroed::<f32>(rows * WIDTH)?;
    let cfg = shape(rows);
    softmax::launch(&gpu, cfg, &dinput, Rows::new(&mut dout, WIDTH)?)?;
    let got = gpu.dtoh(&dout)?;
    for r in 0..rows {
        let expected = cpu_softmax(&values[r * WIDTH..(r + 1) * WIDTH]);
        for c in 0..WIDTH {
            let g = got[r * WIDTH + c];
            if (g - expected[c]).abs() > 1e-6 {
                println!(
                    "softmax n={n} FAIL at ({r}, {c}): got {g} expected {}",
                    expected[c]
                );
                return Ok(false);
            }
        }
    }
    let bytes = 2 * (rows * WIDTH) as u64 * size_of::<f32>() as u64;
    bench::report_timed(
        &gpu,
        "softmax",
        n,
        &format!("({rows} rows of {WIDTH})"),
        bytes,
        || softmax::launch(&gpu, cfg, &dinput, Rows::new(&mut dout, WIDTH)?),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_matches_the_cpu() {
        let rows = 13;
        let values = input(rows);
        let mut out = vec![f32::NAN; rows * WIDTH];
        softmax::emulate(
            &shape(rows),
            &values,
            Rows::new(&mut out[..], WIDTH).unwrap(),
        )
        .unwrap();
        for r in 0..rows {
            let expected = cpu_softmax(&values[r * WIDTH..(r + 1) * WIDTH]);
            for c in 0..WIDTH {
                assert!(
                    (out[r * WIDTH + c] - expected[c]).abs() <= 1e-6,
                    "({r}, {c})"
                );
            }
        }
    }
}
