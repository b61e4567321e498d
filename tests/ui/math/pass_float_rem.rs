//@ build-pass
//@ ptx: 8388607
//@ ptx-not: rem.
//@ ptx-not: cvt.rzi
//! PTX has no float remainder: f32 `%` is device-std's exact soft fmod, which works on the bits
//! (the mantissa mask 0x7fffff = 8388607), not LLVM's `frem`, which NVPTX lowers to the
//! inexact `x - trunc(x / y) * y` (`cvt.rzi`).

use oxide::prelude::*;

#[kernel]
pub fn remainder(a: &[f32], b: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i] % b[i];
    }
}

fn main() {}
