//! `println!` in a kernel: `std` and formatting are host-only.

use oxide::prelude::*;

fn report(x: u32) -> u32 {
    println!("value {x}");
    x
}

#[kernel]
pub fn std_println(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = report(input[i]);
    }
}

fn main() {}
