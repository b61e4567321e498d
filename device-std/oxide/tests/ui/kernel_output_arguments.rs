// The output and shared-memory parameter types are checked at the kernel's signature: no named
// lifetimes (they borrow the launch), a shared array is an array, and `block` is a shape.
use oxide::prelude::*;

#[kernel]
pub fn named_lifetimes(out: DisjointRows<'static, f32>, tile: Shared<'static, [u32; 4]>) {
    let _ = (out, tile);
}

#[kernel]
pub fn not_an_array(tile: Shared<u32>) {
    let _ = tile;
}

#[kernel(block = "2048")]
pub fn too_many_threads(out: DisjointChunks<f32, 4>) {
    let _ = out;
}

fn main() {}
