//@ build-pass
//@ compile-flags: -O
//@ ptx-not: %tid.z
//@ ptx-not: trap
//! Under `#[kernel(block = "32x8")]` a thread index is below the block's size along its axis
//! (the backend tells LLVM with `llvm.assume`) and `tid.z` is 0: the ownership tests and bounds
//! checks this implies fold away, here the index of a 32 x 8 tile into a table, which never
//! traps.
use oxide::prelude::*;

#[kernel(block = "32x8")]
pub fn bounded_tile(mut out: DisjointSlice<u32>) {
    let table: [u32; 256] = core::array::from_fn(|i| (i as u32).wrapping_mul(2_654_435_761));
    let (x, y, z) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
        thread::thread_idx_z() as usize,
    );
    let v = table[(z * 8 + y) * 32 + x];
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = v;
    }
}

fn main() {}
