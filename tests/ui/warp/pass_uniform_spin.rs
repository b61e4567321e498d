//@ build-pass
//! A callee that loops forever only on a condition every thread of the block shares (a kernel
//! argument): either all threads come back from it or none, so the warp collective and the
//! barrier after it are fine. (An `unreachable!`-free exhaustive `match` in a callee is no
//! endless loop either.)

use oxide::prelude::*;
use oxide::warp;

#[inline(never)]
fn spin_if_zero(n: u32) {
    if n == 0 {
        #[allow(clippy::empty_loop)]
        loop {}
    }
}

#[inline(never)]
fn pick(x: u32) -> u32 {
    match x % 3 {
        0 => 7,
        1 => 9,
        _ => 11,
    }
}

#[kernel]
pub fn uniform_spin(input: &[u32], n: u32, mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    spin_if_zero(n);
    let mine = pick(input[idx.get()]);
    let total = warp::sum(mine);
    thread::sync_threads();
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

fn main() {}
