// A CUDA graph bakes in the addresses of its buffers, so it borrows them for as long as it
// exists: a buffer it uses cannot be dropped (nor moved) before the graph is, or a replay
// would use freed, perhaps reallocated, memory.
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
    let a = gpu.htod(&[1.0f32; 4])?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    let graph = gpu.capture((&a, &mut c), |g, (a, c)| add::launch(g, cfg, a, a, c))?;
    drop(a);
    drop(c);
    graph.launch(&gpu)?;
    Ok(())
}
