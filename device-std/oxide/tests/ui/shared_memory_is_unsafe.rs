// Block-shared memory is an unsafe primitive: its accesses go through a raw pointer, whose use
// is `unsafe` (the caller promises no race within the block), and only a `static` is shared.
use oxide::prelude::*;

static TILE: SharedArray<f32, 64> = SharedArray::new();

#[kernel]
pub fn unguarded(mut out: DisjointSlice<f32>) {
    let t = thread::thread_idx_x() as usize;
    let tile = TILE.as_mut_ptr();
    *tile.add(t) = 1.0;
    thread::sync_threads();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = *tile;
    }
}

#[kernel]
pub fn local_tile(out: DisjointSlice<f32>) {
    let mine: SharedArray<f32, 4> = SharedArray::new();
    let _ = (mine.as_mut_ptr(), out);
}

fn main() {}
