//! A barrier under a condition on the thread index: only half the threads of each block would
//! execute `bar.sync`, which is undefined behaviour on the GPU.

use oxide::prelude::*;
use oxide::thread::{sync_threads, thread_idx_x};

#[kernel]
pub fn divergent_if(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    if thread_idx_x() % 2 == 0 {
        sync_threads();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = input[0];
    }
}

fn main() {}
