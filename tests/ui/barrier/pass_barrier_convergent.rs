//@ build-pass
//@ llvm-attrs(7publish): convergent noinline
//@ llvm-attrs(5stage): convergent
//@ llvm-attrs-not(5stage): noinline
//@ llvm-attrs(5scale): noinline
//@ llvm-attrs-not(5scale): convergent
//@ llvm-attrs(with_barrier): convergent
//@ llvm-attrs-not(without_barrier): convergent
//@ ptx: .func
//@ ptx: bar.sync 0;
//@ ptx(with_barrier): call.uni
//! Every function that may reach a barrier is `convergent` in LLVM IR (so LLVM never makes its
//! calls depend on more conditions than the source does), the barrier's callers up to the
//! kernel included; the others are not. `#[inline(never)]` is `noinline`, so `publish` stays a
//! function of the PTX (`.func`).

use oxide::prelude::*;
use oxide::thread::sync_threads;

#[inline(never)]
fn publish() {
    sync_threads();
}

fn stage() {
    publish();
}

#[inline(never)]
fn scale(x: f32) -> f32 {
    x * 2.0
}

#[kernel]
pub fn with_barrier(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let x = input.get(idx.get()).copied().unwrap_or(0.0);
    stage();
    if let Some(o) = out.get_mut(idx) {
        *o = x;
    }
}

#[kernel]
pub fn without_barrier(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let x = input.get(idx.get()).copied().unwrap_or(0.0);
    if let Some(o) = out.get_mut(idx) {
        *o = scale(x);
    }
}

fn main() {}
