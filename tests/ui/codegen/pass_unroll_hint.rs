//@ build-pass
//@ compile-flags: -O
//@ ptx: 0f427C0000
//@ ptx-not: cvt.rn.f32.u32
//@ ptx-not: __oxide_unroll_hint
//! A loop over `oxide::unroll(0..64)` is unrolled fully, as CUDA's `#pragma unroll` unrolls
//! it, although its unrolled body is over LLVM's own threshold (the same loop over `0..64` is
//! not unrolled): every step's `k as f32` is a constant, 63.0 (0f427C0000) among them, and no
//! conversion is left. The hint itself leaves nothing in the PTX.
use oxide::prelude::*;

#[kernel(block = "256")]
pub fn mix(x: f32, mut out: DisjointSlice<f32>) {
    let (mut a, mut b, mut c, mut d) = (x, x * 0.5, x * 0.25, x * 0.125);
    for k in unroll(0..64) {
        let s = k as f32;
        a = a * b + s;
        b = b * c - s;
        c = c * d + a;
        d = d * a - b * s;
        a = a * 0.5 + c * d;
    }
    if let Some(slot) = out.get_mut(ThreadIndex::linear()) {
        *slot = a + b + c + d;
    }
}

fn main() {}
