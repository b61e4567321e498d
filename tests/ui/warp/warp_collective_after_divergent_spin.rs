//! A callee that never returns in some lanes (an endless loop under a condition on the lane):
//! the lanes that come back would run the warp collective after it without the others, which
//! is undefined behaviour on the GPU (a `.sync.aligned` instruction with lanes missing).

use oxide::prelude::*;
use oxide::warp;

#[inline(never)]
fn spin_if(lane: u32) {
    if lane < 16 {
        #[allow(clippy::empty_loop)]
        loop {}
    }
}

#[kernel]
pub fn spin_then_sum(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    spin_if(warp::lane_id());
    let total = warp::sum(input[idx.get()]);
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

fn main() {}
