//@ build-pass
//@ ptx: %globaltimer;
//@ ptx: nanosleep.u32
//@ ptx: activemask.b32
//! A kernel crate can add its own device intrinsics the way device-std does: register the tool
//! `oxide_gpu` and mark a host function with what a call of it becomes on the GPU (docs/contracts.md,
//! "Device intrinsics: the registry"). The body is what the CPU emulator runs.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

/// `%globaltimer`, through inline PTX with an output constraint.
#[oxide_gpu::ptx(template = "mov.u64 $0, %globaltimer;", constraints = "=l", volatile)]
#[inline(never)]
fn global_timer() -> u64 {
    1
}

/// `nanosleep`, through inline PTX with an input and no result.
#[oxide_gpu::ptx(template = "nanosleep.u32 $0;", constraints = "r", volatile)]
#[inline(never)]
fn sleep_ns(_ns: u32) {}

/// `activemask`, through its NVVM intrinsic.
#[oxide_gpu::nvvm("llvm.nvvm.activemask")]
#[inline(never)]
fn active_mask() -> u32 {
    1
}

#[kernel]
pub fn timed(mut out: DisjointSlice<u64>) {
    let start = global_timer();
    sleep_ns(100);
    let lanes = active_mask();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = (global_timer() - start) + u64::from(lanes.count_ones());
    }
}

fn main() {}
