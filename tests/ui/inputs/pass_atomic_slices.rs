//@ build-pass
//@ llvm-define(count_words): ptr noalias nonnull readonly align 16 %0
//@ llvm-define(count_words): ptr nonnull align 16 %2
//@ ptx: ld.global.nc.b32
//@ ptx: atom.global.add.u32
//! A `&[T]` is `noalias readonly` (its loads go through the read-only cache) only when `T` has no
//! interior mutability: a `&[AtomicU32]` is written by every thread through its own copy of the
//! pointer, so it is neither (an atomic add through a `readonly` pointer is undefined in LLVM
//! IR).
use core::sync::atomic::{AtomicU32, Ordering};

use oxide::prelude::*;

#[kernel]
pub fn count_words(words: &[u32], counts: &[AtomicU32]) {
    let i = thread::index_1d();
    if let Some(&w) = words.get(i) {
        counts[(w % 16) as usize].fetch_add(1, Ordering::Relaxed);
    }
}

fn main() {}
