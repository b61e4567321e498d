// A warp-uniform condition lets a warp's collectives depend on it, never a barrier: a barrier
// needs every thread of the block, and a branch on `warp_in_block()` leaves some warps out. A
// function that reaches a barrier counts as a barrier even if it starts with a collective; and
// a lane-dependent condition still keeps collectives out.
use oxide::prelude::*;
use oxide::warp;

fn sum_then_sync(v: u32) -> u32 {
    let s = warp::sum(v);
    thread::sync_threads();
    s
}

#[kernel]
pub fn barrier_under_warp_branch(mut out: DisjointSlice<u32>) {
    let mut s = 0;
    if warp::warp_in_block() == 0 {
        thread::sync_threads();
        s = 1;
    }
    if warp::warp_in_block() == 1 {
        s = sum_then_sync(s);
    }
    if warp::lane_id() < 16 {
        s = warp::sum(s);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = s;
    }
}

fn main() {}
