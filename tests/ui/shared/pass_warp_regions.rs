//@ build-pass
//@ ptx: bar.warp.sync
//@ ptx-not: bar.sync
//! A shared region per warp: each warp caches its row in its own region and reads it after
//! `__syncwarp` (`bar.warp.sync`), with no block barrier; a warp past the regions leaves
//! whole (`warp_region()` is warp-uniform), so the warp sums after it are allowed.
use oxide::prelude::*;
use oxide::shared::WarpRegions;

#[kernel]
pub fn row_neighbours(input: &[f32], mut out: DisjointSlice<f32>, rows: Shared<WarpRegions<f32, 64, 8>>) {
    let idx = ThreadIndex::linear();
    let Some(region) = rows.warp_region() else {
        return;
    };
    let row = idx.get() / 32;
    let cached = region.init(|s| input.get(row * 64 + s).copied().unwrap_or(0.0)).sync();
    let lane = oxide::warp::lane_id() as usize;
    let v = cached[2 * lane] + cached[(2 * lane + 1) % 64];
    let total = oxide::warp::sum(v);
    if let Some(o) = out.get_mut(idx) {
        *o = v / total;
    }
}

fn main() {}
