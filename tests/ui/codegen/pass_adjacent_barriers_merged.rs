//@ build-pass
//@ compile-flags: -O
//@ ptx-count(pair): 1 bar.sync
//@ ptx-count(apart): 2 bar.sync
//! Two shared arrays switched to their read phases together, `(a.sync(), b.sync())`, put two
//! barriers in a row with nothing between them: the second orders nothing the first did not,
//! and one `bar.sync` is left (`pair`). Barriers with a shared-memory access between them both
//! stay (`apart`).
use oxide::prelude::*;

#[kernel(block = "256")]
pub fn pair(
    values: &[f32],
    mut out: DisjointSlice<f32>,
    a: Shared<[f32; 256]>,
    b: Shared<[f32; 256]>,
) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(0.0);
    let (a, b) = (a.init(|_| mine), b.init(|_| mine * 2.0));
    let (a, b) = (a.sync(), b.sync());
    let t = thread::thread_idx_x() as usize;
    let sum = a[255 - t] + b[(t + 1) % 256];
    if let Some(o) = out.get_mut(idx) {
        *o = sum;
    }
}

#[kernel(block = "256")]
pub fn apart(
    values: &[f32],
    mut out: DisjointSlice<f32>,
    a: Shared<[f32; 256]>,
    b: Shared<[f32; 256]>,
) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(0.0);
    let t = thread::thread_idx_x() as usize;
    let a = a.init(|_| mine).sync();
    let first = a[255 - t];
    let b = b.init(|_| first).sync();
    let sum = b[(t + 1) % 256];
    if let Some(o) = out.get_mut(idx) {
        *o = sum;
    }
}

fn main() {}
