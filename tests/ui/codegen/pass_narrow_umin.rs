//@ build-pass
//@ ptx-not: min.u16
//@ ptx: min.u32
//! A `u8` saturating add compared with `u8::MAX`: NVPTX computes it as `min.u16` of the 9-bit sum
//! and 255, and ptxas (-O1 and above) folded the `== 255` after it into a wrong predicate, true
//! for a sum of 0 (fuzz seed 2, programs 2278, 6618 and 9379). llvm-emit computes 16-bit unsigned
//! `min`/`max` in 32 bits.

use oxide::prelude::*;

#[kernel]
pub fn saturated(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = u64::from((x as u8).saturating_add((x >> 8) as u8) == u8::MAX);
    }
}

fn main() {}
