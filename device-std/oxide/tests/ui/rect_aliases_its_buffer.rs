// A rectangle of a buffer (`Rows::rect`) borrows the whole buffer mutably, so two rectangles of
// one buffer cannot be one launch's outputs, even disjoint ones, nor can the buffer be read
// beside its rectangle: the kernel's slices are `noalias` and each covers the whole buffer (the
// rectangle is a shape over it). Disjoint rectangles are written by separate launches, which the
// buffer's record orders.
use oxide::host::Rows;
use oxide::prelude::*;

#[kernel]
pub fn halves(mut left: DisjointRows<f32>, mut right: DisjointRows<f32>) {
    if let Some((_, o)) = left.at_thread() {
        *o = 1.0;
    }
    if let Some((_, o)) = right.at_thread() {
        *o = 2.0;
    }
}

#[kernel]
pub fn stencil(input: &[f32], mut out: DisjointRows<f32>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    if let Some(((r, c), o)) = out.at_thread() {
        *o = input[(top + r) * pitch + left + c - 1];
    }
}

fn main() -> Result<(), oxide::host::Error> {
    let gpu = Gpu::new(0)?;
    let cfg = LaunchConfig::for_num_elems(4, 4)?;
    let mut grid = gpu.alloc_zeroed::<f32>(64)?;
    halves::launch(
        &gpu,
        cfg,
        Rows::new(&mut grid, 8)?.rect(1..7, 1..4)?,
        Rows::new(&mut grid, 8)?.rect(1..7, 4..7)?,
    )?;
    stencil::launch(&gpu, cfg, &grid, Rows::new(&mut grid, 8)?.rect(1..7, 1..7)?)?;
    let mut host = vec![0.0f32; 64];
    stencil::emulate(&cfg, &host, Rows::new(&mut host[..], 8)?.rect(1..7, 1..7)?)?;
    Ok(())
}
