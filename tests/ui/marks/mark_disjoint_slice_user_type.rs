//! `#[oxide_gpu::disjoint_slice]` on a kernel crate's own type with an output's words: once the
//! backend took such a parameter for a pointer and a length, while the launcher passed the
//! struct by value, and nothing gave its elements one writer each. How a parameter is passed is
//! now its type's `oxide::KernelParam` impl, which only device-std can write (the trait is
//! sealed), and the old mark is no mark at all.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::disjoint_slice]
#[derive(Clone, Copy)]
pub struct Words {
    pub address: usize,
    pub len: usize,
}

#[kernel]
pub fn takes_words(words: Words, mut out: DisjointSlice<usize>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = words.address + words.len;
    }
}

fn main() {}
