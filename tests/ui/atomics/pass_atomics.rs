//@ build-pass
//@ ptx(add_in_place): atom.global.add.u32
//@ ptx(add_in_place): fence.sc.gpu;
//@ ptx(max_by_cas): atom.relaxed.gpu.global.cas.b64
//@ ptx-not(add_in_place): atom.add.u32
//! `core::sync::atomic` on global memory: device-scope (`.gpu`) atomics in the global space, and
//! a sequentially consistent fence at device scope (CUDA's `__threadfence()`).
#![feature(atomic_from_mut)]

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};

use oxide::prelude::*;

#[kernel]
pub fn add_in_place(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let before = AtomicU32::from_mut(o).fetch_add(x, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        *o ^= before;
    }
}

#[kernel]
pub fn max_by_cas(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        // SAFETY: `o` is a valid, aligned `u64` that no other thread accesses.
        let atomic = unsafe { AtomicU64::from_ptr(o) };
        let mut current = atomic.load(Ordering::Relaxed);
        while current < x {
            match atomic.compare_exchange(current, x, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(seen) => current = seen,
            }
        }
    }
}

fn main() {}
