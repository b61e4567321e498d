//@ build-pass
//@ ptx: st.global.v4.b32
//@ ptx-not: call
//! Every output shape reports its writes to the emulator's race detector (docs/safety.md,
//! "Ownership arithmetic never wraps"); on the GPU the reports are no instruction, with
//! `#[track_caller]` on the accessors and in a build with overflow checks.
use oxide::prelude::*;

#[kernel]
pub fn tiles(mut out: BlockTiles<u32, 32, 32>) {
    if let Some(mut tile) = out.tile_mut() {
        for i in 0..4 {
            if let Some(((row, col), o)) = tile.own_mut((i, 0)) {
                *o = (row ^ col) as u32;
            }
        }
    }
}

#[kernel]
pub fn rows(mut out: DisjointRows<u32>, mut per_warp: WarpRows<u32>) {
    if let Some(((row, _), o)) = out.at_thread() {
        *o = row as u32;
    }
    if let Some(mut row) = per_warp.row_mut() {
        row.for_each_own(|col, o| *o = col as u32);
        if let Some((_, o)) = row.own_mut(1) {
            *o += 1;
        }
    }
}

#[kernel]
pub fn pairs_and_chunks(mut pairs: DisjointPairs<u32>, mut c: DisjointChunks<f32, 4>) {
    if let Some((_, a, b)) = pairs.pair_mut(ThreadIndex::linear()) {
        core::mem::swap(a, b);
    }
    let mut chunks = c.grid_stride(&ThreadIndex::linear());
    for (first, out) in &mut chunks {
        *out = [first as f32; 4];
    }
    if let Some((_, tail)) = chunks.into_remainder() {
        tail.fill(0.0);
    }
}

fn main() {}
