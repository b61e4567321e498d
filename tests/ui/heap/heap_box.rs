//! `Box::new` allocates on the heap, which device code does not have.

use oxide::prelude::*;

fn boxed_square(x: f32) -> f32 {
    let b = Box::new(x * x);
    *b
}

#[kernel]
pub fn heap_box(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = boxed_square(input[i]);
    }
}

fn main() {}
