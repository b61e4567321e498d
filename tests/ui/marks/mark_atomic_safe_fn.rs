//! `#[oxide_gpu::atomic]` on a safe function: an atomic exchange through a `&u32` of a
//! read-only input (`noalias readonly` for LLVM) compiled, and changed the input on the H200.
//! Outside device-std a device mark needs an `unsafe fn`.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::atomic(op = "xchg", scope = "device", ordering = "relaxed")]
#[inline(never)]
fn exchange(_place: &u32, value: u32) -> u32 {
    value
}

#[kernel]
pub fn exchanges_into_its_input(input: &[u32], mut out: DisjointSlice<u32>) {
    let old = exchange(&input[0], 7);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = old;
    }
}

fn main() {}
