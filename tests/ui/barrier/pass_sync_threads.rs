//@ build-pass
//@ ptx: bar.sync 0;
//! `sync_threads()` is the block-wide barrier `__syncthreads`.

use oxide::prelude::*;
use oxide::thread::sync_threads;

#[kernel]
pub fn barrier(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    sync_threads();
    if let Some(o) = out.get_mut(idx) {
        *o = input[i];
    }
}

fn main() {}
