// Hole 1 of issue 7: a generic kernel instantiated with a reference to a `Cell` would have every
// GPU thread read-modify-write one host address. Its type argument is checked at the launch and
// at the emulation: `&'static Cell<u32>` is not plain device data.
use std::cell::Cell;
use std::ops::Deref;

use oxide::prelude::*;

#[kernel]
pub fn gen_cell<T: Deref<Target = Cell<u32>> + Copy>(t: T, mut out: DisjointSlice<u32>) {
    t.set(t.get() + 1);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = t.get();
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(64, 32)?;
    let mut out = gpu.alloc_zeroed::<u32>(64)?;
    let cell: &'static Cell<u32> = Box::leak(Box::new(Cell::new(0)));
    gen_cell::launch(&gpu, cfg, cell, &mut out)?;
    let mut host = [0u32; 64];
    gen_cell::emulate(&cfg, cell, &mut host)?;
    Ok(())
}
