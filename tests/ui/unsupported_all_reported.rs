//! Every unsupported construct of a kernel is reported in one build, each at the user's line:
//! a heap allocation, a function pointer and its call, and two float functions whose
//! unsupported intrinsic lies inside the standard library (the notes show where), one of them
//! through a helper of this crate.

use oxide::prelude::*;

fn helper(x: f32) -> f32 {
    x.sin() * 2.0
}

fn double(x: u32) -> u32 {
    x * 2
}

#[kernel]
pub fn many(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let b = Box::new(input[i]);
        let f: fn(u32) -> u32 = double;
        *o = helper(*b) + f(i as u32) as f32 + input[i].cos();
    }
}

fn main() {}
