//! Attention for a decode step (flash-decoding): one new query token a sequence against its
//! KV cache, `[batch, KV_HEADS, max_seq, HEAD_DIM]` bf16 (flash_attn's head-major layout), of
//! `lens[b]` valid keys (read on the device, so a CUDA graph replays at any length).
//!
//! `attn_decode_partial`: the keys of each (sequence, KV head) are cut into splits of `split`
//! keys, a warp each, so that even batch 1 has `8 · max_seq / split` warps streaming the cache.
//! The warp serves the 4 query heads that share the KV head (each key and value row is read
//! once for the four), with an online softmax over its keys, and stores one row of
//! [`PARTIAL`] f32: the four heads' unnormalised outputs, their running maxima (log2 domain)
//! and sums. Half a warp takes a key (16 lanes, a 16-byte chunk each: 256 contiguous bytes),
//! so a step of 8 keys has each lane load 4 key chunks and 4 value chunks, all in flight
//! together; a score is the half-warp's sum (`shuffle_xor` 8, 4, 2, 1).
//!
//! `attn_decode_combine`: a warp per (sequence, query head, 8 output elements), its lanes the
//! splits in turn (loads of every split in flight at once), merged by their maxima (`warp::max`,
//! `warp::sum`) and normalised; the output is token-major `[batch, HEADS · HEAD_DIM]`, the O
//! projection's input.
//!
//! Scores are `q·k · scale` in f32, taken to the log2 domain (`· log2 e`) so the exponentials
//! are `ex2.approx` (`fast_exp2`), as FlashAttention's.

use oxide::prelude::*;
use oxide::warp;

use crate::{CHUNK, Chunk, HEAD_DIM, HEADS, KV_HEADS, assert_whole_rows, whole_rows};

/// Query heads a KV head serves.
pub const GROUP: usize = HEADS / KV_HEADS;
/// A head row's 16-byte chunks: a half-warp's lanes.
const HEAD_CHUNKS: usize = HEAD_DIM / CHUNK;
/// Keys of one step of a warp: two a lane's half-warp, `KEY_PAIRS` times.
pub const STEP_KEYS: usize = 8;
const KEY_PAIRS: usize = STEP_KEYS / 2;
/// f32 elements of a partial row's chunks (16-byte stores).
const F32_CHUNK: usize = 4;
/// A partial row: `GROUP · HEAD_DIM` outputs (see [`partial_chunk`]), then the `GROUP` maxima,
/// then the `GROUP` sums.
pub const PARTIAL: usize = GROUP * HEAD_DIM + 2 * GROUP;
/// The chunks of a partial row holding the maxima and the sums (lanes 0 and 1's fifth chunk).
const MAX_CHUNK: usize = GROUP * HEAD_DIM / F32_CHUNK;
const SUM_CHUNK: usize = MAX_CHUNK + 1;

/// The chunk of a partial row that holds head `g`'s outputs `8c + 4e .. 8c + 4e + 4`: the order
/// in which the warp's lanes hold them, so each lane stores its own (lane `16·(g / 2) + c`, its
/// chunk `2·(g % 2) + e` of `WarpChunkRows`' `lane, lane + 32, ...`).
pub const fn partial_chunk(g: usize, c: usize, e: usize) -> usize {
    16 * (g / 2) + c + 32 * (2 * (g % 2) + e)
}

/// `log2(e)`: scores in the log2 domain.
const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// `a · b` over a chunk of each, in f32.
#[inline(always)]
fn dot(a: &[f32; CHUNK], b: &Chunk) -> f32 {
    let mut sum = 0.0f32;
    for i in 0..CHUNK {
        sum += a[i] * b[i].to_f32();
    }
    sum
}

/// `2^(x - max)`, 0 where `x` is −∞ (a masked key; also when `max` is, so no NaN).
#[inline(always)]
fn weight(x: f32, max: f32) -> f32 {
    if x == f32::NEG_INFINITY {
        0.0
    } else {
        (x - max).fast_exp2()
    }
}

