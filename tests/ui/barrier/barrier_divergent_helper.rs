//! A helper that executes a barrier, called under a divergent condition; and a helper whose
//! barrier loop runs a number of times its caller passes, called with a per-thread count.

use oxide::prelude::*;
use oxide::thread::{block_dim_x, sync_threads, thread_idx_x};

fn publish() {
    sync_threads();
}

#[kernel]
pub fn helper_under_branch(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    if thread_idx_x() < block_dim_x() / 2 {
        publish();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = 1;
    }
}

fn rounds(count: u32) {
    for _ in 0..count {
        sync_threads();
    }
}

#[kernel]
pub fn helper_divergent_count(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    rounds(thread_idx_x() % 3);
    if let Some(o) = out.get_mut(idx) {
        *o = 1;
    }
}

fn main() {}
