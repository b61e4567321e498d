//@ build-pass
//@ ptx: atom.global.add.f32
//@ ptx: atom.global.add.f64
//@ ptx: atom.shared.add.f32
//@ ptx: atom.relaxed.sys.add.u32
//@ ptx: atom.global.max.s32
//@ ptx: atom.relaxed.sys.global.cas.b64
//@ ptx: fence.sc.cta
//@ ptx: fence.sc.sys
//@ ptx: match.any.sync.b32
//@ ptx: activemask.b32
//@ ptx: bar.warp.sync
//! Float atomics are one `atom.add` each (CUDA's `atomicAdd(float*)`), on global and on shared
//! memory; device-std's scoped atomics and fences reach PTX with their scope (`.sys`, `.cta`);
//! the warp's match, active mask and `__syncwarp` are their instructions.
use core::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::Relaxed};

use oxide::atomic::{AtomicF32, AtomicF64, ScopedAtomic, fence_block, fence_system};
use oxide::prelude::*;
use oxide::shared::Shared;
use oxide::warp;

#[kernel(block = "256")]
pub fn float_sums(
    values: &[f32],
    sums: &[AtomicF32],
    wide: &[AtomicF64],
    partial: Shared<[AtomicF32; 32]>,
) {
    let i = thread::index_1d();
    let slots = partial.init(|_| AtomicF32::new(0.0)).sync();
    let v = values.get(i).copied().unwrap_or(0.0);
    slots[(i % 32) as usize].fetch_add(v, Relaxed);
    let slots = slots.sync();
    if let Some(sum) = sums.get(i % 4) {
        sum.fetch_add(v, Relaxed);
    }
    if let Some(sum) = wide.get(i % 2) {
        sum.fetch_add(f64::from(v), Relaxed);
    }
    drop(slots);
}

#[kernel]
pub fn scoped(counts: &[AtomicU32], highs: &[AtomicI32], flags: &[AtomicU64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    counts[0].fetch_add_system(1);
    // SAFETY: each block uses its own element of `highs` only.
    unsafe { highs[thread::block_idx_x() as usize].fetch_max_block(i as i32) };
    fence_block();
    let _ = flags[0].compare_exchange_system(0, i as u64);
    fence_system();
    let same = warp::match_any(i as u32 / 4);
    warp::sync();
    if let Some(o) = out.get_mut(idx) {
        *o = same | warp::active_mask();
    }
}

fn main() {}
