//@ build-pass
//@ compile-flags: -O
//@ ptx: $L__BB
//@ ptx-not: 0f42780000
//! `unroll` marks the loop over its own iterator only: an `unroll(0..4)` inside a loop of 64
//! steps unrolls the 4 steps, not the 64 (review of 2660f43: LLVM had unrolled the small inner
//! loop by itself, and the hint's copies in the outer loop's body marked the outer loop, whose
//! PTX grew 20-fold). The outer loop stays a loop (a label), and its step 62 (62.0,
//! 0f42780000) is not a constant of the PTX.
use oxide::prelude::*;

#[kernel(block = "256")]
pub fn nested(x: f32, mut out: DisjointSlice<f32>) {
    let mut acc = x;
    for j in 0..64 {
        for k in unroll(0..4) {
            acc = acc * 0.5 + (j * 4 + k) as f32;
        }
    }
    if let Some(slot) = out.get_mut(ThreadIndex::linear()) {
        *slot = acc;
    }
}

fn main() {}
