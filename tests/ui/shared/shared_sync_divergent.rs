// The barrier that ends a phase of a block-shared array is a block barrier: under a condition on
// the thread index, or after an early return of some threads, it is rejected like any other.
use oxide::prelude::*;

#[kernel]
pub fn half_sync(mut out: DisjointSlice<u32>, tile: Shared<[u32; 128]>) {
    let writing = tile.fill(1);
    if thread::thread_idx_x() < 64 {
        let reading = writing.sync();
        if let Some(o) = out.get_mut(ThreadIndex::linear()) {
            *o = reading[0];
        }
    }
}

#[kernel]
pub fn early_exit(values: &[u32], mut out: DisjointSlice<u32>, tile: Shared<[u32; 128]>) {
    let i = thread::index_1d();
    if i >= values.len() {
        return;
    }
    let reading = tile.fill(values[i]).sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = reading[127];
    }
}

fn main() {}
