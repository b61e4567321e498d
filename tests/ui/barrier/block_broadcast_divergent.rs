//! `block::broadcast` contains block barriers: under a condition on the thread index only some
//! threads of each block would reach them, which the backend refuses, as for `sync_threads`.

use oxide::block;
use oxide::prelude::*;
use oxide::thread::thread_idx_x;

#[kernel]
pub fn divergent_broadcast(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut v = input[0];
    if thread_idx_x() < 64 {
        v = block::broadcast(v, 0);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = v;
    }
}

fn main() {}
