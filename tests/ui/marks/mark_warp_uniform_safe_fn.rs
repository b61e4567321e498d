//! `#[oxide_gpu::warp_uniform]` on a safe function whose result differs between lanes: the
//! uniformity analysis believed it, so a full-mask shuffle (`warp::sum`) compiled under a branch
//! on it and ran on the even lanes only (on the H200). Outside device-std a device mark needs an
//! `unsafe fn`, whose callers promise that every lane of the warp gets the same result.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;
use oxide::warp;

#[oxide_gpu::warp_uniform]
#[inline(never)]
fn lane_is_even() -> bool {
    warp::lane_id() % 2 == 0
}

#[kernel]
pub fn sums_on_even_lanes(mut out: DisjointSlice<u32>) {
    let mut total = 0;
    if lane_is_even() {
        total = warp::sum(1u32);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = total;
    }
}

fn main() {}
