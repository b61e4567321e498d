//@ build-pass
//@ ptx(bounded): .maxntid 256, 1, 1
//@ ptx(bounded): .minnctapersm 2
//@ ptx-not(bounded): .reqntid
//! `max_threads` reaches the PTX as `.maxntid` and `min_blocks_per_sm` as `.minnctapersm`, the
//! occupancy hints ptxas allocates registers by; `sm = 80` is met by the default sm_90 build.
use oxide::prelude::*;

#[kernel(max_threads = 256, min_blocks_per_sm = 2, sm = 80)]
pub fn bounded(a: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i] * 2.0;
    }
}

fn main() {}
