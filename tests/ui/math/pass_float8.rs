//@ build-pass
//@ ptx(round_to_fp8): cvt.rn.satfinite.e4m3x2.f32
//@ ptx(round_to_fp8): cvt.rn.satfinite.e5m2x2.f32
//@ ptx-not(round_to_fp8): call
//@ ptx-not(widen_fp8): cvt.rn
//@ ptx-not(widen_fp8): cvt.f32
//@ ptx-not(widen_fp8): call
//@ ptx(show_fp8): vprintf
//! `oxide::e4m3` and `oxide::e5m2` are buffer elements (`widen_fp8` reads them); their
//! conversions from `f32` are the GPU's saturating instructions
//! (`cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`), not the software rounding the CPU runs; widening to
//! `f32` is integer code, with no conversion instruction; and `printf!`'s `%f` takes them.

use oxide::prelude::*;
use oxide::printf;

#[kernel]
pub fn round_to_fp8(x: &[f32], mut out: DisjointSlice<[u8; 2]>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = [e4m3::from_f32(x[i]).to_bits(), e5m2::from_f32(x[i]).to_bits()];
    }
}

#[kernel]
pub fn widen_fp8(a: &[e4m3], b: &[e5m2], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i].to_f32() + f32::from(b[i]);
    }
}

#[kernel]
pub fn show_fp8(a: &[e4m3], b: &[e5m2]) {
    let i = ThreadIndex::linear().get();
    if let (Some(&x), Some(&y)) = (a.get(i), b.get(i)) {
        printf!("%f %g\n", x, y);
    }
}

fn main() {}
