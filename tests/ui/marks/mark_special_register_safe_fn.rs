//! `#[oxide_gpu::special_register("ctaid.x")]` on a safe function whose body reads the thread's
//! index: the GPU reads the block's index, the emulator runs the body, and the two disagree by
//! construction (and the backend takes `ctaid.x` to be block-uniform). Outside device-std a
//! device mark needs an `unsafe fn`, whose callers promise that the body computes the register.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::special_register("ctaid.x")]
#[inline(never)]
fn not_the_block() -> u32 {
    thread::thread_idx_x()
}

#[kernel]
pub fn disagrees(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = not_the_block();
    }
}

fn main() {}
