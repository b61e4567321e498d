//@ build-pass
//@ ptx: .shared .align 4 .b8 __oxide_shared_tile[1024];
//@ ptx: st.shared.b32
//@ ptx: bar.sync 0;
//@ ptx: ld.shared.b32
//@ ptx-not: cvta.shared
//! A `Shared<[f32; 256]>` kernel parameter is one `.shared` array per block, which the launch
//! does not pass (the entry has two parameters: the slice's pointer and length... and the
//! output's), written and read with shared-space instructions around the barrier of `sync`.
use oxide::prelude::*;

#[kernel]
pub fn reverse_blocks(values: &[f32], mut out: DisjointSlice<f32>, tile: Shared<[f32; 256]>) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(0.0);
    let tile = tile.init(|_| mine).sync();
    let (t, n) = (thread::thread_idx_x() as usize, thread::block_dim_x() as usize);
    let reversed = tile[n - 1 - t];
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

fn main() {}
