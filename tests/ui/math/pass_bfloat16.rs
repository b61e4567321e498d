//@ build-pass
//@ ptx(round_to_bf16): cvt.rn.bf16.f32
//@ ptx-not(round_to_bf16): call
//@ ptx(round_to_f16): cvt.rn.f16.f32
//@ ptx(round_to_f16): cvt.f32.f16
//! `oxide::bf16` and `oxide::f16` are buffer elements, and their conversions from `f32` are
//! the GPU's rounding instructions (`cvt.rn.bf16.f32`, `cvt.rn.f16.f32`), not the software
//! rounding the CPU runs; `bf16` to `f32` is a shift. Arithmetic is done in `f32` and rounded
//! once.

use oxide::prelude::*;

#[kernel]
pub fn round_to_bf16(x: &[f32], y: &[bf16], mut out: DisjointSlice<bf16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = bf16::from_f32(x[i]) * y[i] + bf16::ONE;
    }
}

#[kernel]
pub fn round_to_f16(x: &[f32], y: &[oxide::f16], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = (oxide::f16::from_f32(x[i]) - y[i]).to_f32();
    }
}

fn main() {}
