//@ build-pass
//@ ptx: .extern .shared .align 16 .b8 __oxide_shared___OXIDE_DYNAMIC_SHARED[];
//@ ptx: ld.shared.b32
//@ ptx: bar.sync 0;
//! A `DynShared<f32>` parameter is the block's dynamic shared memory: an `extern .shared` array
//! aligned to 16, sized by the launch, whose length is the kernel's parameter in its place.
use oxide::prelude::*;

#[kernel]
pub fn block_reverse(values: &[f32], mut out: DisjointSlice<f32>, tile: DynShared<f32>) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(0.0);
    let tile = tile.init(|_| mine).sync();
    let (t, n) = (thread::thread_idx_x() as usize, thread::block_dim_x() as usize);
    let reversed = tile.get(n - 1 - t).copied().unwrap_or(0.0);
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

fn main() {}
