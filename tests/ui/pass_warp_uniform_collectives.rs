//@ build-pass
//@ ptx: shfl.sync.idx.b32
//! Warp collectives may depend on warp-uniform conditions: `warp::warp_in_block()` is the same
//! in every lane of a warp, so a branch on it (or on a value computed from it and from
//! block-uniform values) is taken by whole warps.
use oxide::prelude::*;
use oxide::warp;

#[kernel]
pub fn even_warps_sum(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let v = input.get(idx.get()).copied().unwrap_or(0);
    let mut total = 0;
    if warp::warp_in_block() % 2 == 0 {
        total = warp::sum(v);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

/// A condition computed from the warp's index and block-uniform values: whole warps too.
#[kernel]
pub fn first_warps_max(input: &[f32], limit: u32, mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let v = input.get(idx.get()).copied().unwrap_or(0.0);
    let warp_row = thread::block_idx_x() * (thread::block_dim_x() / 32) + warp::warp_in_block();
    let mut m = 0.0;
    if warp_row < limit {
        m = warp::max(v);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = m;
    }
}

fn main() {}
