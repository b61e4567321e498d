//@ build-pass
//@ ptx(linear_1d): %tid.x
//@ ptx-not(linear_1d): %tid.y
//@ ptx-not(linear_1d): %ctaid.y
//@ ptx-not(linear_1d): %tid.z
//@ ptx(linear_3d): %tid.y
//@ ptx(linear_3d): %ctaid.y
//! Under `grid = "1d"` the y and z indices are known to be 0, so the linear index reads only
//! the x registers; without it, all three dimensions are read.

use oxide::prelude::*;

#[kernel(grid = "1d")]
pub fn linear_1d(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get() as u32;
    if let Some(o) = out.get_mut(idx) {
        *o = i;
    }
}

#[kernel]
pub fn linear_3d(mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get() as u32;
    if let Some(o) = out.get_mut(idx) {
        *o = i;
    }
}

fn main() {}
