// A closure passed to a kernel crosses to the GPU as its captures' bytes: one that captures a
// host reference, even a `'static` one, is not plain device data.
use oxide::prelude::*;

#[kernel]
pub fn map<F: Fn(u32) -> u32 + Copy>(f: F, input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = f(input[i]);
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(4, 4)?;
    let input = gpu.htod(&[1u32, 2, 3, 4])?;
    let mut out = gpu.alloc_zeroed::<u32>(4)?;
    let k: &'static u32 = Box::leak(Box::new(3));
    map::launch(&gpu, cfg, move |v| v * *k, &input, &mut out)?;
    Ok(())
}
