//@ build-pass
//@ ptx-not: abs.s16
//@ ptx-not: abs.s32
//@ ptx: shr.s32 %oxide_tmp_s, %oxide_tmp, 31
//! `i8::MIN.wrapping_abs()` and `i16::MIN.wrapping_abs()` are the minimum again. NVPTX's `abs.s16`
//! followed by a sign extension gave +32768 on the H200 (found by oxide-fuzz), so llvm-emit
//! computes narrow absolute values in 32 bits, and with the sign mask, not `abs.s32`: ptxas took
//! that `abs` of a sign-extended `i8` for 0..=127 when it was sign-extended again (fuzz seed 2,
//! program 3860).

use oxide::prelude::*;

#[kernel]
pub fn narrow_abs(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = (x as i16).wrapping_abs() as u64 ^ ((x >> 16) as i8).wrapping_abs() as u64;
    }
}

fn main() {}
