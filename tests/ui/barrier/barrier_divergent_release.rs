//@ compile-flags: -O
//! A release build (MIR inlining, optimised MIR): an inlined helper's barrier under a divergent
//! condition, and a barrier after a divergent early return in a loop over a slice.

use oxide::prelude::*;
use oxide::thread::{sync_threads, thread_idx_x};

#[inline(always)]
fn publish() {
    sync_threads();
}

#[kernel]
pub fn inlined_helper(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let value = input.get(idx.get()).copied().unwrap_or(0);
    if value > 7 {
        publish();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = value;
    }
}

#[kernel]
pub fn return_in_loop(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    for x in input {
        if *x == thread_idx_x() {
            return;
        }
    }
    sync_threads();
    if let Some(o) = out.get_mut(idx) {
        *o = 1;
    }
}

fn main() {}
