//! A `Vec` in a kernel: heap allocation.

use oxide::prelude::*;

#[kernel]
pub fn heap_vec(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let mut v = Vec::new();
        v.push(input[i]);
        *o = v[0];
    }
}

fn main() {}
