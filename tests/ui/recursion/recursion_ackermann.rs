//@ build-warn
//! Bounded recursion (the corpus's `recursion` case) works and is still reported, at the call
//! that stays a call in the PTX: Ackermann's inner `ackermann(m, n - 1)`, not the tail calls,
//! which LLVM makes a loop of. `gcd`'s only recursive call is a tail call: nothing is reported
//! for it.

use oxide::prelude::*;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn ackermann(m: u32, n: u32) -> u32 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => ackermann(m - 1, 1),
        (m, n) => ackermann(m - 1, ackermann(m, n - 1)),
    }
}

#[kernel]
pub fn bounded(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = gcd(x, x.rotate_left(13) | 1) ^ u64::from(ackermann((x % 3) as u32, (x >> 2) as u32 % 4));
    }
}

fn main() {}
