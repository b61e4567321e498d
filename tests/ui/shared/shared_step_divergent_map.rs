// A computed-slot step's map must be the same in every thread of a block: with a map computed
// from the thread index, thread 0 (slots 0 and 1) and thread 1 (slot 1) would both write slot 1.
use oxide::prelude::*;
use oxide::shared::SlotMap;

#[kernel]
pub fn map_from_thread_index(mut out: DisjointSlice<u32>, tile: Shared<[u32; 128]>) {
    let t = thread::thread_idx_x() as usize;
    let read = tile.fill(1).sync();
    let mut step = read.step(SlotMap::new(2, t, 2, 64));
    if let Some((_, own)) = step.own_mut(0) {
        *own += 1;
    }
    let read = step.sync();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = read[1];
    }
}

#[kernel]
pub fn map_from_an_input(values: &[u32], mut out: DisjointSlice<u32>, tile: Shared<[u32; 128]>) {
    let idx = ThreadIndex::linear();
    let writers = values.get(idx.get()).copied().unwrap_or(0) as usize;
    let read = tile.fill(1).sync();
    let step = read.step(SlotMap::affine(1, 0, writers));
    let read = step.sync();
    if let Some(o) = out.get_mut(idx) {
        *o = read[0];
    }
}

fn main() {}
