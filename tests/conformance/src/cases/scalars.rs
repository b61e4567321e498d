//! Scalars: every integer width, floats, bool, char; operators and the checked/wrapping/
//! saturating/overflowing families.

#![allow(clippy::unnecessary_cast)]

use crate::harness::Check::{Exact, Ulp};

map_cases! {
    /// u8 wrapping arithmetic and bit operators.
    int_u8_ops(Exact) |x| -> u8 {
        let (a, b) = (x as u8, (x >> 8) as u8);
        a.wrapping_add(b) ^ a.wrapping_mul(3) ^ (a & b) ^ (a | 1) ^ !b
    }
    /// i16 division and remainder (divisor kept non-zero and not -1).
    int_i16_div_rem(Exact) |x| -> i16 {
        let a = x as i16;
        let b = ((x >> 16) as i16 & 0x7ff) + 1;
        a / b + a % b
    }
    /// i32 shifts: arithmetic right shift of negatives, masked amounts.
    int_i32_shifts(Exact) |x| -> i32 {
        let a = x as i32;
        let s = (x >> 32) as u32 % 32;
        (a >> s) ^ (a << s).wrapping_shl(3) ^ a.rotate_left(s)
    }
    /// u64 multiply high via u128.
    int_u128_mul_high(Exact) |x| -> u64 {
        let a = x as u128;
        ((a * 0x9e37_79b9_7f4a_7c15) >> 64) as u64
    }
    /// i128 arithmetic and comparison.
    int_i128_arith(Exact) |x| -> i128 {
        let a = x as i64 as i128;
        let b = (x.rotate_left(17) as i64 as i128) | 1;
        (a * b - (a << 40)) / b + if a < b { 1 } else { -1 }
    }
    /// f32 arithmetic (may fuse to FMA on the GPU, as nvcc does).
    float_f32_arith(Ulp(2)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = (x >> 40) as f32;
        a * b + a / (b + 1.0) - 0.5
    }
    /// f64 arithmetic.
    float_f64_arith(Ulp(2)) |x| -> f64 {
        let a = f64::from_bits(x);
        let b = (x >> 20) as f64;
        a * b + a / (b + 1.0) - 0.25
    }
    /// bool logic.
    bool_logic(Exact) |x| -> bool {
        let (a, b, c) = (x & 1 == 1, x & 2 == 2, x > 1000);
        (a && b) || (!c ^ a) && (b | c)
    }
    /// checked_add returns None on overflow.
    int_checked_add(Exact) |x| -> u32 {
        match (x as u32).checked_add((x >> 32) as u32) {
            Some(v) => v,
            None => 7,
        }
    }
    /// saturating and overflowing families.
    int_saturating_overflowing(Exact) |x| -> i32 {
        let (a, b) = (x as i32, (x >> 32) as i32);
        let (v, o) = a.overflowing_sub(b);
        a.saturating_add(b) ^ v ^ (o as i32) ^ a.saturating_mul(3)
    }
}
