//@ build-pass
//@ ptx: shfl.sync.idx.b32
//@ ptx: vote.sync.ballot.b32
//@ ptx-not: bar.sync
//! The safe warp collectives are plain calls when every thread of the block reaches them, even
//! in a loop whose trip count is a kernel parameter; the marker that the backend checks them by
//! emits nothing.

use oxide::prelude::*;
use oxide::warp;

#[kernel]
pub fn warp_totals(input: &[f32], rounds: u32, mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let mut x = input.get(idx.get()).copied().unwrap_or(0.0);
    for _ in 0..rounds {
        x = warp::sum(x) * 0.5 + warp::shuffle_xor(x, 1);
    }
    let any_negative = warp::any(x < 0.0);
    if let Some(o) = out.get_mut(idx) {
        *o = if any_negative { -x } else { x };
    }
}

fn main() {}
