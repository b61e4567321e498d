//! Calling through a function pointer: device code calls functions directly.

use oxide::prelude::*;

fn double(x: u32) -> u32 {
    x * 2
}

fn triple(x: u32) -> u32 {
    x * 3
}

#[kernel]
pub fn fn_pointer(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let f: fn(u32) -> u32 = if i % 2 == 0 { double } else { triple };
        *o = f(input[i]);
    }
}

fn main() {}
