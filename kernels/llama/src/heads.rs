//! Attention's output from flash_attn's `[batch, heads, seq, 128]` to the O projection's
//! `[batch · seq, heads · 128]` (a token's heads side by side): a warp a token's row, each lane
//! 16-byte chunks of it.
//!
//! The O projection contracts over a token's heads and their elements at once, which in the
//! head-major layout are two strides apart: no single GEMM takes that, so the rows move here.
//! flash_attn itself could store them token-major (its `MmaTiles` output over a
//! `[batch · seq, heads · 128]` matrix, a block's tile at its head's columns): that would save
//! this pass, 2 × 32 MiB at 4096 tokens, and is a change to flash_attn's own kernel.

use oxide::prelude::*;

use crate::{CHUNK, HEAD_DIM, HEADS, assert_whole_rows, whole_rows};

/// A token's row of the output: every head's elements.
const ROW: usize = HEADS * HEAD_DIM;

/// `out[b·seq + s][h·128 + d] = attn[b][h][s][d]`: `attn` `[batch, HEADS, seq, HEAD_DIM]`, `out`
/// `[batch · seq, HEADS · HEAD_DIM]` (grid: `batch · seq / 8` blocks of 256, rounded up).
/// `requires`: shapes that break these are refused by the launch (from Python, a
/// `ValueError`), not by a trap; `out.len() / ROW` is `out`'s rows because `out` is whole rows
/// of `ROW` (`whole_rows`, the first `requires`).
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(out.shape(), out.len(), ROW)",
    requires = "attn.len() == out.len()",
    requires = "seq > 0 && (out.len() / ROW).is_multiple_of(seq)"
)]
pub fn heads_to_tokens(attn: &[bf16], seq: usize, mut out: WarpChunkRows<bf16, CHUNK>) {
    assert_whole_rows(&out, ROW);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let (b, s) = (row.row() / seq, row.row() % seq);
    let chunks = attn.as_chunks::<CHUNK>().0;
    row.for_each_chunk(|col, o| {
        let (h, d) = (col / HEAD_DIM, col % HEAD_DIM);
        *o = chunks[(((b * HEADS + h) * seq + s) * HEAD_DIM + d) / CHUNK];
    });
}
