//! An early `return` that depends on the thread index: the threads that return never reach the
//! barrier the others wait at.

use oxide::prelude::*;
use oxide::thread::{sync_threads, thread_idx_x};

#[kernel]
pub fn divergent_return(n: u32, mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    if thread_idx_x() >= n {
        return;
    }
    sync_threads();
    if let Some(o) = out.get_mut(idx) {
        *o = n;
    }
}

fn main() {}
