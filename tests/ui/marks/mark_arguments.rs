//! A mark's arguments are checked where it is written, not only where a kernel calls the
//! function (none of these is called, and all compiled before): an unknown argument, a
//! register that does not exist, a device-runtime function oxide does not declare, arguments
//! to a mark that takes none, a missing one, a float format that is not one, and two marks on
//! one function.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::ptx(tmplate = "mov.u32 $0, %laneid;", constraints = "=r")]
#[inline(never)]
pub unsafe fn lane() -> u32 {
    0
}

#[oxide_gpu::special_register("tid.w")]
#[inline(never)]
pub unsafe fn fourth_dimension() -> u32 {
    0
}

#[oxide_gpu::device_runtime("malloc")]
#[inline(never)]
pub unsafe fn allocate(_bytes: usize) -> *mut u8 {
    core::ptr::null_mut()
}

#[oxide_gpu::barrier(now)]
#[inline(never)]
pub unsafe fn wait() {}

#[oxide_gpu::atomic(op = "add", scope = "device")]
#[inline(never)]
pub unsafe fn add(_place: *mut u32, value: u32) -> u32 {
    value
}

#[oxide_gpu::float_convert("fp8")]
#[inline(never)]
pub unsafe fn to_fp8(x: f32) -> u16 {
    x as u16
}

#[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
#[oxide_gpu::ptx(template = "mov.u32 $0, %laneid;", constraints = "=r")]
#[inline(never)]
pub unsafe fn lane_twice() -> u32 {
    0
}

#[kernel]
pub fn k(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {}
