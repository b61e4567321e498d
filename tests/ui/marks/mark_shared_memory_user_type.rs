//! `#[oxide_gpu::shared_memory]` on a kernel crate's own type: a `static` of it became
//! uninitialised block-shared memory, so safe code read it uninitialised (the GPU read 0, the
//! emulator the initialiser 7). Type marks are device-std's only.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::shared_memory]
pub struct Tile {
    value: u32,
}

static TILE: Tile = Tile { value: 7 };

#[kernel]
pub fn reads_uninitialised(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = TILE.value;
    }
}

fn main() {}
