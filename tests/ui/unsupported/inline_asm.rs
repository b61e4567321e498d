//! Inline assembly in a kernel: it is the host's assembly, and the backend says so at the `asm!`.

use oxide::prelude::*;

#[kernel]
pub fn inline_asm(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let mut x = input[i];
        unsafe { core::arch::asm!("/* {0:e} */", inout(reg) x) };
        *o = x;
    }
}

fn main() {}
