//@ build-pass
//@ compile-flags: -O
//@ ptx-not: trap
//! `same_len` is checked by the launch and told to the compiler by the kernel's entry
//! (`hint::assert_unchecked`, which becomes `llvm.assume`): after `i < a.len()`, the indexing of
//! `b` and the write through `out` need no bounds check, so no trap is left.
use oxide::prelude::*;

#[kernel(grid = "1d", same_len = "a, b, out")]
pub fn add(a: &[f32], b: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if i < a.len() {
        let sum = a[i] + b[i];
        if let Some(slot) = out.get_mut(idx) {
            *slot = sum;
        }
    }
}

fn main() {}
