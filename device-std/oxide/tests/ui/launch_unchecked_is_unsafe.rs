// A launch contract can only be bypassed with `unsafe`: `launch_unchecked` skips the checks of
// `#[kernel(block = ...)]`, whose shape the backend folded into the kernel's index arithmetic
// (another shape can give two threads one element).
use oxide::prelude::*;

#[kernel(block = "32x8")]
pub fn fixed(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = thread::block_dim_x();
    }
}

fn launch_anyway(gpu: &Gpu, out: &mut DeviceBuffer<u32>) -> Result<(), oxide::host::Error> {
    let cfg = LaunchConfig::for_num_elems(out.len(), 64)?;
    fixed::launch_unchecked(gpu, cfg, out)
}

fn main() {
    let _ = launch_anyway;
}
