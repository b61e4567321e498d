//! Tiled single-precision matrix multiply `C = A·B` through block-shared tiles, with register
//! blocking: each thread accumulates a 4 × 4 block of `C` in registers.
//!
//! `sgemm [N]` (N defaults to 2^28 elements: the side of the square matrices is the largest
//! multiple of 64 whose square is at most N, at most 4096). Exit 0 on PASS, 1 on FAIL or a GPU
//! error, 2 when this machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::{Error, MatrixShape, Rows};
use oxide::prelude::*;
use oxide::shared::{SharedLayout, SharedWrite};
use oxide_bench as bench;

/// Rows and columns of the tile of `C` a block computes.
const TILE: usize = 64;
/// The `k` extent of the tiles of `A` and `B` in shared memory.
const BK: usize = 16;
/// Threads per block on each axis (`block = "16x16"`).
const THREADS: usize = 16;
/// Rows (and columns) of `C` per thread: thread `(x, y)` computes `(y + 16i, x + 16j)`.
const PER: usize = TILE / THREADS;
/// The largest side the program multiplies.
const MAX_SIDE: usize = 4096;

/// Writes the thread's slots `(i, j)`, `i < rows`, `j < cols` (`own_mut((i, j))`), of a shared
/// array's write phase with `value((i, j))`.
#[inline]
fn refill<A>(
    tile: &mut SharedWrite<'_, A>,
    (rows, cols): (usize, usize),
    mut value: impl FnMut((usize, usize)) -> f32,
) where
    A: SharedLayout<Elem = f32, Own = (usize, usize)>,
{
    for i in 0..rows {
        for j in 0..cols {
            if let Some(slot) = tile.own_mut((i, j)) {
                *slot = value((i, j));
            }
        }
    }
}

/// `c = a · b` for square `side × side` row-major matrices, `side = c.width()`. Block `(bx, by)`
/// computes the 64 × 64 tile of `c` at `(64·by, 64·bx)`; it walks `k` in steps of 16, staging
/// the 64 × 16 tile of `a` and the 16 × 64 tile of `b` in shared memory (each thread loads four
/// elements of each: its slots of the tiles), and thread `(x, y)` accumulates its 16 elements
/// `(y + 16i, x + 16j)` of the tile (its slots of `BlockTiles<f32, 64, 64>`) in registers.
#[kernel(block = "16x16")]
pub fn sgemm(
    a: Matrix<f32>,
    b: Matrix<f32>,
    mut c: BlockTiles<f32, TILE, TILE>,
    a_tile: Shared<[[f32; BK]; TILE]>,
    b_tile: Shared<[[f32; TILE]; BK]>,
) {
    let side = c.width();
    let (row0, col0) = (
        thread::block_idx_y() as usize * TILE,
        thread::block_idx_x() as usize * TILE,
    );
    let (x, y) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
    );
    // The thread's slots of the tiles at `k0`: a_tile's (y + 16i, x) and b_tile's (y, x + 16j),
    // i, j < 4 (the ownership rule of a 2-D `Shared`). All eight are loaded before any is
    // written, so that they are in flight together rather than each behind the test of its
    // slot's owner (loading inside `refill`'s closure costs the loop 4 more instructions).
    let load = |k0: usize| {
        let av: [f32; PER] =
            core::array::from_fn(|i| a.get_or(row0 + y + THREADS * i, k0 + x, 0.0));
        let bv: [f32; PER] =
            core::array::from_fn(|j| b.get_or(k0 + y, col0 + x + THREADS * j, 0.0));
        (av, bv)
    };
    let (av, bv) = load(0);
    let mut a_w = a_tile.init(|(r, _)| av[r / THREADS]);
    let mut b_w = b_tile.init(|(_, cc)| bv[cc / THREADS]);
    let mut acc = [[0.0f32; PER]; PER];
    for t in 0..side.div_ceil(BK) {
        if t > 0 {
            let (av, bv) = load(t * BK);
            refill(&mut a_w, (PER, 1), |(i, _)| av[i]);
            refill(&mut b_w, (1, PER), |(_, j)| bv[j]);
        }
        let (a_r, b_r) = (a_w.sync(), b_w.sync());
        for k in unroll(0..BK) {
            let av: [f32; PER] = core::array::from_fn(|i| a_r[y + THREADS * i][k]);
            let bv: [f32; PER] = core::array::from_fn(|j| b_r[k][x + THREADS * j]);
            for (acc_row, &a) in acc.iter_mut().zip(&av) {
                for (c, &b) in acc_row.iter_mut().zip(&bv) {
                    *c += a * b;
                }
            }
        }
        (a_w, b_w) = (a_r.sync(), b_r.sync());
    }
    if let Some(mut tile) = c.tile_mut() {
        for (i, acc_row) in acc.iter().enumerate() {
            for (j, &value) in acc_row.iter().enumerate() {
                if let Some((_, out)) = tile.own_mut((i, j)) {
                    *out = value;
                }
            }
        }
    }
}

