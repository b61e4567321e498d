//@ build-warn
//@ compile-flags: -O
//! A loop over an adapter of `unroll(..)` (`unroll(x).enumerate()`) is not unrolled: the
//! adapter's `next`, not the loop, calls `Unroll::next`, and the backend marks the loops around
//! those calls. The adapter still works, with a warning at the user's line that says to put it
//! inside; `unroll(x.iter().enumerate())` is the form that unrolls.
use oxide::prelude::*;

#[kernel(block = "128")]
pub fn weights(x: &[f32], mut out: DisjointSlice<f32>) {
    let mut acc = 0.0f32;
    for (k, v) in unroll(x.iter().take(8)).enumerate() {
        acc += k as f32 * v;
    }
    if let Some(slot) = out.get_mut(ThreadIndex::linear()) {
        *slot = acc;
    }
}

fn main() {}
