//! A tensor-core MMA under a condition on the lane: the lanes that skip it would leave the
//! warp's `mma.sync` without their fragments, which is undefined behaviour on the GPU.

use oxide::mma::{FragA, FragB, FragC, mma};
use oxide::prelude::*;

#[kernel(block = "32")]
pub fn divergent_mma(a: &[bf16], mut out: DisjointSlice<[f32; 4]>) {
    let fa = FragA::from_fn(|r, c| a[r * 16 + c]);
    let fb = FragB::from_fn(|k, n| a[k * 16 + n]);
    let mut acc = FragC::zero();
    if oxide::warp::lane_id() < 16 {
        acc = mma(&fa, &fb, acc);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = acc.values();
    }
}

fn main() {}
