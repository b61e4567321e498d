// `same_len` and `covers` name arguments that have a length the launcher knows.
use oxide::prelude::*;

#[kernel(same_len = "a, missing", covers = "k")]
pub fn named_wrong(a: &[f32], k: u32, mut out: DisjointSlice<f32>) {
    let _ = (a, k, out.get_mut(ThreadIndex::linear()));
}

#[kernel(same_len = "a")]
pub fn one_name(a: &[f32]) {
    let _ = a;
}

fn main() {}
