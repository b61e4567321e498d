//! Tiled matrix transpose through a padded block-shared tile.
//!
//! `transpose [N]` (N defaults to 2^28 elements). Exit 0 on PASS, 1 on FAIL or a GPU error, 2
//! when this machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::{Error, MatrixShape, Rows};
use oxide::prelude::*;
use oxide_bench as bench;

const TILE: usize = 32;
/// Rows of a tile each thread writes: a 32 × 8 block writes 32 rows.
const ROWS_PER_THREAD: usize = 4;

/// `out` is the transpose of `input` (`out.width()` rows of `out.rows()`): the block that owns
/// output tile `(y, x)` reads input tile `(x, y)`. The exact block shape is a launch contract:
/// the block's loops over its tiles then have constant strides and unroll.
#[kernel(block = "32x8")]
pub fn transpose(
    input: Matrix<f32>,
    mut out: BlockTiles<f32, TILE, TILE>,
    tile: Shared<[[f32; TILE + 1]; TILE]>,
) {
    let (bx, by) = (
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
    );
    // The tile's extra column (`c == TILE`) keeps a column's reads in distinct banks; it is
    // never read, and holds 0.
    let tile = tile
        .init(|(r, c)| {
            if c < TILE {
                input.get_or(bx * TILE + r, by * TILE + c, 0.0)
            } else {
                0.0
            }
        })
        .sync();
    if let Some(mut mine) = out.tile_mut() {
        let (r0, c0) = mine.origin();
        for i in 0..ROWS_PER_THREAD {
            if let Some(((row, col), o)) = mine.own_mut((i, 0)) {
                *o = tile[col - c0][row - r0];
            }
        }
    }
}

/// The side of the square matrix for `n` elements: a multiple of 32, at least 32.
fn side(n: usize) -> usize {
    (n.isqrt() / TILE * TILE).max(TILE)
}

fn shape(side: usize) -> LaunchConfig {
    let tiles = side.div_ceil(TILE) as u32;
    LaunchConfig {
        grid: (tiles, tiles, 1),
        block: (TILE as u32, (TILE / ROWS_PER_THREAD) as u32, 1),
        shared_mem_bytes: 0,
    }
}

fn input(side: usize) -> Vec<f32> {
    (0..side * side).map(|i| (i % 100_003) as f32).collect()
}

fn main() -> ExitCode {
    bench::main("transpose", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    transpose::load(&gpu)?;
    let side = side(n);
    let values = input(side);
    let dinput = gpu.htod(&values)?;
    let mut dout = gpu.alloc_zeroed::<f32>(side * side)?;
    let cfg = shape(side);
    transpose::launch(
        &gpu,
        cfg,
        MatrixShape::new(&dinput, side, side)?,
        Rows::new(&mut dout, side)?,
    )?;
    let got = gpu.dtoh(&dout)?;
    for r in 0..side {
        for c in 0..side {
            if got[r * side + c] != values[c * side + r] {
                println!("transpose n={n} FAIL at ({r}, {c}) of {side} x {side}");
                return Ok(false);
            }
        }
    }
    let bytes = 2 * (side * side) as u64 * size_of::<f32>() as u64;
    bench::report_timed(
        &gpu,
        "transpose",
        n,
        &format!("({side} x {side})"),
        bytes,
        || {
            transpose::launch(
                &gpu,
                cfg,
                MatrixShape::new(&dinput, side, side)?,
                Rows::new(&mut dout, side)?,
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_transposes() {
        let side = 64;
        let values = input(side);
        let mut out = vec![f32::NAN; side * side];
        transpose::emulate(
            &shape(side),
            MatrixShape::new(&values[..], side, side).unwrap(),
            Rows::new(&mut out[..], side).unwrap(),
        )
        .unwrap();
        for r in 0..side {
            for c in 0..side {
                assert_eq!(out[r * side + c], values[c * side + r], "({r}, {c})");
            }
        }
    }
}
