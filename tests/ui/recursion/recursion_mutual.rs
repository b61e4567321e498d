//@ build-warn
//! Mutual recursion through generic instances (`is_even::<u32>` -> `is_odd::<u32>` ->
//! `is_even::<u32>`), written so that LLVM cannot make a loop of it: warned once, at the call
//! that closes the cycle, for both kernels that reach it (the second, `strict_float`, has its
//! own copy of the functions in the PTX, and enters the cycle at `is_odd`).

use oxide::prelude::*;

fn is_even<T: Copy + Into<u64>>(n: T, depth: u32) -> u64 {
    let n: u64 = n.into();
    if depth == 0 {
        n & 1
    } else {
        is_odd(n as u32 / 2, depth - 1) + is_odd(n as u32 / 3, depth - 1)
    }
}

fn is_odd<T: Copy + Into<u64>>(n: T, depth: u32) -> u64 {
    let n: u64 = n.into();
    if depth == 0 {
        !n & 1
    } else {
        is_even(n as u32 ^ 5, depth - 1) * 3 + is_even(n as u32 >> 1, depth - 1)
    }
}

#[kernel]
pub fn parity(input: &[u32], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = is_even(x, x % 8);
    }
}

#[kernel(strict_float)]
pub fn parity_again(input: &[u32], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = is_odd(x, 3);
    }
}

fn main() {}
