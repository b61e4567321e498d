// What a capture lends its closure lives only as long as the closure: the capturing handle
// (whose work is recorded, not run) and the reborrowed buffers cannot be kept for later, when
// the graph no longer holds them.
use oxide::prelude::*;

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    let mut kept_gpu = None;
    let graph = gpu.capture(&mut c, |g, _| {
        kept_gpu = Some(g);
        Ok(())
    })?;
    drop(graph);
    let mut kept_buffer = None;
    let graph = gpu.capture(&mut c, |_, c| {
        kept_buffer = Some(c);
        Ok(())
    })?;
    drop(graph);
    Ok(())
}
