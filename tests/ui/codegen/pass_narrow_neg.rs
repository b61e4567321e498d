//@ build-pass
//@ ptx-not: neg.s16
//@ ptx: neg.s32
//! `i16::MIN.wrapping_neg()` is `i16::MIN` again. ptxas (CUDA 13.0, at -O3) read `neg.s16` of
//! -32768 as +32768 in a sign extension (found by oxide-fuzz), so llvm-emit computes every 16-bit
//! negation in 32 bits, including those LLVM narrows to 16 bits from wider ones. A saturating
//! float-to-i16 conversion leaves the value in a 16-bit register, where NVPTX negates it.

use oxide::prelude::*;

#[kernel]
pub fn narrow_neg(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let x = input[idx.get()];
    if let Some(o) = out.get_mut(idx) {
        let saturated = f32::from_bits(x as u32) as i16;
        *o = saturated.wrapping_neg() as u64;
    }
}

fn main() {}
