//@ build-pass
//@ ptx: %laneid
//@ ptx: shfl.sync.idx.b32
//! `oxide::warp`'s functions are device-std functions over the NVVM escape hatch: each call is
//! its instruction, with no backend code of its own.

use oxide::prelude::*;
use oxide::warp::{lane_id, shfl_sync_idx_i32};

#[kernel]
pub fn rotate_lanes(input: &[i32], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let value = input[i];
    let next = (lane_id() + 1) % 32;
    let rotated = unsafe { shfl_sync_idx_i32(u32::MAX, value, next, 0x1f) };
    if let Some(o) = out.get_mut(idx) {
        *o = rotated;
    }
}

fn main() {}
