// One thread cannot hold two element borrows of one DisjointSlice at once.
use oxide::prelude::*;

pub fn two(mut c: DisjointSlice<f32>) {
    let first = c.get_mut(ThreadIndex::linear());
    let second = c.get_mut(ThreadIndex::linear());
    if let (Some(x), Some(y)) = (first, second) {
        *x = *y;
    }
}

fn main() {}
