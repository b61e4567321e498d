//! RoPE on the fused QKV projection's output, and the move to attention's layout, in one pass:
//! `rope_qkv` reads `qkv [tokens, QKV_WIDTH]` (a token's 32 query heads, then its 8 key heads,
//! then its 8 value heads, 128 columns each) and writes one buffer `[q | k | v]`, each part in
//! flash_attn's `[batch, heads, seq, 128]` layout (`q` with [`HEADS`], `k` and `v` with
//! [`KV_HEADS`]): the three are consecutive views of it, so one launch writes all of them, a warp
//! a row of [`ROPE_ROW`] of the buffer, every lane one 16-byte chunk.
//!
//! The convention is HF Llama's (`rotate_half`): element `i < 64` of a head is paired with
//! `i + 64`, and at position `p` with frequency `f_j = θ^(-2j/128)`, `j = i mod 64`,
//!
//! ```text
//! out[i]      = x[i]·cos(p·f_i) − x[i + 64]·sin(p·f_i)      i < 64
//! out[i + 64] = x[i + 64]·cos(p·f_i) + x[i]·sin(p·f_i)
//! ```
//!
//! on the query and key heads; value heads are copied. The angles come from `table`, built by
//! the caller as HF's `LlamaRotaryEmbedding` builds them (in f32: `p · inv_freq`, its cosines,
//! its sines), row `p` being `[cos(p·f_0) .. cos(p·f_63), sin(p·f_0) .. sin(p·f_63)]`: a table
//! keeps any frequency scaling (Llama 3.1's) out of the kernel, and its values exactly torch's.
//! HF rounds the table to bf16 and each product to bf16; here the products and the sum are f32,
//! rounded once. Positions are `0 .. seq` (a prefill).
//!
//! A thread's chunk of 8 elements needs the 8 paired ones 64 elements away: the other half of
//! the same 256-byte head row, which the warp's neighbouring threads load too (the second load
//! hits L1).

use oxide::prelude::*;

use crate::{CHUNK, HEAD_DIM, HEADS, KV_HEADS, QKV_WIDTH, assert_whole_rows, chunk, whole_rows};

/// Half a head: `rotate_half` pairs element `i` with `i + HALF`.
const HALF: usize = HEAD_DIM / 2;

/// f32 elements in 16 bytes: the table's loads.
const TABLE_CHUNK: usize = 4;

/// Where output element `local` of a part of `H` heads (in `[batch, H, seq, HEAD_DIM]`) comes
/// from: `(position, chunk of qkv)`, the part's heads starting at head `first_head` of a
/// token's QKV row. `local` is a multiple of [`CHUNK`].
#[inline(always)]
fn source<const H: usize>(local: usize, seq: usize, first_head: usize) -> (usize, usize) {
    let d = local % HEAD_DIM;
    // Row `(b·H + h)·seq + s` of the part.
    let row = local / HEAD_DIM;
    let (bh, s) = (row / seq, row % seq);
    let (b, h) = (bh / H, bh % H);
    let token = b * seq + s;
    (
        s,
        (token * QKV_WIDTH + (first_head + h) * HEAD_DIM + d) / CHUNK,
    )
}

/// Eight f32 of `table` from element `at` (a multiple of 8): two 16-byte loads.
#[inline(always)]
fn eight(table: &[f32], at: usize) -> [f32; CHUNK] {
    let chunks = table.as_chunks::<TABLE_CHUNK>().0;
    let (lo, hi) = (chunks[at / TABLE_CHUNK], chunks[at / TABLE_CHUNK + 1]);
    core::array::from_fn(|i| {
        if i < TABLE_CHUNK {
            lo[i]
        } else {
            hi[i - TABLE_CHUNK]
        }
    })
}

/// `x` rotated at `position`, `x` being the chunk at element `d` of its head and `pair` the
/// chunk `HALF` away (`d ± 64`).
#[inline(always)]
pub(crate) fn rotate(
    x: [bf16; CHUNK],
    pair: [bf16; CHUNK],
    table: &[f32],
    position: usize,
    d: usize,
) -> [bf16; CHUNK] {
    let angles = position * HEAD_DIM + d % HALF;
    let (cos, sin) = (eight(table, angles), eight(table, angles + HALF));
    // rotate_half: the lower half takes `-x[i + 64]`, the upper `x[i - 64]`.
    let sign = if d < HALF { -1.0f32 } else { 1.0 };
    core::array::from_fn(|i| {
        let rotated = sign * pair[i].to_f32();
        bf16::from_f32(x[i].to_f32() * cos[i] + rotated * sin[i])
    })
}

/// A warp's row of the output: two rows of a head (or the last of one head and the first of
/// the next), a 16-byte chunk a lane.
pub const ROPE_ROW: usize = 2 * HEAD_DIM;

/// `out = [q | k | v]` from `qkv` (see the module): `qkv` `[batch · seq, QKV_WIDTH]`, `table`
/// `[seq, HEAD_DIM]` f32 (at least `seq` rows), `out` as many elements as `qkv`, seen as rows
/// of [`ROPE_ROW`] (grid: `out.len() / ROPE_ROW / 8` blocks of 256, rounded up). `requires`:
/// shapes that break these are refused by the launch (from Python, a `ValueError`), not by a
/// trap, which would poison the calling process's CUDA context (`qkv` whole sequences of
/// `QKV_WIDTH` rows, `table` a row of `HEAD_DIM` a position, written with divisions so that no
/// `seq` overflows them); that `out` is whole rows of [`ROPE_ROW`] (`assert_whole_rows`) is
/// the kernel's to check.
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(out.shape(), out.len(), ROPE_ROW)",
    requires = "qkv.len() == out.len()",
    requires = "seq > 0 && qkv.len().is_multiple_of(QKV_WIDTH) && (qkv.len() / QKV_WIDTH).is_multiple_of(seq)",
    requires = "table.len() / HEAD_DIM >= seq"
)]
pub fn rope_qkv(qkv: &[bf16], table: &[f32], seq: usize, mut out: WarpChunkRows<bf16, CHUNK>) {
    assert_whole_rows(&out, ROPE_ROW);
    let tokens = qkv.len() / QKV_WIDTH;
    let (q_len, k_len) = (tokens * HEADS * HEAD_DIM, tokens * KV_HEADS * HEAD_DIM);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let start = row.row() * ROPE_ROW;
    row.for_each_chunk(|col, o| {
        let first = start + col;
        let ((position, at), rotated) = if first < q_len {
            (source::<HEADS>(first, seq, 0), true)
        } else if first < q_len + k_len {
            (source::<KV_HEADS>(first - q_len, seq, HEADS), true)
        } else {
            let v = first - q_len - k_len;
            (source::<KV_HEADS>(v, seq, HEADS + KV_HEADS), false)
        };
        let x = chunk(qkv, at);
        *o = if rotated {
            let d = first % HEAD_DIM;
            // The paired chunk: 64 elements, 8 chunks, further on or back in the head.
            let pair = chunk(
                qkv,
                if d < HALF {
                    at + HALF / CHUNK
                } else {
                    at - HALF / CHUNK
                },
            );
            rotate(x, pair, table, position, d)
        } else {
            x
        };
    });
}
