//@ build-pass
//@ compile-flags: -O
//@ ptx-not: st.local
//@ ptx-not: ld.local
//! A `for` over an array by value inside another loop is unrolled in registers, as a range
//! loop is: after inlining `array::IntoIter::next`, the block that merges its `Some` and `None`
//! paths and branches again on the same test is threaded (LLVM's JumpThreading does nothing for
//! a GPU), so the loop has a trip count, is unrolled, and the array's elements become constants.
use core::sync::atomic::{AtomicU32, Ordering};

use oxide::prelude::*;

#[kernel]
pub fn byte_counts(words: &[u32], counts: &[AtomicU32]) {
    let mut i = thread::index_1d();
    while i < words.len() {
        let w = words[i];
        for shift in [0, 8, 16, 24] {
            counts[((w >> shift) & 0xff) as usize].fetch_add(1, Ordering::Relaxed);
        }
        i += 1000;
    }
}

/// A slice iterator, with `enumerate`, over a per-thread array of values.
#[kernel]
pub fn weighted(input: &[f32], out: &[AtomicU32]) {
    let t = thread::index_1d();
    let weights = [0.5f32, 0.25, 0.125, 0.125];
    let mut acc = 0.0f32;
    for (k, w) in weights.iter().enumerate() {
        if let Some(x) = input.get(4 * t + k) {
            acc += w * x;
        }
    }
    if let Some(slot) = out.get(t) {
        slot.store(acc.to_bits(), Ordering::Relaxed);
    }
}

fn main() {}
