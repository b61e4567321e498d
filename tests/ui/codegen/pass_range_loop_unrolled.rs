//@ build-pass
//@ compile-flags: -O
//@ ptx-not: st.local
//@ ptx-not: ld.local
//! A constant-trip `for` over a range inside another loop is unrolled in registers (four
//! atomics, no local memory); tests/ui/codegen/pass_for_in_array_unrolled.rs holds the same for
//! a `for` over an array by value.
use core::sync::atomic::{AtomicU32, Ordering};

use oxide::prelude::*;

#[kernel]
pub fn byte_counts(words: &[u32], counts: &[AtomicU32]) {
    let mut i = thread::index_1d();
    while i < words.len() {
        let w = words[i];
        for byte in 0..4 {
            counts[((w >> (8 * byte)) & 0xff) as usize].fetch_add(1, Ordering::Relaxed);
        }
        i += 1000;
    }
}

fn main() {}
