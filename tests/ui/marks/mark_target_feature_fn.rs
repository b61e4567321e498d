//! A safe `#[target_feature]` fn has an unsafe signature to rustc, and other target-feature
//! functions call it without `unsafe`: the one `unsafe` block on the way (entering the
//! target-feature code) promises only the CPU feature, not the mark's contract. A mark needs a
//! fn declared `unsafe` (docs/safety.md, "Device marks are unsafe outside device-std"); this
//! compiled before, and its PTX stored into the read-only input (found by review).
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::ptx(template = "st.global.u32 [$0], $1;", constraints = "l,r", volatile)]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn store(_address: u64, _value: u32) {}

#[target_feature(enable = "avx2")]
#[inline(never)]
fn helper(input: &[u32]) {
    store(input.as_ptr() as u64, 7);
}

#[kernel]
pub fn writes_its_input(input: &[u32], mut out: DisjointSlice<u32>) {
    // SAFETY: the host has AVX2 (a promise about the CPU, not about the mark).
    unsafe { helper(input) };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = input[0];
    }
}

fn main() {}
