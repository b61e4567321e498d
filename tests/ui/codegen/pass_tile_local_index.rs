//@ build-pass
//@ compile-flags: -O
//@ ptx-not: trap
//! A tile's absolute position minus its origin is the thread's position in the tile, below 32
//! with a 32 × 8 block: indexing the shared tile with it needs no bounds check (LLVM writes
//! `origin + local` as `origin | local` and then does not take `local` back out of it).
use oxide::prelude::*;

#[kernel(block = "32x8")]
pub fn transpose(
    input: &[f32],
    mut out: BlockTiles<f32, 32, 32>,
    tile: Shared<[[f32; 33]; 32]>,
) {
    let (rows, cols) = (out.width(), out.rows());
    let (bx, by) = (
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
    );
    let tile = tile
        .init(|(r, c)| {
            let (row, col) = (bx * 32 + r, by * 32 + c);
            let inside = c < 32 && row < rows && col < cols;
            let value = input.get(row * cols + col).copied().unwrap_or(0.0);
            if inside { value } else { 0.0 }
        })
        .sync();
    if let Some(mut mine) = out.tile_mut() {
        let (r0, c0) = mine.origin();
        for i in 0..4 {
            if let Some(((row, col), o)) = mine.own_mut((i, 0)) {
                *o = tile[col - c0][row - r0];
            }
        }
    }
}

fn main() {}
