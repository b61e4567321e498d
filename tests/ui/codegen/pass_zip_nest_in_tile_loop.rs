//@ build-pass
//@ compile-flags: -O
//@ ptx-count: 256 fma.rn.f32
//@ ptx-not: st.local
//@ ptx-not: ld.local
//! Inside a loop over tiles whose count is not known (sgemm's over `t`), an `unroll` loop whose
//! body walks the accumulators with `zip` is unrolled with its nest: 256 FMAs in registers. It
//! used to keep 16 FMAs and the accumulators in local memory (docs/features.md listed it); the
//! loops that walk a thread's arrays in a few steps are now unrolled after O3.
use oxide::prelude::*;

const PER: usize = 4;

#[kernel(block = "16x16")]
pub fn tiles(a: &[f32], b: &[f32], tiles: u32, mut out: DisjointSlice<f32>) {
    let (x, y) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
    );
    let mut acc = [[0.0f32; PER]; PER];
    for t in 0..tiles as usize {
        for k in unroll(0..16) {
            let av: [f32; PER] =
                core::array::from_fn(|i| a.get(16 * (y + 16 * i) + k + t).copied().unwrap_or(0.0));
            let bv: [f32; PER] =
                core::array::from_fn(|j| b.get(64 * k + x + 16 * j + t).copied().unwrap_or(0.0));
            for (row, a) in acc.iter_mut().zip(av) {
                for (c, b) in row.iter_mut().zip(bv) {
                    *c += a * b;
                }
            }
        }
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = acc.iter().flatten().sum();
    }
}

fn main() {}
