//! Loops whose trip count differs between threads: a barrier in the loop body is executed a
//! different number of times by each thread, whether the count comes from the thread index, a
//! value assigned under a divergent branch, or a `break` on a value read at a per-thread index.

use oxide::prelude::*;
use oxide::thread::{sync_threads, thread_idx_x};
use oxide::warp::lane_id;

#[kernel]
pub fn trip_count(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut acc = 0;
    for i in 0..thread_idx_x() {
        acc += i;
        sync_threads();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = acc;
    }
}

#[kernel]
pub fn assigned_under_branch(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut rounds = 4;
    if lane_id() == 0 {
        rounds = 8;
    }
    for _ in 0..rounds {
        sync_threads();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = rounds;
    }
}

#[kernel]
pub fn divergent_break(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut i = 0;
    loop {
        sync_threads();
        if input[idx.get()] == i {
            break;
        }
        i += 1;
    }
    if let Some(o) = out.get_mut(idx) {
        *o = i;
    }
}

fn main() {}
