//! A `thread_local!` read from a kernel: GPU threads have no thread-local storage.

use std::cell::Cell;

use oxide::prelude::*;

thread_local! {
    static COUNTER: Cell<u32> = const { Cell::new(0) };
}

#[kernel]
pub fn thread_local(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = input[i] + COUNTER.with(|c| c.get());
    }
}

fn main() {}
