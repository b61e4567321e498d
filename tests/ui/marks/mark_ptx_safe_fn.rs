//! `#[oxide_gpu::ptx]` on a safe function: the backend compiles each call as the assembly, so
//! safe code could store into a read-only input (on the H200 `st.global.u32` through
//! `input.as_ptr() as u64` changed it) or run a raw `bar.sync` under a divergent branch, which
//! the uniformity analysis does not know to be a barrier. Outside device-std a device mark
//! needs an `unsafe fn` (docs/safety.md, "Device marks are unsafe outside device-std"); both
//! compiled before.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

/// Stores `value` at the global address `address`.
#[oxide_gpu::ptx(template = "st.global.u32 [$0], $1;", constraints = "l,r", volatile)]
#[inline(never)]
fn store(_address: u64, _value: u32) {}

/// A block barrier the backend does not know to be one.
#[oxide_gpu::ptx(template = "bar.sync 0;", volatile)]
#[inline(never)]
fn raw_barrier() {}

#[kernel]
pub fn writes_its_input(input: &[u32], mut out: DisjointSlice<u32>) {
    store(input.as_ptr() as u64, 7);
    if thread::thread_idx_x() % 2 == 0 {
        raw_barrier();
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = input[0];
    }
}

fn main() {}
