//@ build-pass
//@ compile-flags: -O
//@ ptx-count: 2 max.u64
//! A test that does not change along a loop, `row < side` here, is made once before the loop
//! and not fused with the loop's own test: `row < side && col < side` in the loop would
//! otherwise become `max(row, col) < side` in every iteration (LLVM's CodeGenPrepare sinks
//! comparisons into the blocks that use them, and instruction selection then fuses the two).
//! The loop is unrolled twice; its two loads fuse their tests only in the remainder step after
//! the loop, which runs once (6 `max.u64` without the hoisting: 4 of them in the loop).
use oxide::prelude::*;

/// Element `(row, col)` of the `side × side` matrix `m`, 0 outside it.
fn at(m: &[f32], side: usize, row: usize, col: usize) -> f32 {
    let index = if row < side && col < side {
        row * side + col
    } else {
        usize::MAX
    };
    m.get(index).copied().unwrap_or(0.0)
}

#[kernel(block = "16x16")]
pub fn row_sums(m: &[f32], side: usize, steps: usize, mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let row = thread::block_idx_y() as usize * 16 + thread::thread_idx_y() as usize;
    let x = thread::thread_idx_x() as usize;
    let mut sum = 0.0;
    for t in 0..steps {
        sum += at(m, side, row, t * 16 + x) * at(m, side, row + 16, t * 16 + x);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = sum;
    }
}

fn main() {}
