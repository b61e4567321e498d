// A CUDA graph holds `&mut` the buffers it writes for as long as it exists: the host cannot
// read one (nor write it, nor pass it to another launch) while a replay may be writing it;
// dropping the graph ends the borrow, and `dtoh` then waits for the replays.
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
    let mut d = gpu.alloc_zeroed::<f32>(4)?;
    let graph = gpu.capture((&a, &mut c), |g, (a, c)| add::launch(g, cfg, a, a, c))?;
    graph.launch(&gpu)?;
    let seen = gpu.dtoh(&c)?;
    add::launch(&gpu, cfg, &c, &a, &mut d)?;
    graph.launch(&gpu)?;
    println!("{seen:?}");
    Ok(())
}
