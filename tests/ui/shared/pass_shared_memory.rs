//@ build-pass
//@ ptx: .shared .align 4 .b8 __oxide_shared_TILE[1024];
//@ ptx: st.shared.b32
//@ ptx: bar.sync 0;
//@ ptx: ld.shared.b32
//! A `static` `SharedArray` is one `.shared` array per block, written and read with shared-space
//! instructions (not generic ones) around the block barrier.

use oxide::prelude::*;
use oxide::thread::{block_dim_x, sync_threads, thread_idx_x};

static TILE: SharedArray<f32, 256> = SharedArray::new();

#[kernel]
pub fn reverse_blocks(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let (t, n) = (thread_idx_x() as usize, block_dim_x() as usize);
    let (tile, value) = (TILE.as_mut_ptr(), values.get(idx.get()).copied());
    // SAFETY: thread `t` writes element `t` of its block's copy, and after the barrier reads
    // one its block wrote (blocks of at most 256 threads).
    unsafe { tile.add(t).write(value.unwrap_or(0.0)) };
    sync_threads();
    let reversed = unsafe { tile.add(n - 1 - t).read() };
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

fn main() {}
