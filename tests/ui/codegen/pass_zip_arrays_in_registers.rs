//@ build-pass
//@ compile-flags: -O
//@ ptx-count: 256 fma.rn.f32
//@ ptx-not: st.local
//@ ptx-not: ld.local
//! Per-thread arrays built with `array::from_fn` and walked with `zip` and `iter_mut` stay in
//! registers inside a hinted loop, as range loops over them do (kernels/sgemm's inner step).
use oxide::prelude::*;

const PER: usize = 4;

#[kernel(block = "16x16")]
pub fn outer(a: &[f32], b: &[f32], mut out: DisjointSlice<f32>) {
    let (x, y) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
    );
    let mut acc = [[0.0f32; PER]; PER];
    for k in unroll(0..16) {
        let av: [f32; PER] = core::array::from_fn(|i| a.get(16 * (y + 16 * i) + k).copied().unwrap_or(0.0));
        let bv: [f32; PER] = core::array::from_fn(|j| b.get(64 * k + x + 16 * j).copied().unwrap_or(0.0));
        for (row, a) in acc.iter_mut().zip(av) {
            for (c, b) in row.iter_mut().zip(bv) {
                *c += a * b;
            }
        }
    }
    let idx = ThreadIndex::linear();
    if let Some(o) = out.get_mut(idx) {
        *o = acc.iter().flatten().sum();
    }
}

fn main() {}
