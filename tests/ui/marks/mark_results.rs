//! A mark that produces no value (`barrier`) or a 32-bit register (`special_register`) on a
//! function that returns something else: the call would leave the result unwritten (read
//! uninitialised) or store a 32-bit value into a wider place. An error at the mark; both
//! compiled before.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::barrier]
#[inline(never)]
unsafe fn wait_and_count() -> u32 {
    oxide::thread::sync_threads();
    1
}

#[oxide_gpu::special_register("tid.x")]
#[inline(never)]
unsafe fn wide_thread_index() -> u64 {
    u64::from(oxide::thread::thread_idx_x())
}

#[kernel]
pub fn k(mut out: DisjointSlice<u64>) {
    // SAFETY: the bodies are what the emulator runs for the marks (a barrier of the block, the
    // thread's index), and every thread reaches the barrier.
    let (count, index) = unsafe { (wait_and_count(), wide_thread_index()) };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = u64::from(count) + index;
    }
}

fn main() {}
