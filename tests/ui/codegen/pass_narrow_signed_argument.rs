//@ build-pass
//@ ptx-not: ld.param.s8 	%rs
//@ ptx: ld.param.s8 %oxide_cvt
//! An `i8` argument of a device function, which LLVM loads sign-extended into a 16-bit
//! register (`ld.param.s8 %rs1`): ptxas (-O1 and above) then drops a later zero extension from
//! 16 bits, and `max` of the widened value was wrong (fuzz program 6618 of seed 2). llvm-emit
//! loads it into a 32-bit register and truncates.

use oxide::prelude::*;

#[inline(never)]
fn widen_and_max(x: i8) -> u32 {
    let a = x as i16 as u16;
    (!a.wrapping_mul(3)).max(a).wrapping_sub(a) as u32
}

#[kernel]
pub fn signed_argument(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        *o = widen_and_max(x as i8) as u64;
    }
}

fn main() {}
