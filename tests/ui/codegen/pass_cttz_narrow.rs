//@ build-pass
//@ compile-flags: -O
//@ ptx-not: max.s16
//@ ptx-not: min.s16
//@ ptx: max.s32
//! `max(x, 0).trailing_zeros()` of an `i8` is 8 for every negative `x`. On the H200 (driver 580,
//! JIT -O3) a 16-bit `max.s16 d, x, 0` compared with 0 gives the wrong predicate (oxide-fuzz
//! seed 1, programs 620 and 2224; ci/gpu-probes' narrow.ptx pins it), so llvm-emit computes
//! 16-bit `max`/`min` in 32 bits.

use oxide::prelude::*;

#[kernel]
pub fn cttz_narrow(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let v = x as i8;
        *o = (v.saturating_sub(v).max(v).trailing_zeros() as i8) as u64;
    }
}

fn main() {}
