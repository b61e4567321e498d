//@ build-pass
//@ ptx: %laneid
//@ ptx: shfl.sync.idx.b32
//@ ptx: shfl.sync.down.b32
//@ ptx: shfl.sync.up.b32
//! `oxide::warp`'s functions are device-std functions over the NVVM escape hatch: each call is
//! its instruction, with no backend code of its own.

use oxide::prelude::*;
use oxide::warp::{lane_id, shfl_sync_down_i32, shfl_sync_idx_i32, shfl_sync_up_i32};

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

/// The raw down and up shuffles, whole warp.
#[kernel]
pub fn neighbours(input: &[i32], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let v = input.get(idx.get()).copied().unwrap_or(0);
    // SAFETY: every lane of the warp makes both calls with the full mask (blocks are whole
    // warps in this test's launches).
    let (next, previous) = unsafe {
        (
            shfl_sync_down_i32(u32::MAX, v, 1, 0x1f),
            shfl_sync_up_i32(u32::MAX, v, 1, 0),
        )
    };
    if let Some(o) = out.get_mut(idx) {
        *o = next - previous;
    }
}

fn main() {}
