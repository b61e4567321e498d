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

/// `WarpRows::row_mut` is warp-uniform: a warp without a row leaves whole, and the warps that
/// stay use collectives (the shape of a row softmax).
#[kernel]
pub fn row_sums(input: &[u32], mut out: WarpRows<u32>) {
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let width = row.width();
    let Some(xs) = input.get(row.row() * width..(row.row() + 1) * width) else {
        return;
    };
    let mut col = warp::lane_id() as usize;
    let mut sum = 0u32;
    while col < width {
        sum = sum.wrapping_add(xs[col]);
        col += 32;
    }
    let sum = warp::sum(sum);
    row.for_each_own(|_, o| *o = sum);
}

fn main() {}
