//! Inline PTX whose constraints name a different number of outputs than its function returns
//! (an array of four values from two outputs; one scalar from two outputs): an error at the
//! call, naming both counts, rather than assembly that leaves results unwritten.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

#[oxide_gpu::ptx(template = "mov.b64 {$0, $1}, $2;", constraints = "=r,=r,l")]
#[inline(never)]
unsafe fn halves_into_four(x: u64) -> [u32; 4] {
    [x as u32, (x >> 32) as u32, 0, 0]
}

#[oxide_gpu::ptx(template = "mov.b64 {$0, $1}, $2;", constraints = "=r,=r,l")]
#[inline(never)]
unsafe fn halves_into_one(x: u64) -> u32 {
    x as u32
}

#[kernel]
pub fn k(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let x = input.get(idx.get()).copied().unwrap_or(0);
    // SAFETY: the assembly touches no memory; the bodies compute the halves as the CPU would.
    let (four, one) = unsafe { (halves_into_four(x), halves_into_one(x)) };
    if let Some(o) = out.get_mut(idx) {
        *o = four[1] ^ one;
    }
}

fn main() {}
