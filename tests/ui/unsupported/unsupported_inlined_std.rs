//@ compile-flags: -O
//! With MIR inlining (a release build), `core::hint::spin_loop` (which is `#[inline(always)]`
//! and executes x86's `pause` on the host) and the helper are inlined into the kernel, so the
//! unsupported call sits in the kernel's own MIR with a span in the standard library: the error
//! still points at the user's `spin_loop()`, and the note names every inlined call on the way.

use oxide::prelude::*;

#[inline]
fn wave(x: f32) -> f32 {
    core::hint::spin_loop();
    x * 2.0
}

#[kernel]
pub fn f_sin(input: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = wave(input[i]);
    }
}

fn main() {}
