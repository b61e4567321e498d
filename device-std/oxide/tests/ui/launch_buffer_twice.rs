// The launcher borrows each buffer once, mutably or not, so a kernel's slices never alias: a
// buffer cannot be both read (`&[T]`) and written (`DisjointSlice<T>`), nor written twice.
use oxide::prelude::*;

#[kernel]
pub fn add(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = c.get_mut(idx) {
        *o = a[i] + b[i];
    }
}

#[kernel]
pub fn two_outputs(mut x: DisjointSlice<f32>, mut y: DisjointSlice<f32>) {
    if let Some(o) = x.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
    if let Some(o) = y.get_mut(ThreadIndex::linear()) {
        *o = 2.0;
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(4, 4)?;
    let a = gpu.htod(&[1.0f32; 4])?;
    let mut c = gpu.alloc_zeroed::<f32>(4)?;
    add::launch(&gpu, cfg, &a, &c, &mut c)?;
    two_outputs::launch(&gpu, cfg, &mut c, &mut c)?;
    let mut host = [0.0f32; 4];
    add::emulate(&cfg, &host, &[1.0; 4], &mut host)?;
    Ok(())
}
