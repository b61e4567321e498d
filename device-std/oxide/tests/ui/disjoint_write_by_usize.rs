// A DisjointSlice has no safe write by a plain index: not by `[]`, not by `get_mut(usize)`.
use oxide::prelude::*;

pub fn by_brackets(mut c: DisjointSlice<f32>) {
    c[3] = 1.0;
}

pub fn by_usize(mut c: DisjointSlice<f32>) {
    let i = thread::index_1d();
    if let Some(out) = c.get_mut(i) {
        *out = 1.0;
    }
}

fn main() {}