/// See the module. `q` `[batch · HEADS, HEAD_DIM]` (rotated), `k_cache`, `v_cache` `[batch,
/// KV_HEADS, max_seq, HEAD_DIM]`, `lens` `[batch]` (each at most `max_seq`), `split` keys a
/// warp (a multiple of 8 dividing `max_seq`), `scale` the scores' (`1/√128`), `partial`
/// `[batch · KV_HEADS · max_seq / split, PARTIAL]` (grid: its rows / 8 blocks of 256).
/// `same_len` and `requires`: caches of two lengths, and shapes that break these, are refused by
/// the launch, not by a trap (`rope_append`). The conditions are checked in order, each only
/// once those before it hold: the later ones divide by `lens.len()` and `split`, which the
/// earlier ones refuse to be 0. `partial.len()` is its rows of `PARTIAL` because `partial` is
/// whole rows (`whole_rows`, the first `requires`); the lengths read from `lens` can only be
/// checked there too.
#[kernel(
    grid = "1d",
    block = "256",
    same_len = "k_cache, v_cache",
    requires = "whole_rows(partial.shape(), partial.len(), PARTIAL)",
    requires = "lens.len() > 0 && k_cache.len().is_multiple_of(lens.len() * KV_HEADS * HEAD_DIM)",
    requires = "q.len() == lens.len() * HEADS * HEAD_DIM",
    requires = "split > 0 && split.is_multiple_of(STEP_KEYS) && (k_cache.len() / (lens.len() * KV_HEADS * HEAD_DIM)).is_multiple_of(split)",
    requires = "partial.len() == k_cache.len() / HEAD_DIM / split * PARTIAL"
)]
pub fn attn_decode_partial(
    q: &[bf16],
    k_cache: &[bf16],
    v_cache: &[bf16],
    lens: &[i32],
    split: usize,
    scale: f32,
    mut partial: WarpChunkRows<f32, F32_CHUNK>,
) {
    assert_whole_rows(&partial, PARTIAL);
    let max_seq = k_cache.len() / (lens.len() * KV_HEADS * HEAD_DIM);
    let splits = max_seq / split;
    let Some(mut row) = partial.row_mut() else {
        return;
    };
    let r = row.row();
    let (b, kv, s) = (r / (KV_HEADS * splits), (r / splits) % KV_HEADS, r % splits);
    let len = lens[b];
    assert!(len >= 0 && len as usize <= max_seq, "lens[b] <= max_seq");
    let len = len as usize;
    let lane = warp::lane_id() as usize;
    let (half, c) = ((lane >> 4) & 1, lane & (HEAD_CHUNKS - 1));

    // The lane's chunk of the four query heads, scaled into the log2 domain.
    let heads = q.as_chunks::<CHUNK>().0.as_chunks::<HEAD_CHUNKS>().0;
    let Ok(group) = <&[[Chunk; HEAD_CHUNKS]; GROUP]>::try_from(
        &heads[(b * HEADS + kv * GROUP)..(b * HEADS + (kv + 1) * GROUP)],
    ) else {
        unreachable!("GROUP rows");
    };
    let factor = scale * LOG2_E;
    let qf: [[f32; CHUNK]; GROUP] =
        core::array::from_fn(|g| core::array::from_fn(|i| group[g][c][i].to_f32() * factor));

    let k_rows = k_cache.as_chunks::<CHUNK>().0.as_chunks::<HEAD_CHUNKS>().0;
    let v_rows = v_cache.as_chunks::<CHUNK>().0.as_chunks::<HEAD_CHUNKS>().0;
    let first_key = s * split;
    let head_row = (b * KV_HEADS + kv) * max_seq + first_key;
    let mut max = [f32::NEG_INFINITY; GROUP];
    let mut sum = [0.0f32; GROUP];
    let mut out = [[0.0f32; CHUNK]; GROUP];
    for step in 0..split / STEP_KEYS {
        let at = head_row + step * STEP_KEYS;
        let (Ok(keys), Ok(values)) = (
            <&[[Chunk; HEAD_CHUNKS]; STEP_KEYS]>::try_from(&k_rows[at..at + STEP_KEYS]),
            <&[[Chunk; HEAD_CHUNKS]; STEP_KEYS]>::try_from(&v_rows[at..at + STEP_KEYS]),
        ) else {
            unreachable!("STEP_KEYS rows");
        };
        // The half-warp's keys of the step are `2i + half`: every load first.
        let kc: [Chunk; KEY_PAIRS] = core::array::from_fn(|i| keys[2 * i + half][c]);
        let vc: [Chunk; KEY_PAIRS] = core::array::from_fn(|i| values[2 * i + half][c]);
        let mut scores = [[0.0f32; GROUP]; KEY_PAIRS];
        for i in unroll(0..KEY_PAIRS) {
            for g in unroll(0..GROUP) {
                scores[i][g] = dot(&qf[g], &kc[i]);
            }
        }
        for mask in [8u32, 4, 2, 1] {
            for i in unroll(0..KEY_PAIRS) {
                for g in unroll(0..GROUP) {
                    scores[i][g] += warp::shuffle_xor(scores[i][g], mask);
                }
            }
        }
        for i in unroll(0..KEY_PAIRS) {
            if first_key + step * STEP_KEYS + 2 * i + half >= len {
                scores[i] = [f32::NEG_INFINITY; GROUP];
            }
        }
        for g in unroll(0..GROUP) {
            let mut step_max = scores[0][g];
            for score in scores.iter().skip(1) {
                step_max = step_max.max(score[g]);
            }
            let new_max = max[g].max(warp::shuffle_xor(step_max, 16));
            let new_max = new_max.max(step_max);
            let rescale = if new_max == max[g] {
                1.0
            } else {
                weight(max[g], new_max)
            };
            max[g] = new_max;
            sum[g] *= rescale;
            for o in out[g].iter_mut() {
                *o *= rescale;
            }
            for i in unroll(0..KEY_PAIRS) {
                let p = weight(scores[i][g], new_max);
                sum[g] += p;
                for e in 0..CHUNK {
                    out[g][e] += p * vc[i][e].to_f32();
                }
            }
        }
    }
    // The two half-warps' keys together: every lane then holds all four heads' sums and its
    // chunk `c` of their outputs.
    for g in unroll(0..GROUP) {
        sum[g] += warp::shuffle_xor(sum[g], 16);
        for o in out[g].iter_mut() {
            *o += warp::shuffle_xor(*o, 16);
        }
    }
    // Lanes `16·half + c` store heads `2·half` and `2·half + 1` ([`partial_chunk`]).
    let (low, high) = if half == 0 {
        (out[0], out[1])
    } else {
        (out[2], out[3])
    };
    for k in unroll(0..4) {
        if let Some((_, chunk)) = row.chunk_mut(k) {
            let head = if k < 2 { &low } else { &high };
            let from = F32_CHUNK * (k % 2);
            *chunk = core::array::from_fn(|i| head[from + i]);
        }
    }
    if let Some((col, chunk)) = row.chunk_mut(4) {
        *chunk = if col == MAX_CHUNK * F32_CHUNK {
            max
        } else {
            sum
        };
    }
}

