// A ThreadIndex cannot be cloned, or used twice.
use oxide::prelude::*;

pub fn cloned(mut a: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let again = idx.clone();
    a.get_mut(again);
}

pub fn used_twice(mut a: DisjointSlice<f32>, mut b: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    a.get_mut(idx);
    b.get_mut(idx);
}

fn main() {}
