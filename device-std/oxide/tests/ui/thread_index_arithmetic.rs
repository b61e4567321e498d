// A ThreadIndex cannot be shifted to another thread's element.
use oxide::prelude::*;

pub fn neighbour(mut c: DisjointSlice<f32>) {
    let next = ThreadIndex::linear() + 1;
    c.get_mut(next);
}

fn main() {}
