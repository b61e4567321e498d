//@ build-pass
//@ ptx: shfl.sync.bfly.b32
//@ ptx: vote.sync.ballot.b32
//! A warp instruction is a device-std function with an `#[oxide_gpu::nvvm]` mark: the xor
//! shuffle and the ballot were added to oxide-device alone, with no backend change.

use oxide::prelude::*;
use oxide::warp::{shfl_sync_bfly_i32, vote_ballot_sync};

#[kernel]
pub fn warp_max_and_ballot(input: &[i32], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let mut max = if i < input.len() { input[i] } else { i32::MIN };
    for offset in [16, 8, 4, 2, 1] {
        max = max.max(unsafe { shfl_sync_bfly_i32(u32::MAX, max, offset, 0x1f) });
    }
    let positive = unsafe { vote_ballot_sync(u32::MAX, max > 0) };
    if let Some(o) = out.get_mut(idx) {
        *o = max ^ positive as i32;
    }
}

fn main() {}
