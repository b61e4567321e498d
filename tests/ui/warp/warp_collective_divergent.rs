//! A safe warp collective under a condition on the thread index: the odd lanes would not take
//! part in the shuffles of `warp::sum`, which is undefined behaviour on the GPU.

use oxide::prelude::*;
use oxide::thread::thread_idx_x;
use oxide::warp;

#[kernel]
pub fn divergent_sum(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut total = 0;
    if thread_idx_x() % 2 == 0 {
        total = warp::sum(input[idx.get()]);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

fn main() {}
