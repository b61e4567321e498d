//! `#[oxide_gpu::disjoint_slice]` on a kernel crate's own type with an output's words: the
//! backend took the parameter for a pointer and a length, while the launcher passes the struct
//! by value, and nothing gives its elements one writer each. Type marks are device-std's only.
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
