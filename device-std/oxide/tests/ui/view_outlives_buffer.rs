// A view borrows its buffer: it cannot be used (launched, copied) once the buffer is dropped,
// whose memory is then freed.
use oxide::prelude::*;

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
    let a = gpu.htod(&[1.0f32; 8])?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    let view = a.slice(4..)?;
    drop(a);
    copy::launch(&gpu, cfg, &view, &mut c)?;
    let mut out = gpu.alloc_zeroed::<f32>(8)?;
    let mut part = out.slice_mut(..4)?;
    drop(out);
    gpu.memset_zeros(&mut part)?;
    Ok(())
}
