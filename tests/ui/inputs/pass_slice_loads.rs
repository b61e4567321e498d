//@ build-pass
//@ ptx: ld.global.nc.
//@ ptx: st.global.
//@ ptx: trap;
//! A `&[f32]` is read-only for the whole launch, so its loads go through the non-coherent
//! (read-only) cache; an out-of-bounds index traps.

use oxide::prelude::*;

#[kernel]
pub fn copy_shifted(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = input[i + 1];
    }
}

fn main() {}
