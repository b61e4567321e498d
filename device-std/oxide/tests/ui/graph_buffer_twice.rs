// The buffers of a CUDA graph are borrowed once, when the capture starts: one the graph writes
// cannot also be given to it shared, nor twice as `&mut`; inside the capture each launch then
// borrows what it was lent, so two captured launches can use it in turn.
use oxide::prelude::*;

#[kernel]
pub fn add(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = c.get_mut(idx) {
        *o = a[i] + b[i];
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(4, 4)?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    let g1 = gpu.capture((&c, &mut c), |g, (a, c)| add::launch(g, cfg, a, a, c))?;
    let g2 = gpu.capture((&mut c, &mut c), |_, _| Ok(()))?;
    // Inside one launch the lent buffer is still borrowed once.
    let g3 = gpu.capture(&mut c, |g, c| add::launch(g, cfg, &*c, &*c, &mut *c))?;
    drop((g1, g2, g3));
    Ok(())
}
