//! Marks that describe device-std's own protocols are refused outside it, `unsafe fn` or not:
//! `shared_address` (the call returns its pointer argument: here it turned a `&u32` of a
//! read-only input into a `*mut u32` behind a body that returns something else),
//! `emulator_check` (the call emits nothing on the GPU), `warp_collective` (the precondition
//! of device-std's safe warp functions) and `unroll_hint` (which device-std calls from the one
//! iterator whose loop it marks) and `shared_window` (a pointer's offset in the `.shared`
//! window: defined only for pointers into block-shared memory). The first three compiled
//! before.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::shared_address]
#[inline(never)]
unsafe fn launder(_value: &u32) -> *mut u32 {
    core::ptr::null_mut()
}

#[oxide_gpu::emulator_check]
#[inline(never)]
unsafe fn only_on_the_host(index: usize) {
    assert!(index < 1024);
}

#[oxide_gpu::warp_collective]
#[inline(never)]
unsafe fn every_lane() {}

#[oxide_gpu::unroll_hint]
#[inline(never)]
unsafe fn unroll_around() {}

#[oxide_gpu::shared_window]
#[inline(never)]
unsafe fn window_of(pointer: *const u32) -> usize {
    pointer.addr()
}

#[kernel]
pub fn writes_its_input(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    // SAFETY: what the marks would need is exactly what they cannot promise here.
    unsafe {
        only_on_the_host(idx.get());
        every_lane();
        unroll_around();
        let _ = window_of(&input[0]);
        *launder(&input[0]) = 7;
    }
    if let Some(o) = out.get_mut(idx) {
        *o = input[0];
    }
}

fn main() {}
