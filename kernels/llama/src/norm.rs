//! RMSNorm over rows of [`HIDDEN`], one warp a row: `rmsnorm` (the layer's first norm) and
//! `add_rmsnorm` (the residual add after attention fused with the second norm, so the new
//! residual is written once and never read back).
//!
//! Each lane holds 16 of the row's 512 chunks (`lane`, `lane + 32`, ...: a warp's loads of one
//! step are 512 consecutive bytes), all loaded before the first is used, so 16 or 32 16-byte
//! loads a lane are in flight at once; the sum of squares is the lane's, then the warp's
//! (`warp::sum`), and the outputs are stored through `WarpChunkRows`, whose whole chunks are the
//! same 16-byte chunks. Rows are checked once, as a fixed-size array of chunks, so no load has a
//! test of its own.
//!
//! HF Llama's `LlamaRMSNorm`: `w · bf16(x · rsqrt(mean(x²) + eps))` with `x` in f32; here the
//! product with `w` is in f32 too and rounded once. The fused add rounds `x + delta` to bf16
//! first, as eager's `h = x + o` does, and normalizes that rounded row (the one it stores).

use oxide::prelude::*;
use oxide::warp::{self, WARP_SIZE};

use crate::{CHUNK, Chunk, HIDDEN, added, assert_whole_rows, whole_rows};

/// Lanes of a warp.
const LANES: usize = WARP_SIZE as usize;
/// Chunks of a row each lane takes.
const LANE_CHUNKS: usize = HIDDEN / CHUNK / LANES;

/// A row of [`HIDDEN`] elements as the lanes see it: `[k][lane]` is the row's chunk
/// `lane + 32k`.
type LaneRow = [[Chunk; LANES]; LANE_CHUNKS];

/// Row `row` of `x` (rows of [`HIDDEN`]), checked once: past `x`'s end traps.
#[inline(always)]
fn row_of(x: &[bf16], row: usize) -> &LaneRow {
    let elements = &x[row * HIDDEN..(row + 1) * HIDDEN];
    let Ok(lanes) = <&LaneRow>::try_from(elements.as_chunks::<CHUNK>().0.as_chunks::<LANES>().0)
    else {
        unreachable!("a row of HIDDEN elements is LANE_CHUNKS groups of 32 chunks");
    };
    lanes
}

/// The calling lane's chunks of `row`.
#[inline(always)]
fn lane_chunks(row: &LaneRow) -> [Chunk; LANE_CHUNKS] {
    let lane = warp::lane_id() as usize;
    core::array::from_fn(|k| row[k][lane])
}

/// The sum of the squares of a chunk, in f32.
#[inline(always)]
fn squares(chunk: &Chunk) -> f32 {
    chunk.iter().map(|x| x.to_f32() * x.to_f32()).sum()
}

/// `1 / sqrt(mean + eps)`, the mean of a row's squares being `squares / HIDDEN`.
#[inline(always)]
fn inverse_rms(squares: f32, eps: f32) -> f32 {
    1.0 / (squares / HIDDEN as f32 + eps).sqrt()
}

/// `x · inv · w`, rounded once.
#[inline(always)]
fn normalized(x: &Chunk, w: Chunk, inv: f32) -> Chunk {
    core::array::from_fn(|i| bf16::from_f32(x[i].to_f32() * inv * w[i].to_f32()))
}

/// `out = rmsnorm(x) · weight` over rows of [`HIDDEN`]: `x` and `out` `[tokens, HIDDEN]`,
/// `weight` `[HIDDEN]`, a warp a row (grid: `tokens / 8` blocks of 256, rounded up).
/// `requires`: lengths that break these are refused by the launch (from Python, a
/// `ValueError`), not by a trap, which would poison the calling process's CUDA context; equal
/// lengths are a row of `x` a row of `out` because `out` is whole rows of [`HIDDEN`]
/// (`whole_rows`, the first `requires`).
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(out.shape(), out.len(), HIDDEN)",
    requires = "x.len() == out.len()",
    requires = "weight.len() == HIDDEN"
)]
pub fn rmsnorm(x: &[bf16], weight: &[bf16], eps: f32, mut out: WarpChunkRows<bf16, CHUNK>) {
    assert_whole_rows(&out, HIDDEN);
    let weight = row_of(weight, 0);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let lane = warp::lane_id() as usize;
    let values = lane_chunks(row_of(x, row.row()));
    // The loops over the lane's chunks are written here, not in helpers taking `&values`: the
    // backend does not honour `#[inline(always)]`, and a call kept the array in local memory.
    let mut sum = 0.0f32;
    for chunk in unroll(values.iter()) {
        sum += squares(chunk);
    }
    let inv = inverse_rms(warp::sum(sum), eps);
    for k in unroll(0..LANE_CHUNKS) {
        if let Some((_, out)) = row.chunk_mut(k) {
            *out = normalized(&values[k], weight[k][lane], inv);
        }
    }
}

/// `sum = residual + delta` (rounded to bf16) and `normed = rmsnorm(sum) · weight`, rows of
/// [`HIDDEN`]: the attention block's residual add and the MLP's norm in one pass. Every tensor
/// `[tokens, HIDDEN]` but `weight`, `[HIDDEN]`; grid and `requires` as [`rmsnorm()`]'s.
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(sum.shape(), sum.len(), HIDDEN)",
    requires = "whole_rows(normed.shape(), normed.len(), HIDDEN)",
    requires = "residual.len() == sum.len() && delta.len() == sum.len() && normed.len() == sum.len()",
    requires = "weight.len() == HIDDEN"
)]
pub fn add_rmsnorm(
    residual: &[bf16],
    delta: &[bf16],
    weight: &[bf16],
    eps: f32,
    mut sum: WarpChunkRows<bf16, CHUNK>,
    mut normed: WarpChunkRows<bf16, CHUNK>,
) {
    assert_whole_rows(&sum, HIDDEN);
    assert_whole_rows(&normed, HIDDEN);
    // Never fails once the launch's `requires` held (equal lengths, whole rows of HIDDEN): it
    // is for the compiler, which without it does not see that both outputs have the warp's row,
    // and then makes every store of both a generic 2-byte store (the PTX, checked).
    assert!(sum.rows() == normed.rows(), "as many sums as normed rows");
    let weight = row_of(weight, 0);
    let (Some(mut sum_row), Some(mut normed_row)) = (sum.row_mut(), normed.row_mut()) else {
        return;
    };
    let r = sum_row.row();
    let (residual, delta) = (
        lane_chunks(row_of(residual, r)),
        lane_chunks(row_of(delta, r)),
    );
    let lane = warp::lane_id() as usize;
    let values: [Chunk; LANE_CHUNKS] = core::array::from_fn(|k| added(residual[k], delta[k]));
    let mut squared = 0.0f32;
    for k in unroll(0..LANE_CHUNKS) {
        if let Some((_, out)) = sum_row.chunk_mut(k) {
            // Eight 2-byte stores today, where `normed`'s below are one 16-byte store each
            // (kernels/llama/README.md, "What oxide lacked").
            *out = values[k];
        }
        squared += squares(&values[k]);
    }
    let inv = inverse_rms(warp::sum(squared), eps);
    for k in unroll(0..LANE_CHUNKS) {
        if let Some((_, out)) = normed_row.chunk_mut(k) {
            *out = normalized(&values[k], weight[k][lane], inv);
        }
    }
}
