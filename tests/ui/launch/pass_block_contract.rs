//@ build-pass
//@ compile-flags: -O
//@ ptx: .reqntid 32, 8, 1
//@ ptx-not: %ntid
//! `#[kernel(block = "32x8")]` is a launch contract: the launcher refuses other block shapes,
//! and in exchange the backend folds `blockDim` to the constants (no `%ntid` read) and tells
//! ptxas the exact shape (`.reqntid`).
use oxide::prelude::*;

#[kernel(block = "32x8")]
pub fn linear_in_block(mut out: DisjointSlice<u32>) {
    let t = thread::thread_idx_y() * thread::block_dim_x() + thread::thread_idx_x();
    let n = thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = t * 1000 + n;
    }
}

fn main() {}
