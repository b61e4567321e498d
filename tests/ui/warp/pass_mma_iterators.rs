//@ build-pass
//@ ptx: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//! The obvious Rust around a warp collective: the accumulators walked with
//! `iter_mut().zip(..)` and `enumerate()`. A slice iterator's loop test compares addresses in
//! the thread's own array, which are the same number in every thread on the GPU (the local
//! window), so the loop is uniform and the `mma` in it is accepted.

use oxide::mma::{FragA, FragB, FragC, mma};
use oxide::prelude::*;

#[kernel(block = "32")]
pub fn zipped(a: &[bf16], b: &[bf16], mut out: DisjointSlice<[f32; 4]>) {
    let fa: [FragA<bf16>; 2] =
        [0, 1].map(|i| FragA::from_fn(|r, c| a.get(256 * i + r * 16 + c).copied().unwrap_or(bf16::ZERO)));
    let fb: [FragB<bf16>; 2] =
        [0, 1].map(|j| FragB::from_fn(|k, n| b.get(128 * j + k * 8 + n).copied().unwrap_or(bf16::ZERO)));
    let mut acc = [[FragC::zero(); 2]; 2];
    for (row, fa) in acc.iter_mut().zip(&fa) {
        for (j, acc) in row.iter_mut().enumerate() {
            *acc = mma(fa, &fb[j], *acc);
        }
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        let x = acc[1][1].values();
        *o = x;
    }
}

fn main() {}
