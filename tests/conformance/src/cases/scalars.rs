//! Scalars: every integer width, floats, bool, char; operators and the checked/wrapping/
//! saturating/overflowing families.

#![allow(
    clippy::unnecessary_cast,
    clippy::manual_unwrap_or,
    clippy::bool_comparison,
    clippy::obfuscated_if_else,
    clippy::manual_is_multiple_of
)]

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
    /// u16 wrapping arithmetic, masked shifts and comparisons.
    int_u16_ops(Exact) |x| -> u16 {
        let (a, b) = (x as u16, (x >> 16) as u16);
        let s = (x >> 32) as u32 % 16;
        a.wrapping_sub(b)
            ^ a.wrapping_mul(b)
            ^ (a << s)
            ^ (b >> s)
            ^ (a.max(b) - a.min(b))
            ^ (a < b) as u16
    }
    /// i8 negation, arithmetic shifts and signed comparisons.
    int_i8_ops(Exact) |x| -> i8 {
        let (a, b) = (x as i8, (x >> 8) as i8);
        let s = (x >> 16) as u32 % 8;
        a.wrapping_neg() ^ (a >> s) ^ (b << s) ^ a.wrapping_sub(b) ^ if a > b { 1 } else { -1 }
    }
    /// u32 division and remainder by divisors of every magnitude.
    int_u32_div_rem(Exact) |x| -> u32 {
        let a = x as u32;
        let b = (((x >> 32) as u32) >> (x % 29) as u32).max(1);
        (a / b) ^ (a % b)
    }
    /// i64 division and remainder with negative operands (divisor not 0 or -1).
    int_i64_div_rem(Exact) |x| -> i64 {
        let a = x as i64;
        let b = (x.rotate_right(13) as i64) >> (x % 50);
        let b = if b == 0 || b == -1 { 7 } else { b };
        (a / b) ^ (a % b)
    }
    /// u128 division and remainder (wide divisors too).
    int_u128_div_rem(Exact) |x| -> u128 {
        let a = ((x as u128) << 64) | x.rotate_left(7) as u128;
        let b = (a >> (x % 128) as u32) | 1;
        (a / b) ^ (a % b)
    }
    /// i128 division and remainder with signs.
    int_i128_div_rem(Exact) |x| -> i128 {
        let a = x as i64 as i128 * 0x1_0000_0001;
        let b = x.rotate_left(29) as i32 as i128;
        let b = if b == 0 || b == -1 { 3 } else { b };
        (a / b) ^ (a % b)
    }
    /// isize and usize arithmetic and shifts.
    int_isize_usize(Exact) |x| -> isize {
        let (u, i) = (x as usize, x as isize);
        let s = (x >> 58) as u32;
        (u.wrapping_mul(31) >> s) as isize
            ^ i.wrapping_add(i >> 3)
            ^ (u.count_ones() as isize)
            ^ (i.wrapping_sub(7) / 3)
            ^ (u % 1000) as isize
    }
    /// The wrapping_ family, including MIN / -1 and over-wide shift amounts.
    int_wrapping_family(Exact) |x| -> u64 {
        let (a, b) = (x as i32, (x >> 32) as i32);
        let d = if b == 0 { 1 } else { b };
        let m = if x & 3 == 0 { i32::MIN } else { a };
        let c = x.rotate_left(5);
        let r = a.wrapping_add(b)
            ^ a.wrapping_sub(b)
            ^ a.wrapping_mul(b)
            ^ a.wrapping_neg()
            ^ a.wrapping_shl(b as u32)
            ^ a.wrapping_shr(b as u32)
            ^ a.wrapping_div(d)
            ^ a.wrapping_rem(d)
            ^ m.wrapping_div(-1)
            ^ m.wrapping_rem(-1)
            ^ m.wrapping_abs();
        (r as u64) ^ c.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ c.wrapping_pow(3)
    }
    /// The checked_ family: None on overflow, division by zero and MIN / -1.
    int_checked_family(Exact) |x| -> u32 {
        let (a, b) = (x as i16, (x >> 16) as i16);
        let u = (x >> 32) as u8;
        let bits = |o: Option<i16>| o.map_or(0x1_0000, |v| v as u16 as u32);
        bits(a.checked_sub(b))
            ^ bits(a.checked_mul(b)).rotate_left(3)
            ^ bits(a.checked_div(b)).rotate_left(6)
            ^ bits(a.checked_rem(b)).rotate_left(9)
            ^ bits(a.checked_neg()).rotate_left(12)
            ^ bits(a.checked_shl(u as u32 % 20)).rotate_left(15)
            ^ bits(a.checked_pow(u as u32 % 5)).rotate_left(18)
            ^ u.checked_add(u).map_or(7, |v| v as u32).rotate_left(21)
            ^ bits(a.checked_abs()).rotate_left(24)
    }
    /// The overflowing_ family: values and overflow flags.
    int_overflowing_family(Exact) |x| -> u64 {
        let (a, b) = (x as u16, (x >> 16) as u16);
        let (c, d) = (x as i64, x.rotate_left(32) as i64);
        let (v1, o1) = a.overflowing_add(b);
        let (v2, o2) = a.overflowing_mul(b);
        let (v3, o3) = c.overflowing_neg();
        let (v4, o4) = c.overflowing_shl(d as u32);
        let (v5, o5) = c.overflowing_sub(d);
        let (v6, o6) = c.overflowing_mul(d);
        let flags = o1 as u64
            | (o2 as u64) << 1
            | (o3 as u64) << 2
            | (o4 as u64) << 3
            | (o5 as u64) << 4
            | (o6 as u64) << 5;
        (v1 as u64)
            ^ (v2 as u64) << 16
            ^ (v3 as u64)
            ^ (v4 as u64).rotate_left(7)
            ^ (v5 as u64).rotate_left(19)
            ^ (v6 as u64).rotate_left(31)
            ^ flags << 58
    }
    /// The saturating_ family at u8, i16 and i128.
    int_saturating_family(Exact) |x| -> u64 {
        let (a, b) = (x as u8, (x >> 8) as u8);
        let (c, d) = (x as i16, (x >> 16) as i16);
        let d = if d == 0 { -1 } else { d };
        let e = ((x as i128) << 64) | x.rotate_left(9) as i128;
        let f = (x.rotate_left(40) as i64 as i128) << 63;
        (a.saturating_sub(b) as u64)
            ^ (a.saturating_mul(b) as u64) << 8
            ^ (a.saturating_pow(b as u32 % 4) as u64) << 16
            ^ (c.saturating_add(d) as u64) << 24
            ^ (c.saturating_mul(d) as u64) << 40
            ^ c.saturating_neg() as u64
            ^ c.saturating_abs() as u64
            ^ c.saturating_div(d) as u64
            ^ (e.saturating_add(f) >> 64) as u64
            ^ e.saturating_sub(f) as u64
            ^ (e.saturating_mul(f) >> 3) as u64
    }
    /// Bit counting at every width.
    int_bit_counts(Exact) |x| -> u32 {
        let w = ((x as u128) << 32) | (x >> 5) as u128;
        (x as u8).leading_zeros()
            + (x as u16).trailing_zeros() * 3
            + (x as u32).count_ones() * 5
            + x.leading_zeros() * 7
            + (x as i32).count_zeros() * 11
            + (x as i64).leading_ones() * 13
            + (x as u32).trailing_ones() * 17
            + w.count_ones() * 19
            + w.leading_zeros() * 23
            + w.trailing_zeros() * 29
            + x.checked_ilog2().unwrap_or(99) * 31
            + (x as u32).checked_ilog10().unwrap_or(99) * 37
    }
    /// swap_bytes, reverse_bits and rotate_left/right at every width.
    int_swap_rotate(Exact) |x| -> u64 {
        let r = (x >> 50) as u32;
        ((x as u16).swap_bytes() as u64)
            ^ ((x as u32).swap_bytes() as u64) << 16
            ^ x.swap_bytes().rotate_right(r)
            ^ x.reverse_bits()
            ^ (x as u8).reverse_bits() as u64
            ^ ((x as i128).swap_bytes() >> 64) as u64
            ^ (x as i16).rotate_left(r) as u64
            ^ (x as u32).rotate_right(r) as u64
            ^ (x as u128 | ((x as u128) << 64)).rotate_left(r) as u64
    }
    /// abs, signum, unsigned_abs and abs_diff.
    int_abs_signum(Exact) |x| -> i64 {
        let a = x as i32;
        let a = if a == i32::MIN { 5 } else { a };
        let b = x as i64;
        a.abs() as i64
            ^ a.signum() as i64
            ^ b.signum() << 8
            ^ b.unsigned_abs() as i64
            ^ (x as i8).wrapping_abs() as i64
            ^ (a.abs_diff((x >> 32) as i32) as i64) << 3
            ^ ((x as i64 as i128).abs() >> 1) as i64
            ^ (x as i16).signum() as i64
    }
    /// div_euclid and rem_euclid with negative operands.
    int_euclid(Exact) |x| -> i64 {
        let a = x as i32;
        let b = (x >> 40) as i8 as i32;
        let b = if b == 0 || b == -1 { -5 } else { b };
        let c = x as i64;
        let d = (x >> 20) as i16 as i64;
        let d = if d == 0 || d == -1 { 9 } else { d };
        (a.div_euclid(b) as i64)
            ^ (a.rem_euclid(b) as i64) << 32
            ^ c.div_euclid(d)
            ^ c.rem_euclid(d).rotate_left(17)
            ^ (x as u32).div_euclid(b.unsigned_abs()) as i64
    }
    /// Ord::cmp and comparison operators, signed and unsigned.
    int_compare_ordering(Exact) |x| -> u32 {
        let (a, b) = (x as i64, x.rotate_left(1) as i64);
        let (c, d) = (x as u8, (x >> 8) as u8);
        let code = |o: core::cmp::Ordering| (o as i32 + 1) as u32;
        code(a.cmp(&b))
            + 3 * code(c.cmp(&d))
            + 9 * (a < b) as u32
            + 18 * (c >= d) as u32
            + 36 * (a as u64 > b as u64) as u32
            + 72 * (x as i8 <= (x >> 8) as i8) as u32
            + 144 * (a == b) as u32
    }
    /// f32 negation, division, copysign and abs (no mul+add: exact).
    float_f32_div_neg(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        (-a / b).copysign(b) - a.abs() / 3.0
    }
    /// f64 negation, division and subtraction.
    float_f64_div_neg(Ulp(0)) |x| -> f64 {
        let a = f64::from_bits(x);
        let b = (x >> 11) as f64 - 4.5e15;
        (-a / b) - (a - b) / 7.0
    }
    /// f32 remainder (`%`, fmod semantics).
    float_f32_rem(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        a % b
    }
    /// f64 remainder.
    float_f64_rem(Ulp(0)) |x| -> f64 {
        let a = f64::from_bits(x);
        let b = (x >> 40) as f64 - 1000.5;
        a % b
    }
    /// char: from_u32, ASCII predicates and case mapping, len_utf8, to_digit.
    char_ops(Exact) |x| -> u32 {
        let c = char::from_u32(x as u32 % 0x11_0000).unwrap_or('?');
        let d = char::from_u32((x >> 32) as u32 % 128).unwrap_or('?');
        (c as u32)
            ^ (c.len_utf8() as u32) << 21
            ^ (c.is_ascii_digit() as u32) << 24
            ^ (d.to_ascii_uppercase() as u32) << 8
            ^ (d.is_ascii_alphabetic() as u32) << 25
            ^ d.to_digit(16).unwrap_or(99) << 26
            ^ ((c < d) as u32) << 31
            ^ char::from_digit(x as u32 % 36, 36).unwrap_or('?') as u32
    }
    /// bool: casts, comparisons, then_some and not.
    bool_ops(Exact) |x| -> u32 {
        let (a, b) = (x % 3 == 0, x.count_ones() > 32);
        (a as u32)
            + 2 * (b as u32)
            + 4 * ((a > b) as u32)
            + 8 * (!a as u32)
            + 16 * (a != b) as u32
            + a.then_some(32).unwrap_or(0)
            + (a & !b) as u32 * 64
    }
    /// f32 classification through the bits: sign, normal, subnormal, classify, total_cmp.
    float_f32_classify(Exact) |x| -> u32 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        (a.is_sign_negative() as u32)
            | (a.is_sign_positive() as u32) << 1
            | (a.is_normal() as u32) << 2
            | (a.is_subnormal() as u32) << 3
            | ((a.total_cmp(&b) as i32 + 1) as u32) << 4
            | (a.classify() as u32) << 6
    }
    /// f64 classification through the bits.
    float_f64_classify(Exact) |x| -> u32 {
        let a = f64::from_bits(x);
        let b = f64::from_bits(x.rotate_left(32));
        (a.is_sign_negative() as u32)
            | (a.is_normal() as u32) << 1
            | (a.is_subnormal() as u32) << 2
            | ((a.total_cmp(&b) as i32 + 1) as u32) << 3
            | (a.classify() as u32) << 5
    }
    /// pow with small operands (no overflow) and wrapping_pow.
    int_pow(Exact) |x| -> u64 {
        let b = x % 16;
        let e = ((x >> 4) % 16) as u32;
        let s = ((x >> 8) as i8 % 7) as i32;
        b.pow(e)
            ^ (s.pow(e % 12) as u64)
            ^ x.wrapping_pow(e * 5)
            ^ (x as u8).wrapping_pow(e) as u64
            ^ 2u32.pow(e * 2) as u64
    }
    /// f32 comparisons and classification, NaN and infinities included
    float_f32_compare(Exact) |x| -> u32 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        (a < b) as u32
            | ((a <= b) as u32) << 1
            | ((a == b) as u32) << 2
            | ((a != b) as u32) << 3
            | ((a > b) as u32) << 4
            | ((a >= b) as u32) << 5
            | (a.is_nan() as u32) << 6
            | (a.is_infinite() as u32) << 7
            | (a.is_finite() as u32) << 8
            | (a.is_sign_negative() as u32) << 9
            | (a.is_normal() as u32) << 10
            | (a.is_subnormal() as u32) << 11
            | (a.partial_cmp(&b).map_or(3, |o| (o as i32 + 1) as u32)) << 12
            | ((a.total_cmp(&b) as i32 + 1) as u32) << 14
            | (a.classify() as u32) << 16
    }
    /// f64 comparisons and classification
    float_f64_compare(Exact) |x| -> u32 {
        let a = f64::from_bits(x);
        let b = f64::from_bits(x.rotate_left(32));
        (a < b) as u32
            | ((a <= b) as u32) << 1
            | ((a == b) as u32) << 2
            | ((a > b) as u32) << 3
            | (a.is_nan() as u32) << 4
            | (a.is_sign_negative() as u32) << 5
            | (a.is_subnormal() as u32) << 6
            | ((a.total_cmp(&b) as i32 + 1) as u32) << 7
            | (a.classify() as u32) << 9
    }
    /// f32 predicates built on abs (is_infinite, is_finite) and abs itself.
    float_f32_abs_predicates(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let flags = a.is_infinite() as u32 + 2 * a.is_finite() as u32;
        a.abs() - flags as f32
    }
    /// f64::abs.
    float_f64_abs(Ulp(0)) |x| -> f64 {
        f64::from_bits(x).abs() - 1.0
    }
}
