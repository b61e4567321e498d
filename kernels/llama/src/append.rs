//! A decode step's RoPE and KV-cache append: `rope_append` takes the new token's QKV row of
//! each sequence (`qkv [batch, QKV_WIDTH]`, the QKV GEMV's output), rotates its query and key
//! heads at the sequence's position, writes the queries to `q [batch · HEADS, HEAD_DIM]` and
//! the key and value heads into the caches at that position (flash_attn's head-major layout,
//! `[batch, KV_HEADS, max_seq, HEAD_DIM]`).
//!
//! The position is read from `lens` on the device (`lens[b]` keys once this step's is
//! appended, so the new token is at `lens[b] - 1`), not passed as a number: a CUDA graph of
//! the step then replays at any length, the caller updating `lens` between replays.
//!
//! A position read from memory is a write address no output type can prove disjoint (each of
//! oxide's outputs ties an element to a thread or a warp by index), so the caches are written
//! as `&[AtomicI32]`, a word (two bf16) at a time with relaxed atomic stores: each word has one
//! writer, the store is a plain `st` on the GPU, and nothing reads the caches in this kernel.
//!
//! A warp a query head row (lanes 0..16 a 16-byte chunk each); the warps of query heads
//! `0..16` of a sequence also move its key heads (`h < 8`, rotated) and value heads
//! (`8 <= h < 16`, copied): one launch, `batch · HEADS` warps.

use core::sync::atomic::{AtomicI32, Ordering};

use oxide::prelude::*;
use oxide::warp;

use crate::rope::rotate;
use crate::{
    CHUNK, Chunk, HEAD_DIM, HEADS, KV_HEADS, QKV_WIDTH, assert_whole_rows, chunk, whole_rows,
};

/// A head row's 16-byte chunks, and the lanes that take one.
const HEAD_CHUNKS: usize = HEAD_DIM / CHUNK;
/// 32-bit words of a head row in the caches.
const HEAD_WORDS: usize = HEAD_DIM / 2;

/// The new token's position in sequence `b`, `lens[b] - 1`, below `max_seq`; traps otherwise.
#[inline(always)]
pub(crate) fn new_position(lens: &[i32], b: usize, max_seq: usize) -> usize {
    let len = lens[b];
    assert!(
        len >= 1 && len as usize <= max_seq,
        "1 <= lens[b] <= max_seq"
    );
    len as usize - 1
}

/// `chunk`'s eight bf16 as four little-endian words: element `2i` the low half of word `i`.
#[inline(always)]
fn words(chunk: &Chunk) -> [i32; CHUNK / 2] {
    core::array::from_fn(|i| {
        (u32::from(chunk[2 * i].to_bits()) | (u32::from(chunk[2 * i + 1].to_bits()) << 16)) as i32
    })
}

/// See the module: `qkv` `[batch, QKV_WIDTH]`, `table` RoPE's `[max_seq, HEAD_DIM]` f32 (as
/// `rope_qkv`'s), `lens` `[batch]` (`i32`: torch's `int32`), `k_cache` and `v_cache` `[batch, KV_HEADS, max_seq,
/// HEAD_DIM]` bf16 seen as `i32` pairs, `q` `[batch · HEADS, HEAD_DIM]` (grid: `batch · HEADS /
/// 8` blocks of 256). `same_len` and `requires`: caches of two lengths, and shapes that break
/// these, are refused by the launch (a Python exception), not by a trap, which would poison the
/// calling process's CUDA context. The conditions are checked in order, each only once those
/// before it hold: the last divides by `lens.len()`, which the first refuses to be 0. `q.len()`
/// is its rows of `HEAD_DIM` because `q` is whole rows (`whole_rows`, the first `requires`);
/// a position read from `lens` can only be checked there too (`new_position`).
#[kernel(
    grid = "1d",
    block = "256",
    same_len = "k_cache, v_cache",
    requires = "whole_rows(q.shape(), q.len(), HEAD_DIM)",
    requires = "lens.len() > 0 && qkv.len() == lens.len() * QKV_WIDTH && q.len() == lens.len() * HEADS * HEAD_DIM",
    requires = "k_cache.len().is_multiple_of(lens.len() * KV_HEADS * HEAD_WORDS)",
    requires = "table.len() / HEAD_DIM >= k_cache.len() / (lens.len() * KV_HEADS * HEAD_WORDS)"
)]
pub fn rope_append(
    qkv: &[bf16],
    table: &[f32],
    lens: &[i32],
    k_cache: &[AtomicI32],
    v_cache: &[AtomicI32],
    mut q: WarpChunkRows<bf16, CHUNK>,
) {
    assert_whole_rows(&q, HEAD_DIM);
    let max_seq = k_cache.len() / (lens.len() * KV_HEADS * HEAD_WORDS);
    let Some(mut row) = q.row_mut() else {
        return;
    };
    let (b, h) = (row.row() / HEADS, row.row() % HEADS);
    let position = new_position(lens, b, max_seq);
    let lane = warp::lane_id() as usize;
    if lane >= HEAD_CHUNKS {
        return;
    }
    let d = lane * CHUNK;
    // The chunk of head `head` of the token's QKV row at element `d`, and its RoPE pair.
    let rotated = |head: usize| {
        let at = (b * QKV_WIDTH + head * HEAD_DIM + d) / CHUNK;
        let pair = if d < HEAD_DIM / 2 {
            at + HEAD_CHUNKS / 2
        } else {
            at - HEAD_CHUNKS / 2
        };
        rotate(chunk(qkv, at), chunk(qkv, pair), table, position, d)
    };
    if let Some((_, out)) = row.chunk_mut(0) {
        *out = rotated(h);
    }
    if h < 2 * KV_HEADS {
        let kv = h % KV_HEADS;
        let (values, cache) = if h < KV_HEADS {
            (rotated(HEADS + h), k_cache)
        } else {
            (
                chunk(qkv, (b * QKV_WIDTH + (HEADS + h) * HEAD_DIM + d) / CHUNK),
                v_cache,
            )
        };
        let first = ((b * KV_HEADS + kv) * max_seq + position) * HEAD_WORDS + d / 2;
        let words = words(&values);
        for i in 0..CHUNK / 2 {
            cache[first + i].store(words[i], Ordering::Relaxed);
        }
    }
}
