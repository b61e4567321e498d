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

oxide::python_module!(pyops: vecadd, scale_bf16, histogram, row_sums);
