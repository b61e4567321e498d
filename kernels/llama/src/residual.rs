//! The layer's last residual add, `out = a + b` in bf16 (rounded from f32, as torch's), rows
//! of [`HIDDEN`], a warp a row. (The add after attention is fused into `add_rmsnorm`; a stack
//! of layers would fuse this one into the next layer's first norm the same way.)

use oxide::prelude::*;

use crate::{CHUNK, HIDDEN, added, assert_whole_rows, whole_rows};

/// `out = a + b`, each `[tokens, HIDDEN]`, a warp a row, each lane its chunks `lane, lane + 32,
/// ...` (grid: `tokens / 8` blocks of 256, rounded up). `same_len` and `requires`: inputs of
/// two lengths, or of another length than `out`, are refused by the launch (a Python
/// exception), not by a trap, which would poison the calling process's CUDA context; that
/// `out` is whole rows of [`HIDDEN`] (`assert_whole_rows`, which makes equal lengths a row of
/// each input a row) is still the kernel's to check.
#[kernel(
    grid = "1d",
    block = "256",
    same_len = "a, b",
    requires = "whole_rows(out.shape(), out.len(), HIDDEN)",
    requires = "a.len() == out.len()"
)]
pub fn residual_add(a: &[bf16], b: &[bf16], mut out: WarpChunkRows<bf16, CHUNK>) {
    assert_whole_rows(&out, HIDDEN);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    // The row's chunks of each input, checked once.
    let from = row.row() * (HIDDEN / CHUNK);
    let a = &a.as_chunks::<CHUNK>().0[from..from + HIDDEN / CHUNK];
    let b = &b.as_chunks::<CHUNK>().0[from..from + HIDDEN / CHUNK];
    row.for_each_chunk(|col, o| *o = added(a[col / CHUNK], b[col / CHUNK]));
}
