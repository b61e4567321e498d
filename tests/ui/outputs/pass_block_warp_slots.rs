//@ build-pass
//@ compile-flags: -O
//@ ptx: st.global.b32
//@ ptx-not: atom
//! `BlockSlots` and `WarpSlots`: one writer per block (its first thread) and per warp (its lane
//! 0), a plain global store each, no atomic.
use oxide::prelude::*;

#[kernel(block = "256")]
pub fn partial_sums(input: &[u32], mut per_block: BlockSlots<u32>, mut per_warp: WarpSlots<u32>) {
    let v = input.get(ThreadIndex::linear().get()).copied().unwrap_or(0);
    let block_total = oxide::block::sum(v);
    let warp_total = oxide::warp::sum(v);
    if let Some(slot) = per_block.slot_mut() {
        *slot = block_total;
    }
    if let Some(slot) = per_warp.slot_mut() {
        *slot = warp_total;
    }
}

fn main() {}
