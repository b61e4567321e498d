//! llama: the kernels of a Llama-3-8B decoder layer's prefill that are not GEMMs (issue 22),
//! as a Python module (`cargo oxide python kernels/llama`) whose functions take PyTorch's
//! tensors; the GEMMs are torch's (cuBLAS), faster than oxide's tensor-core GEMM today.
//!
//! Every tensor is bf16, row-major, math in f32. The layer, with the kernel of each step:
//!
//! ```text
//! x [tokens, 4096]
//!   rmsnorm(x, w_attn_norm)                      -> xn
//!   xn · W_qkvᵀ               (torch.matmul)     -> qkv [tokens, (32 + 8 + 8)·128]
//!   rope_qkv(qkv, table)                         -> [q | k | v], each [batch, heads, seq, 128]
//!   flash_attn_128(q, k, v, causal)              -> attn [batch, 32, seq, 128]
//!   heads_to_tokens(attn)                        -> [tokens, 32·128]
//!   · W_oᵀ                    (torch.matmul)     -> o [tokens, 4096]
//!   add_rmsnorm(x, o, w_mlp_norm)                -> h = x + o, hn
//!   hn · W_gate_upᵀ           (torch.matmul)     -> gate_up [tokens, 2·14336]: gate | up
//!   swiglu(gate_up)                              -> m = silu(gate)·up [tokens, 14336]
//!   · W_downᵀ                 (torch.matmul)     -> d [tokens, 4096]
//!   residual_add(h, d)                           -> out = h + d
//! ```
//!
//! `tokens` is `batch · seq`, token `t` being position `t % seq` of sequence `t / seq`. The
//! widths are Llama-3-8B's constants below: the kernels divide by them (a multiply), and the
//! register arrays of the row kernels are sized by them.

use oxide::host::RowShape;

pub mod append;
pub mod decode_attn;
pub mod heads;
pub mod matvec;
pub mod mlp;
pub mod norm;
pub mod residual;
pub mod rope;

pub use append::rope_append;
pub use decode_attn::{attn_decode_combine, attn_decode_partial};
pub use heads::heads_to_tokens;
pub use matvec::{gemv, gemv_add, gemv_swiglu};
pub use mlp::swiglu;
pub use norm::{add_rmsnorm, rmsnorm};
pub use residual::residual_add;
pub use rope::rope_qkv;

/// The model's width: a token's row of the residual stream.
pub const HIDDEN: usize = 4096;
/// Query heads.
pub const HEADS: usize = 32;
/// Key/value heads (grouped-query attention: 4 query heads share each).
pub const KV_HEADS: usize = 8;
/// A head's elements.
pub const HEAD_DIM: usize = 128;
/// The MLP's width: `swiglu`'s output row, half of its input row.
pub const INTERMEDIATE: usize = 14336;
/// The fused QKV projection's output row: the query heads, then the key heads, then the value
/// heads, `HEAD_DIM` columns each.
pub const QKV_WIDTH: usize = (HEADS + 2 * KV_HEADS) * HEAD_DIM;

/// bf16 elements in 16 bytes: the unit of every load and store here (one vector instruction).
pub const CHUNK: usize = 8;

/// Eight consecutive elements, `CHUNK`-aligned in their buffer.
type Chunk = [oxide::bf16; CHUNK];

/// Chunk `i` of `x` (its elements `8i .. 8i + 8`). A kernel's buffer starts 16-byte aligned,
/// so the chunk's address is a multiple of 16 that LLVM can see: one 16-byte load
/// (`ld.global.nc.v4.b32`). Out of range traps, as `x[i]` does.
#[inline(always)]
fn chunk(x: &[oxide::bf16], i: usize) -> Chunk {
    x.as_chunks::<CHUNK>().0[i]
}

/// `a + b`, rounded to bf16 as torch's bf16 add rounds it (the f32 sum).
#[inline(always)]
fn added(a: Chunk, b: Chunk) -> Chunk {
    core::array::from_fn(|i| oxide::bf16::from_f32(a[i].to_f32() + b[i].to_f32()))
}

/// Whether a row output of shape `shape` over `len` elements is whole rows of `width` from its
/// buffer's start, covering the buffer: so that a row's whole chunks are its `width / C` chunks,
/// chunk `k` of row `r` being the buffer's chunk `r · width / C + k`, what the row kernels index
/// their inputs by, and `len` (which their other `requires` conditions read) is
/// `rows · width`. Each kernel states it as its first `requires`
/// (`whole_rows(out.shape(), out.len(), W)`), so a launch refuses another shape (a `ValueError`
/// from Python) before anything runs; [`assert_whole_rows`] states it again on the device.
fn whole_rows(shape: RowShape, len: usize, width: usize) -> bool {
    shape.width() == width
        && shape.pitch() == width
        && shape.origin() == (0, 0)
        && shape.rows() * width == len
}

/// [`whole_rows`] of `out` on the device, where it can no longer fail after the launch's check:
/// kept because the compiler does not see the host's check, and stated here it folds the
/// origin and the pitch out of every store's address (without it, the stores became generic
/// 2-byte ones). (`WarpChunkRows` is the output whose chunk stores become one
/// `st.global.v4.b32` each.)
#[inline(always)]
fn assert_whole_rows<T, const C: usize>(out: &oxide::WarpChunkRows<'_, T, C>, width: usize) {
    let (top, left) = out.origin();
    let shape = RowShape::from_words(&[out.width(), out.pitch(), out.rows(), top, left]);
    assert!(
        whole_rows(shape, out.len(), width),
        "whole rows of the kernel's width, the whole buffer"
    );
}

oxide::python_module!(
    llama: rmsnorm,
    add_rmsnorm,
    rope_qkv,
    heads_to_tokens,
    swiglu,
    residual_add,
    flash_attn::flash_attn_128,
    gemv,
    gemv_add,
    gemv_swiglu,
    rope_append,
    attn_decode_partial,
    attn_decode_combine
);

#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod tests;
