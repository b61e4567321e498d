//@ build-pass
//@ ptx-not: cvt.s16.s8
//@ ptx: cvt.s32.s8 %oxide_cvt, %oxide_cvt
//! An `i8` sign-extended in a 16-bit register (`cvt.s16.s8`), which ptxas (-O1 and above) got
//! wrong in fuzz programs 971 and 3860 of seed 2: llvm-emit computes it in 32 bits.

use oxide::prelude::*;

#[kernel]
pub fn conversions(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let v = x as i8;
        let w = v.wrapping_mul(3) ^ v;
        let y = x >> 31;
        *o = (w.abs_diff(0) as i8 as u64) ^ ((y as i32 as f32).to_bits() as u64) ^ (y as i32 as u64);
    }
}

fn main() {}
