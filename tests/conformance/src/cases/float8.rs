//! The fp8 element types: `f32` rounded to `e4m3` and `e5m2` (the GPU's
//! `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` against the CPU's rounding: ties, subnormals,
//! saturation, NaNs, and which byte of the instruction's pair holds the value), and every fp8
//! value widened back.
//!
//! Random `f32` bits almost never land where fp8 has values (2^-16 to 2^16), so each thread
//! converts its input's two halves as they are and two values built from it inside the
//! formats' ranges, one of them with a short mantissa (exact values and exact ties).

use oxide::{e4m3, e5m2};

use crate::harness::Check;

/// `x` rounded to E4M3 (low byte) and E5M2 (high byte).
fn both(x: f32) -> u64 {
    u64::from(e4m3::from_f32(x).to_bits()) | u64::from(e5m2::from_f32(x).to_bits()) << 8
}

/// A value of sign bit 63 and exponent 2^(lowest + (bits 32.. mod span)) whose mantissa is
/// the low 23 bits of `x` with only the bits of `mask` kept.
fn within(x: u64, lowest: i32, span: u64, mask: u32) -> f32 {
    let sign = ((x >> 63) as u32) << 31;
    let exponent = (127 + lowest + ((x >> 32) % span) as i32) as u32;
    f32::from_bits(sign | exponent << 23 | (x as u32 & 0x007f_ffff & mask))
}

map_cases! {
    /// Four `f32`s rounded to both formats, 16 bits each: the input's low and high halves (any
    /// bits: NaNs, infinities), a value from 2^-12 to 2^10 with a full mantissa (E4M3's range
    /// and past both its ends), and one from 2^-19 to 2^17 with a 4-bit mantissa (exact values
    /// and ties of both formats, subnormals and saturation included).
    round_to_fp8(Check::Exact) |x| -> u64 {
        both(f32::from_bits(x as u32))
            | both(f32::from_bits((x >> 32) as u32)) << 16
            | both(within(x, -12, 22, u32::MAX)) << 32
            | both(within(x, -19, 36, 0x0078_0000)) << 48
    }
    /// Bytes 0 and 1 of the input widened as `e4m3`, bytes 2 and 3 as `e5m2`, the four `f32`s'
    /// bits packed (NaNs included: widening is the same integer code on the GPU).
    widen_fp8(Check::Exact) |x| -> u128 {
        let byte = |i: u32| (x >> (8 * i)) as u8;
        let values = [
            e4m3::from_bits(byte(0)).to_f32(),
            e4m3::from_bits(byte(1)).to_f32(),
            e5m2::from_bits(byte(2)).to_f32(),
            e5m2::from_bits(byte(3)).to_f32(),
        ];
        values
            .iter()
            .enumerate()
            .fold(0, |acc, (i, v)| acc | u128::from(v.to_bits()) << (32 * i))
    }
}
