//! A device mark the backend does not know is an error where it is written, not only where a
//! kernel calls the function (neither function is called here, and both compiled before).
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::ptxx(template = "mov.u32 $0, %laneid;", constraints = "=r")]
#[inline(never)]
pub unsafe fn lane() -> u32 {
    0
}

#[oxide_gpu::barrier::now]
#[inline(never)]
pub unsafe fn wait() {}

#[kernel]
pub fn k(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {}
