// A writable view borrows its buffer mutably, so two views of one buffer cannot be one launch's
// outputs (nor one output and one input), even of disjoint ranges: the kernel's slices are
// `noalias`, and the launcher takes each buffer once.
use oxide::prelude::*;

#[kernel]
pub fn two_outputs(mut x: DisjointSlice<f32>, mut y: DisjointSlice<f32>) {
    if let Some(o) = x.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
    if let Some(o) = y.get_mut(ThreadIndex::linear()) {
        *o = 2.0;
    }
}

#[kernel]
pub fn copy(a: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = c.get_mut(idx) {
        *o = a[i];
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(4, 4)?;
    let mut c = gpu.alloc_zeroed::<f32>(8)?;
    two_outputs::launch(&gpu, cfg, &mut c.slice_mut(..4)?, &mut c.slice_mut(4..)?)?;
    let mut low = c.slice_mut(..4)?;
    copy::launch(&gpu, cfg, &c.slice(4..)?, &mut low)?;
    Ok(())
}
