// A kernel has one dynamic shared array (CUDA's one `extern __shared__` region), typed once for
// all its instances; a write phase cannot reach another thread's slot, and a read phase cannot
// be written.
use oxide::prelude::*;

#[kernel]
pub fn two_regions(mut out: DisjointSlice<u32>, a: DynShared<u32>, b: DynShared<f32>) {
    let _ = (a, b);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

#[kernel]
pub fn generic_region<T: Copy + Send + Sync + 'static>(x: T, tile: DynShared<T>) {
    let _ = (x, tile);
}

#[kernel]
pub fn writes_a_read_phase(mut out: DisjointSlice<u32>, tile: DynShared<u32>) {
    let mut tile = tile.fill(0).sync();
    tile[0] = 5;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = tile[1];
    }
}

fn main() {}
