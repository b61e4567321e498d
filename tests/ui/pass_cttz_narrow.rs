//@ build-pass
//@ compile-flags: -O
//@ ptx-not: cvt.s8.s64
//@ ptx: cvt.s32.s8
//! `max(x, 0).trailing_zeros()` of an `i8` is 8 for every negative `x` (oxide-fuzz seed 1,
//! programs 620 and 2224, cut down to this, differ on the H200). NVPTX sign-extends the `i8` into
//! a 16-bit register with `cvt.s8.s64` before `max.s16`; suspected (not yet confirmed on the GPU)
//! of being read by ptxas as sign-extended to 32 bits, so llvm-emit sign-extends it in 32 bits.

use oxide::prelude::*;

#[kernel]
pub fn cttz_narrow(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let v = x as i8;
        *o = (v.saturating_sub(v).max(v).trailing_zeros() as i8) as u64;
    }
}

fn main() {}
