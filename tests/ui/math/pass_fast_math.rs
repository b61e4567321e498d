//@ build-pass
//@ ptx: sin.approx.f32
//@ ptx: cos.approx.f32
//@ ptx: ex2.approx.ftz.f32
//@ ptx: lg2.approx.f32
//@ ptx: rsqrt.approx.f32
//@ ptx: sqrt.approx.f32
//! `oxide::math::FastMath` is the special function unit: one approximate instruction each
//! (`__sinf`, `exp2f`, `__log2f`, `rsqrtf`...), never a libdevice function.

use oxide::prelude::*;

#[kernel]
pub fn fast(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = x.fast_sin() + x.fast_cos() + x.fast_exp() + x.fast_ln() + x.fast_rsqrt() + x.fast_sqrt();
    }
}

fn main() {}
