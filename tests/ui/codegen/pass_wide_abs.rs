//@ build-pass
//@ ptx-not: abs.s32
//@ ptx-not: abs.s64
//@ ptx: xor.b64
//@ ptx-not: max.s64
//! `i64::MIN.wrapping_abs()` is negative. ptxas (CUDA 13.0, at -O3) took the result of
//! `abs.s32`/`abs.s64` for non-negative, so `wrapping_abs(i64::MIN) < 0` was false (found by
//! oxide-fuzz), and saw through `max(x, -x)` too; llvm-emit writes `abs` with the sign mask,
//! `(x ^ (x >> 63)) - (x >> 63)`.

use oxide::prelude::*;

#[kernel]
pub fn wide_abs(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let a = (x as i32).wrapping_abs();
        let b = (x as i64).wrapping_abs();
        *o = (a < 0) as u64 | ((b < 0) as u64) << 1 | (b as u64) << 2;
    }
}

fn main() {}
