//! A `float_convert` mark on a function that is not `fn(f32) -> u16` or `fn(u16) -> f32` is an
//! error at the call the kernel makes: the backend would otherwise cast types LLVM rejects.
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

/// Claims to round an `f64`, which the mark does not convert.
#[oxide_gpu::float_convert("bf16")]
#[inline(never)]
pub unsafe fn round_f64(x: f64) -> u16 {
    oxide::bf16::from_f32(x as f32).to_bits()
}

#[kernel]
pub fn k(x: &[f64], mut out: DisjointSlice<u16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        // SAFETY: the body rounds as the GPU would (it does not: the backend refuses the call).
        *o = unsafe { round_f64(x[i]) };
    }
}

fn main() {}
