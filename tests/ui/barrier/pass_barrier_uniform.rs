//@ build-pass
//@ ptx(tiled_sum): bar.sync 0;
//@ ptx(tiled_by_len): bar.sync 0;
//@ ptx(uniform_branches): bar.sync 0;
//@ ptx(after_divergence): bar.sync 0;
//! Barriers every thread of a block reaches, which the uniformity check accepts: tiled loops
//! over `n / TILE` (`n` a by-value parameter or a slice length), a helper with a barrier called
//! in uniform control flow, branches on parameters and block indices, bounds checks (a trap ends
//! the whole kernel), divergent branches that join again before the barrier, and a uniform value
//! destructured from a tuple with a divergent one.

use oxide::prelude::*;
use oxide::thread::{block_dim_x, block_idx_x, sync_threads, thread_idx_x};

const TILE: usize = 32;

static TILE_A: SharedArray<f32, TILE> = SharedArray::new();

/// Every thread of the block stores its element of tile `t`, then waits for the others.
fn load_tile(input: &[f32], t: usize) {
    let tx = thread_idx_x() as usize;
    let value = input.get(t * TILE + tx).copied().unwrap_or(0.0);
    // SAFETY: blocks have at most TILE threads; thread `tx` writes element `tx`.
    unsafe { TILE_A.as_mut_ptr().add(tx).write(value) };
    sync_threads();
}

#[kernel]
pub fn tiled_sum(input: &[f32], n: usize, mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let tx = thread_idx_x() as usize;
    let mut acc = 0.0;
    for t in 0..n / TILE {
        load_tile(input, t);
        // SAFETY: every thread of the block wrote its element before the barrier.
        acc += unsafe { TILE_A.as_mut_ptr().add(TILE - 1 - tx).read() };
        sync_threads();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = acc;
    }
}

#[kernel]
pub fn tiled_by_len(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let own = input.get(idx.get()).copied().unwrap_or(0.0);
    let tx = thread_idx_x() as usize;
    let mut acc = 0.0;
    let mut t = 0;
    while t < input.len().div_ceil(TILE) {
        let value = input.get(t * TILE + tx).copied().unwrap_or(0.0);
        unsafe { TILE_A.as_mut_ptr().add(tx).write(value) };
        sync_threads();
        if tx % 2 == 0 {
            acc += unsafe { TILE_A.as_mut_ptr().add(tx + 1).read() };
        } else {
            acc -= 1.0;
        }
        sync_threads();
        t += 1;
    }
    if let Some(o) = out.get_mut(idx) {
        *o = acc + own;
    }
}

#[kernel]
pub fn uniform_branches(flag: u32, input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get() % input.len()];
    if flag > 3 && block_idx_x() % 2 == 0 && input.len() > 100 {
        sync_threads();
    }
    for chunk in input.chunks(TILE) {
        if chunk[0] > 1.0 {
            sync_threads();
        }
    }
    if let Some(o) = out.get_mut(idx) {
        *o = x;
    }
}

#[kernel]
pub fn after_divergence(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let mut acc = 0;
    for i in 0..thread_idx_x() {
        acc += i;
    }
    sync_threads();
    // A tuple of a divergent and a uniform value: each field keeps its own uniformity.
    let (t, n) = (thread_idx_x(), block_dim_x());
    let mut stride = n / 2;
    while stride > 0 {
        sync_threads();
        if t < stride {
            acc += input[0];
        }
        stride /= 2;
    }
    if let Some(o) = out.get_mut(idx) {
        *o = acc;
    }
}

fn main() {}
