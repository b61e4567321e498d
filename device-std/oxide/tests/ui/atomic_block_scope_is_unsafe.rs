// A block-scoped atomic is atomic only among the threads of one block: two blocks updating one
// element of a buffer the whole launch shares would race, so the `_block` operations are
// `unsafe` (the caller promises no other block touches the element). The system-scoped ones are
// safe: a wider scope is never wrong.
use core::sync::atomic::AtomicU32;

use oxide::atomic::{AtomicF32, ScopedAtomic};
use oxide::prelude::*;

#[kernel]
pub fn block_counts(counts: &[AtomicU32], sums: &[AtomicF32], mut out: DisjointSlice<u32>) {
    counts[0].fetch_add_system(1);
    counts[0].fetch_add_block(1);
    sums[0].fetch_add_block(1.0);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {}
