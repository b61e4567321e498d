//! A `static mut` array used as a tile (a CUDA `__shared__` array ported naively) would be one
//! `.global` array for the whole grid, which every block races on: rejected at each use, with
//! the way to block-shared memory.

use oxide::prelude::*;
use oxide::thread::{block_dim_x, sync_threads, thread_idx_x};

static mut TILE: [f32; 256] = [0.0; 256];

#[kernel]
pub fn reverse_blocks(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let (t, n) = (thread_idx_x() as usize, block_dim_x() as usize);
    let value = values.get(idx.get()).copied().unwrap_or(0.0);
    unsafe { TILE[t] = value };
    sync_threads();
    let reversed = unsafe { TILE[n - 1 - t] };
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

fn main() {}
