// The `__syncwarp` that ends a phase of a warp's shared region is a warp collective: under a
// condition on the lane it is rejected, as any other.
use oxide::prelude::*;
use oxide::shared::WarpRegions;

#[kernel]
pub fn half_warp_sync(mut out: DisjointSlice<u32>, regions: Shared<WarpRegions<u32, 32, 4>>) {
    let Some(region) = regions.warp_region() else {
        return;
    };
    let write = region.fill(1);
    if oxide::warp::lane_id() < 16 {
        let read = write.sync();
        if let Some(o) = out.get_mut(ThreadIndex::linear()) {
            *o = read[31];
        }
    }
}

fn main() {}
