//! oxide kernels called from PyTorch (docs/python.md): `cargo oxide python kernels/pyops`
//! writes a wheel whose module `pyops` has these kernels as functions, each taking tensors for
//! its slices and outputs, Python numbers for its values.

use oxide::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// `c = a + b`.
#[kernel(grid = "1d", same_len = "a, b, c")]
pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = c.get_mut(idx) {
        *out = a[i] + b[i];
    }
}

/// `y = alpha * x` in bf16, computed in f32.
#[kernel(block = "128", same_len = "x, y")]
pub fn scale_bf16(alpha: f32, x: &[bf16], mut y: DisjointSlice<bf16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = y.get_mut(idx) {
        *out = bf16::from_f32(alpha * x[i].to_f32());
    }
}

/// Counts each key's low 8 bits into 256 bins: an atomic slice, written by every thread.
#[kernel(grid = "1d")]
pub fn histogram(keys: &[u32], bins: &[AtomicU32]) {
    let i = thread::index_1d();
    if i < keys.len() {
        bins[(keys[i] & 255) as usize].fetch_add(1, Ordering::Relaxed);
    }
}

/// Each row's sum of a matrix (a 2-D tensor, possibly a slice of wider rows).
#[kernel(grid = "1d")]
pub fn row_sums(m: Matrix<f32>, mut sums: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let row = idx.get();
    if let (Some(out), Some(values)) = (sums.get_mut(idx), m.row(row)) {
        *out = values.iter().sum();
    }
}

/// `out[r][c] = r · coeffs.0 + c · coeffs.1 + bias[c]`, a 16 × 16 tile a block: each thread takes its
/// tile's column offset from a `DynShared` array of at least 16 slots (`stage`), so the three
/// kinds a tensor-core kernel takes (a 2-D output, a by-value tuple, a dynamic shared array)
/// are each exported.
#[kernel(block = "16x16")]
pub fn ramp_tiles(
    coeffs: (u32, u32),
    bias: &[f32],
    mut out: BlockTiles<f32, 16, 16>,
    stage: DynShared<u32>,
) {
    let stage = stage.init(|i| i as u32).sync();
    if let Some(mut tile) = out.tile_mut() {
        let (_, c0) = tile.origin();
        if let Some(((row, col), o)) = tile.own_mut((0, 0)) {
            let c = stage.get(col - c0).copied().unwrap_or(0) as usize + c0;
            let b = bias.get(c).copied().unwrap_or(0.0);
            *o = (row as u32 * coeffs.0 + c as u32 * coeffs.1) as f32 + b;
        }
    }
}

/// The logistic sigmoid, `1 / (1 + e^-x)`.
#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// SwiGLU's gating, fused: `h = silu(g) * u`, where `silu(g) = g * sigmoid(g)`.
#[kernel(grid = "1d", same_len = "g, u, h")]
pub fn swiglu(g: &[f32], u: &[f32], mut h: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = h.get_mut(idx) {
        *out = g[i] * sigmoid(g[i]) * u[i];
    }
}

/// The backward of [`swiglu`] for the gradient `dh` of `h`: with `s = sigmoid(g)`,
/// `dg = dh * u * s * (1 + g * (1 - s))` (the derivative of `g * s`) and `du = dh * g * s`.
#[kernel(grid = "1d", same_len = "g, u, dh, dg, du")]
pub fn swiglu_backward(
    g: &[f32],
    u: &[f32],
    dh: &[f32],
    mut dg: DisjointSlice<f32>,
    mut du: DisjointSlice<f32>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if i < g.len() {
        let s = sigmoid(g[i]);
        if let Some(out) = dg.get_mut(idx) {
            *out = dh[i] * u[i] * s * (1.0 + g[i] * (1.0 - s));
        }
        // A second output takes a second index of this thread: one `ThreadIndex` is one write.
        if let Some(out) = du.get_mut(ThreadIndex::linear()) {
            *out = dh[i] * g[i] * s;
        }
    }
}

oxide::python_module!(
    pyops: vecadd,
    scale_bf16,
    histogram,
    row_sums,
    ramp_tiles,
    swiglu,
    swiglu_backward
);

#[cfg(test)]
mod tests;
