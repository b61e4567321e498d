// A kernel crate's own type marked as an output (`#[oxide_gpu::disjoint_slice]`) whose layout is
// not an output's words. Before type marks were device-std's only, this was an error at the
// kernel (not an internal error of the backend); now the mark itself is refused, before any
// layout is looked at (mark_disjoint_slice_user_type.rs has one with an output's layout).
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::disjoint_slice]
#[derive(Clone, Copy)]
pub struct NotAnOutput {
    pub small: u8,
    pub values: [f32; 3],
}

#[kernel]
pub fn marked(x: NotAnOutput, mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = x.values[0] + f32::from(x.small);
    }
}

fn main() {}
