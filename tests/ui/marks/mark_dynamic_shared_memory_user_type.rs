//! `#[oxide_gpu::dynamic_shared_memory]` on a kernel crate's own type: a `static` of it became
//! the block's dynamic shared memory, which no launch of this kernel sizes, so safe code read
//! past what the block was given. Type marks are device-std's only.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::dynamic_shared_memory]
pub struct Region {
    words: [u32; 64],
}

static REGION: Region = Region { words: [7; 64] };

#[kernel]
pub fn reads_unsized(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get() % 64;
    if let Some(o) = out.get_mut(idx) {
        *o = REGION.words[i];
    }
}

fn main() {}
