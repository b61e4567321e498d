//! One step of a 2-D 5-point stencil through a block-shared tile with a one-cell halo.
//!
//! `stencil [N]` (N defaults to 2^28 cells). Exit 0 on PASS, 1 on FAIL or a GPU error, 2 when
//! this machine or build cannot run kernels.

use std::process::ExitCode;

use oxide::host::{Error, Rows};
use oxide::prelude::*;
use oxide_bench as bench;

const TILE: usize = 16;
const CENTER: f32 = 0.5;
const SIDE: f32 = 0.125;

/// The stencil at one cell from its value and its four neighbours', in a fixed order.
#[inline]
fn step(c: f32, n: f32, s: f32, w: f32, e: f32) -> f32 {
    CENTER * c + SIDE * (((n + s) + w) + e)
}

/// `out` (rows of `out.width()`) is one stencil step of `input` (the same shape).
#[kernel(block = "16x16", strict_float)]
pub fn stencil(
    input: &[f32],
    mut out: DisjointRows<f32>,
    tile: Shared<[[f32; TILE + 2]; TILE + 2]>,
) {
    let (width, rows) = (out.width(), out.rows());
    let (bx, by) = (
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
    );
    // Tile cell (r, c) is grid cell (by·16 + r - 1, bx·16 + c - 1), 0 outside the grid.
    let tile = tile
        .init(|(r, c)| {
            let (row, col) = (
                (by * TILE + r).wrapping_sub(1),
                (bx * TILE + c).wrapping_sub(1),
            );
            let inside = row < rows && col < width;
            let value = input
                .get(row.wrapping_mul(width).wrapping_add(col))
                .copied();
            if inside { value.unwrap_or(0.0) } else { 0.0 }
        })
        .sync();
    let (x, y) = (
        thread::thread_idx_x() as usize + 1,
        thread::thread_idx_y() as usize + 1,
    );
    let value = step(
        tile[y][x],
        tile[y - 1][x],
        tile[y + 1][x],
        tile[y][x - 1],
        tile[y][x + 1],
    );
    if let Some((_, cell)) = out.at_thread() {
        *cell = value;
    }
}

/// The side of the square grid for `n` cells: a multiple of 16, at least 16.
fn side(n: usize) -> usize {
    (n.isqrt() / TILE * TILE).max(TILE)
}

fn shape(side: usize) -> LaunchConfig {
    let tiles = side.div_ceil(TILE) as u32;
    LaunchConfig {
        grid: (tiles, tiles, 1),
        block: (TILE as u32, TILE as u32, 1),
        shared_mem_bytes: 0,
    }
}

fn input(side: usize) -> Vec<f32> {
    (0..side * side)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 16) as f32 / 64.0)
        .collect()
}

fn cpu_stencil(x: &[f32], side: usize) -> Vec<f32> {
    let at = |r: isize, c: isize| {
        if r < 0 || c < 0 || r >= side as isize || c >= side as isize {
            0.0
        } else {
            x[r as usize * side + c as usize]
        }
    };
    (0..side * side)
        .map(|i| {
            let (r, c) = ((i / side) as isize, (i % side) as isize);
            step(
                at(r, c),
                at(r - 1, c),
                at(r + 1, c),
                at(r, c - 1),
                at(r, c + 1),
            )
        })
        .collect()
}

fn main() -> ExitCode {
    bench::main("stencil", 1 << 28, run)
}

/// Prints the PASS or FAIL line; `Ok(false)` on FAIL.
fn run(n: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    stencil::load(&gpu)?;
    let side = side(n);
    let values = input(side);
    let expected = cpu_stencil(&values, side);
    let dinput = gpu.htod(&values)?;
    let mut dout = gpu.alloc_zeroed::<f32>(side * side)?;
    let cfg = shape(side);
    stencil::launch(&gpu, cfg, &dinput, Rows::new(&mut dout, side)?)?;
    let got = gpu.dtoh(&dout)?;
    if let Some(i) = (0..side * side).find(|&i| got[i].to_bits() != expected[i].to_bits()) {
        println!(
            "stencil n={n} FAIL at ({}, {}): got {} expected {}",
            i / side,
            i % side,
            got[i],
            expected[i]
        );
        return Ok(false);
    }
    let bytes = 2 * (side * side) as u64 * size_of::<f32>() as u64;
    bench::report_timed(
        &gpu,
        "stencil",
        n,
        &format!("({side} x {side})"),
        bytes,
        || stencil::launch(&gpu, cfg, &dinput, Rows::new(&mut dout, side)?),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_matches_the_cpu_bit_for_bit() {
        let side = 48;
        let values = input(side);
        let mut out = vec![f32::NAN; side * side];
        stencil::emulate(
            &shape(side),
            &values,
            Rows::new(&mut out[..], side).unwrap(),
        )
        .unwrap();
        let expected = cpu_stencil(&values, side);
        assert!(
            out.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
    }
}
