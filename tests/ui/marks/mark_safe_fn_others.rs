//! The other marks a kernel crate may write, each on a safe function: `nvvm`, `barrier` and
//! `device_runtime`, and a `safe fn` of an `unsafe extern` block. Each needs an `unsafe fn`
//! outside device-std; all compiled before.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
#[inline(never)]
fn lane() -> u32 {
    0
}

/// The emulator runs the body, which waits for nobody.
#[oxide_gpu::barrier]
#[inline(never)]
fn not_a_barrier_on_the_host() {}

#[oxide_gpu::device_runtime("vprintf")]
#[inline(never)]
fn print(_format: *const u8, _arguments: *const u8) -> i32 {
    0
}

unsafe extern "C" {
    #[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.warpid")]
    safe fn warp_id() -> u32;
}

#[kernel]
pub fn k(mut out: DisjointSlice<u32>) {
    not_a_barrier_on_the_host();
    print(c"hello".as_ptr().cast(), core::ptr::null());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = lane() + warp_id();
    }
}

fn main() {}
