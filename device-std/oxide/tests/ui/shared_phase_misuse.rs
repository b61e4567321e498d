// The phases of a block-shared array are types: a write view is gone after the barrier that
// ends its phase, a read view cannot write, nothing is read before `init`, and a reference into
// a read phase does not live past the barrier that ends it.
use oxide::prelude::*;

#[kernel]
pub fn write_after_sync(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    let mut writing = tile.fill(0);
    let reading = writing.sync();
    // Thread t would write slot t while the others read it.
    *writing.own_mut(0).unwrap() = 1;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = reading[0];
    }
}

#[kernel]
pub fn write_in_read_phase(tile: Shared<[u32; 64]>) {
    let reading = tile.fill(0).sync();
    reading[3] = 7;
}

#[kernel]
pub fn read_before_init(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = tile[0];
    }
}

#[kernel]
pub fn skip_init(tile: Shared<[u32; 64]>) {
    let _reading = tile.sync();
}

#[kernel]
pub fn reference_past_the_phase(mut out: DisjointSlice<u32>, tile: Shared<[u32; 64]>) {
    let reading = tile.fill(1).sync();
    let first = &reading[0];
    let mut writing = reading.sync();
    if let Some(slot) = writing.own_mut(0) {
        *slot = 2;
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = *first;
    }
}

#[kernel]
pub fn two_views(tile: Shared<[u32; 64]>) {
    let a = tile;
    let b = tile;
    let _ = (a.fill(0).sync(), b.fill(1));
}

fn main() {}