/// The side of the square matrices for `n` elements: a multiple of 64, at least 64, at most
/// 4096.
fn side(n: usize) -> usize {
    (n.isqrt() / TILE * TILE).clamp(TILE, MAX_SIDE)
}

fn shape(side: usize) -> LaunchConfig {
    let tiles = side.div_ceil(TILE) as u32;
    LaunchConfig {
        grid: (tiles, tiles, 1),
        block: (THREADS as u32, THREADS as u32, 1),
        shared_mem_bytes: 0,
    }
}

/// `A` and `B`: multiples of 1/8 and 1/4 in [-1, 1] and [-1.5, 1.5], so that every partial sum
/// of a row-column product is exact in f32 at these sides (whatever the order and the FMAs).
fn inputs(side: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..side * side)
        .map(|i| ((i * 7 + 3) % 17) as f32 / 8.0 - 1.0)
        .collect();
    let b = (0..side * side)
        .map(|i| ((i * 5 + 1) % 13) as f32 / 4.0 - 1.5)
        .collect();
    (a, b)
}

/// `Err((exact, bound))` when `got` is not within the tolerance of the f64 product at `(r, c)`:
/// `1e-3 · Σ_k |a[r][k]·b[k][c]| + 1e-5`.
fn check(
    a: &[f32],
    b: &[f32],
    side: usize,
    r: usize,
    c: usize,
    got: f32,
) -> Result<(), (f64, f64)> {
    let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
    for k in 0..side {
        let p = f64::from(a[r * side + k]) * f64::from(b[k * side + c]);
        exact += p;
        magnitude += p.abs();
    }
    let bound = 1e-3 * magnitude + 1e-5;
    if (f64::from(got) - exact).abs() <= bound {
        Ok(())
    } else {
        Err((exact, bound))
    }
}

/// 64 × 64 positions spread over the matrix, the four corners among them.
fn samples(side: usize) -> impl Iterator<Item = (usize, usize)> {
    let at = move |p: usize| p * (side - 1) / 63;
    (0..64).flat_map(move |p| (0..64).map(move |q| (at(p), at(q))))
}

fn main() -> ExitCode {
    bench::main("sgemm", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    sgemm::load(&gpu)?;
    let side = side(n);
    let (a, b) = inputs(side);
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(side * side)?;
    let cfg = shape(side);
    let (ma, mb) = (
        MatrixShape::new(&da, side, side)?,
        MatrixShape::new(&db, side, side)?,
    );
    sgemm::launch(&gpu, cfg, ma, mb, Rows::new(&mut dc, side)?)?;
    let got = gpu.dtoh(&dc)?;
    for (r, c) in samples(side) {
        if let Err((exact, bound)) = check(&a, &b, side, r, c, got[r * side + c]) {
            println!(
                "sgemm n={n} FAIL at ({r}, {c}) of {side} x {side}: got {} expected {exact} (tolerance {bound})",
                got[r * side + c]
            );
            return Ok(false);
        }
    }
    let bytes = 3 * (side * side) as u64 * size_of::<f32>() as u64;
    bench::report_timed(
        &gpu,
        "sgemm",
        n,
        &format!("({side} x {side})"),
        bytes,
        || {
            let (ma, mb) = (
                MatrixShape::new(&da, side, side)?,
                MatrixShape::new(&db, side, side)?,
            );
            sgemm::launch(&gpu, cfg, ma, mb, Rows::new(&mut dc, side)?)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides() {
        assert_eq!(side(1 << 28), 4096);
        assert_eq!(side(1_048_579), 1024);
        assert_eq!(side(64 * 64 + 4095), 64);
        assert_eq!(side(128 * 128), 128);
        assert_eq!(side(1), 64);
        assert!(samples(1024).any(|p| p == (1023, 0)));
        assert!(samples(1024).any(|p| p == (0, 1023)));
        assert!(samples(1024).any(|p| p == (1023, 1023)));
    }

    #[test]
    fn the_emulator_multiplies() {
        let side = 128;
        let (a, b) = inputs(side);
        let mut out = vec![f32::NAN; side * side];
        let (ma, mb) = (
            MatrixShape::new(&a[..], side, side).unwrap(),
            MatrixShape::new(&b[..], side, side).unwrap(),
        );
        sgemm::emulate(&shape(side), ma, mb, Rows::new(&mut out[..], side).unwrap()).unwrap();
        for r in 0..side {
            for c in 0..side {
                if let Err((exact, bound)) = check(&a, &b, side, r, c, out[r * side + c]) {
                    panic!(
                        "({r}, {c}): got {} expected {exact} (tolerance {bound})",
                        out[r * side + c]
                    );
                }
            }
        }
    }
}
