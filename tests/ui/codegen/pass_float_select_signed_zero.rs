//@ build-pass
//@ ptx-not: selp.f32
//@ ptx: selp.b32
//! `-1.0 % y` (device-std's exact `fmod`, inlined with x = -1.0) ends in a select between its
//! two constant results, -0.0 and -1.0. ptxas (-O1 and above) turned that float select into an
//! int-to-float conversion of 0 or -1, which gives +0.0 (fuzz program 2278 of seed 2).
//! llvm-emit writes every float select as a bit select.

use oxide::prelude::*;

#[kernel]
pub fn signed_zero(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let y = (x >> 31) as i32 as f32;
        *o = (-1.0f32 % y).to_bits();
    }
}

fn main() {}
