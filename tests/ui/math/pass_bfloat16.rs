//@ build-pass
//@ ptx(round_to_bf16): cvt.rn.bf16.f32
//@ ptx-not(round_to_bf16): call
//@ ptx(round_to_f16): cvt.rn.f16.f32
//@ ptx(round_to_f16): cvt.f32.f16
//@ ptx(round_chunks): cvt.rn.bf16x2.f32
//@ ptx-not(round_chunks): cvt.rn.bf16.f32
//@ ptx(round_chunks): st.global.v4.b32
//! `oxide::bf16` and `oxide::f16` are buffer elements, and their conversions from `f32` are
//! the GPU's rounding instructions (`cvt.rn.bf16.f32`, `cvt.rn.f16.f32`), not the software
//! rounding the CPU runs; `bf16` to `f32` is a shift. Arithmetic is done in `f32` and rounded
//! once. The conversions are LLVM casts (the `float_convert` mark), so a chunk of eight
//! roundings is four paired `cvt.rn.bf16x2.f32` and one 16-byte store.

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

#[kernel]
pub fn round_chunks(x: &[f32], mut out: DisjointChunks<bf16, 8>) {
    let x = x.as_chunks::<8>().0;
    for (first, o) in &mut out.grid_stride(&ThreadIndex::linear()) {
        let x = x[first / 8];
        *o = core::array::from_fn(|i| bf16::from_f32(x[i] * 2.0));
    }
}

fn main() {}