/// See the module. `partial` as [`attn_decode_partial()`] wrote it, `lens` and `split` the same,
/// `out` `[batch · HEADS · HEAD_DIM / 8, 8]` (the token-major `[batch, HEADS · HEAD_DIM]`;
/// grid: `batch · HEADS · HEAD_DIM / 64` blocks of 256). `requires`: shapes that break these
/// are refused by the launch, not by a trap (`rope_append`); `out.len()` is its rows of 8
/// because `out` is whole rows (`whole_rows`, the first `requires`), and the lengths read
/// from `lens` can only be checked there, against the splits' keys.
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(out.shape(), out.len(), CHUNK)",
    requires = "lens.len() > 0 && partial.len().is_multiple_of(lens.len() * KV_HEADS * PARTIAL)",
    requires = "out.len() == lens.len() * HEADS * HEAD_DIM",
    requires = "split > 0"
)]
pub fn attn_decode_combine(
    partial: &[f32],
    lens: &[i32],
    split: usize,
    mut out: WarpChunkRows<bf16, CHUNK>,
) {
    assert_whole_rows(&out, CHUNK);
    let splits = partial.len() / (lens.len() * KV_HEADS * PARTIAL);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let r = row.row();
    let (b, h, c) = (
        r / (HEADS * HEAD_CHUNKS),
        (r / HEAD_CHUNKS) % HEADS,
        r % HEAD_CHUNKS,
    );
    let (kv, g) = (h / GROUP, h % GROUP);
    let len = lens[b];
    assert!(
        len >= 1 && len as usize <= splits * split,
        "1 <= lens[b] <= max_seq"
    );
    let len = len as usize;
    let used = len.div_ceil(split);
    let chunks = partial.as_chunks::<F32_CHUNK>().0;
    let lane = warp::lane_id() as usize;

    // The lane's splits `lane, lane + 32, ...`, merged.
    let (mut max, mut sum, mut acc) = (f32::NEG_INFINITY, 0.0f32, [0.0f32; CHUNK]);
    let mut s = lane;
    while s < used {
        let base = ((b * KV_HEADS + kv) * splits + s) * PARTIAL;
        let (m, l) = (
            partial[base + MAX_CHUNK * F32_CHUNK + g],
            partial[base + SUM_CHUNK * F32_CHUNK + g],
        );
        let (lo, hi) = (
            chunks[base / F32_CHUNK + partial_chunk(g, c, 0)],
            chunks[base / F32_CHUNK + partial_chunk(g, c, 1)],
        );
        let new_max = max.max(m);
        let (old, this) = (weight(max, new_max), weight(m, new_max));
        sum = sum * old + l * this;
        for i in 0..CHUNK {
            let o = if i < F32_CHUNK {
                lo[i]
            } else {
                hi[i - F32_CHUNK]
            };
            acc[i] = acc[i] * old + o * this;
        }
        max = new_max;
        s += warp::WARP_SIZE as usize;
    }
    let total_max = warp::max(max);
    let f = weight(max, total_max);
    let total = warp::sum(sum * f);
    // A loop, not `array::from_fn`: the backend's uniformity analysis takes the closure's
    // `try` plumbing around a collective's result for a divergent branch.
    let mut merged = [0.0f32; CHUNK];
    for i in unroll(0..CHUNK) {
        merged[i] = warp::sum(acc[i] * f);
    }
    if let Some((_, chunk)) = row.chunk_mut(0) {
        *chunk = core::array::from_fn(|i| bf16::from_f32(merged[i] / total));
    }
}
