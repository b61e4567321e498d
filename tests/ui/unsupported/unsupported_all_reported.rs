//! Every unsupported construct of a kernel is reported in one build, each at the user's line:
//! a heap allocation, a function pointer and its call, and two standard-library functions whose
//! unsupported call lies inside the standard library (the notes show where), one of them through
//! a helper of this crate: `f32::ln_gamma` (libdevice has no `lgammaf_r`) and
//! `core::hint::spin_loop` (x86's `pause`).

#![feature(float_gamma)]

use oxide::prelude::*;

fn helper(x: f32) -> f32 {
    x.ln_gamma().0 * 2.0
}

fn double(x: u32) -> u32 {
    x * 2
}

#[kernel]
pub fn many(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let b = Box::new(input[i]);
        let f: fn(u32) -> u32 = double;
        core::hint::spin_loop();
        *o = helper(*b) + f(i as u32) as f32;
    }
}

fn main() {}
