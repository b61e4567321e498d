//! A constant named like a kernel marker with options, beside the `#[kernel]` it names: two
//! markers of one kernel, which would be one PTX entry compiled twice. An error at the
//! constant the user wrote; before, "internal error ... Multiple definitions of Symbol victim".
//! kernel_marker_collision_generic.rs is the same with a generic kernel.

use oxide::prelude::*;

#[kernel]
pub fn victim(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

#[allow(non_upper_case_globals)]
pub const __oxide_kernel_grid1d__victim: fn(DisjointSlice<u32>) = victim;

fn main() {}
