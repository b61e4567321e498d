// The driver forbids using one executable CUDA graph from two threads at once, so a Graph is
// not `Sync`: two threads cannot launch it through `&Graph`.
use oxide::prelude::*;

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    let graph = gpu.capture(&mut c, |g, c| g.memset_zeros(c))?;
    std::thread::scope(|s| {
        s.spawn(|| graph.launch(&gpu));
        s.spawn(|| graph.launch(&gpu));
    });
    Ok(())
}
