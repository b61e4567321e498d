//! SwiGLU on the fused gate/up projection's output: `swiglu` reads `gate_up [tokens,
//! 2 · INTERMEDIATE]`, a token's row being its `INTERMEDIATE` gate columns then its
//! `INTERMEDIATE` up columns (the GEMM's weight `cat([W_gate, W_up])`, rows of `HIDDEN`), and
//! writes `silu(gate) · up [tokens, INTERMEDIATE]`, the down projection's input.
//!
//! Halves rather than interleaved columns: each half is one of the model's weights as it
//! stands, and a thread's 8 gate and 8 up elements are two 16-byte loads either way.
//!
//! HF's `LlamaMLP` rounds `silu(gate)` to bf16, then the product; here both are f32, rounded
//! once. `silu(g) = g / (1 + e^-g)`, with `e^-g` from `ex2.approx` (`fast_exp`): a memory-bound
//! kernel, and its error (2 ulp of f32) is far below bf16's.

use oxide::prelude::*;

use crate::{CHUNK, INTERMEDIATE, assert_whole_rows, whole_rows};

/// `g · sigmoid(g)`: large negative `g` gives `e^-g = inf` and `-0`, large positive `g`.
#[inline(always)]
pub(crate) fn silu(g: f32) -> f32 {
    g / (1.0 + (-g).fast_exp())
}

/// `out[t][j] = silu(gate_up[t][j]) · gate_up[t][INTERMEDIATE + j]`: `out` `[tokens,
/// INTERMEDIATE]`, `gate_up` `[tokens, 2 · INTERMEDIATE]`. A warp a token's row, each lane its
/// chunks `lane, lane + 32, ...` (grid: `tokens / 8` blocks of 256, rounded up). `requires`:
/// a `gate_up` of another length is refused by the launch (from Python, a `ValueError`), not by
/// a trap; it is a row of gate and up a row of `out` because `out` is whole rows of
/// `INTERMEDIATE` (`whole_rows`, the first `requires`).
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(out.shape(), out.len(), INTERMEDIATE)",
    requires = "gate_up.len() == 2 * out.len()"
)]
pub fn swiglu(gate_up: &[bf16], mut out: WarpChunkRows<bf16, CHUNK>) {
    assert_whole_rows(&out, INTERMEDIATE);
    let Some(mut row) = out.row_mut() else {
        return;
    };
    // The token's gate and up chunks, checked once.
    let chunks = gate_up.as_chunks::<CHUNK>().0;
    let from = 2 * row.row() * (INTERMEDIATE / CHUNK);
    let gate = &chunks[from..from + INTERMEDIATE / CHUNK];
    let up = &chunks[from + INTERMEDIATE / CHUNK..from + 2 * (INTERMEDIATE / CHUNK)];
    row.for_each_chunk(|col, o| {
        let (g, u) = (gate[col / CHUNK], up[col / CHUNK]);
        *o = core::array::from_fn(|i| bf16::from_f32(silu(g[i].to_f32()) * u[i].to_f32()));
    });
}
