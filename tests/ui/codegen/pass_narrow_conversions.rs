//@ build-pass
//@ ptx-not: cvt.s16.s8
//@ ptx: cvt.s32.s8 %oxide_cvt, %oxide_cvt
//@ ptx: cvt.u32.u64 %oxide_cvt
//! Two conversion forms ptxas (-O1 and above) got wrong in fuzz programs of seed 2 (971, 2278,
//! 3860, 6618), which llvm-emit rewrites: an `i8` sign-extended in a 16-bit register
//! (`cvt.s16.s8`), computed in 32 bits instead; and a `cvt` reading a register wider than its
//! type (`cvt.s64.s32 %rd, %rd`, PTX's implicit chop), chopped by its own `cvt` first.

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
