//! Math functions (`f32::sin`, `f64::powf`...), computed on the GPU by NVIDIA's libdevice and on
//! the host by the system's libm: each case bounds how far apart they may be, in units in the last
//! place, at CUDA's documented maximum error plus one (the host's own rounding), and the GPU suite
//! prints the largest difference it measured (docs/math.md). Arguments span a range of exponents
//! with every mantissa; one input in 61 is a raw bit pattern (zeros, infinities, NaNs,
//! subnormals).

#![allow(clippy::unnecessary_cast)]

use oxide::math::FastMath;

use crate::harness::Check::Ulp;

/// An f32 from `x`: sign (when `signed`), exponent in `[min_exp, max_exp)` and mantissa from the
/// bits of `x`, or `x`'s own low bits for one input in 61.
pub fn f32_in(x: u64, min_exp: i32, max_exp: i32, signed: bool) -> f32 {
    if x.is_multiple_of(61) {
        return f32::from_bits((x >> 8) as u32);
    }
    f32_range(x, min_exp, max_exp, signed)
}

/// An f32 from `x` as [`f32_in`] makes, always in the range (the approximate functions are
/// specified on a range only).
pub fn f32_range(x: u64, min_exp: i32, max_exp: i32, signed: bool) -> f32 {
    let span = (max_exp - min_exp) as u64;
    let exp = (min_exp + ((x >> 32) % span) as i32 + 127) as u32;
    let sign = if signed { (x >> 63) as u32 } else { 0 };
    f32::from_bits(sign << 31 | exp << 23 | (x as u32 & 0x7f_ffff))
}

/// An f64 from `x`, as [`f32_in`] does.
pub fn f64_in(x: u64, min_exp: i32, max_exp: i32, signed: bool) -> f64 {
    if x.is_multiple_of(61) {
        return f64::from_bits(x.rotate_left(13));
    }
    let span = (max_exp - min_exp) as u64;
    let exp = (min_exp + (x.rotate_left(20) % span) as i32 + 1023) as u64;
    let sign = if signed { x >> 63 } else { 0 };
    f64::from_bits(sign << 63 | exp << 52 | (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 12))
}

map_cases! {
    /// f32 `sin`.
    math_f32_sin(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 7, true);
        a.sin()
    }
    /// f32 `cos`.
    math_f32_cos(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 7, true);
        a.cos()
    }
    /// f32 `tan`.
    math_f32_tan(Ulp(5)) |x| -> f32 {
        let a = f32_in(x, -12, 4, true);
        a.tan()
    }
    /// f32 `exp`.
    math_f32_exp(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 6, true);
        a.exp()
    }
    /// f32 `exp2`.
    math_f32_exp2(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 7, true);
        a.exp2()
    }
    /// f32 `ln`.
    math_f32_ln(Ulp(2)) |x| -> f32 {
        let a = f32_in(x, -30, 30, false);
        a.ln()
    }
    /// f32 `log2`.
    math_f32_log2(Ulp(2)) |x| -> f32 {
        let a = f32_in(x, -30, 30, false);
        a.log2()
    }
    /// f32 `log10`.
    math_f32_log10(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -30, 30, false);
        a.log10()
    }
    /// f32 `powf` (base in [2^-4, 2^4), exponent in (-16, 16)).
    math_f32_powf(Ulp(5)) |x| -> f32 {
        let a = f32_in(x, -4, 4, false);
        let b = f32_in(x.rotate_left(29), -6, 4, true);
        a.powf(b)
    }
    /// f32 `powi` with exponents -8..=8.
    math_f32_powi(Ulp(8)) |x| -> f32 {
        let a = f32_in(x, -4, 4, true);
        a.powi((x >> 56) as i8 as i32 % 9)
    }
    /// f32 `sinh`.
    math_f32_sinh(Ulp(4)) |x| -> f32 {
        let a = f32_in(x, -12, 6, true);
        a.sinh()
    }
    /// f32 `cosh`.
    math_f32_cosh(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 6, true);
        a.cosh()
    }
    /// f32 `tanh`.
    math_f32_tanh(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 5, true);
        a.tanh()
    }
    /// f32 `asin`.
    math_f32_asin(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 0, true);
        a.asin()
    }
    /// f32 `acos`.
    math_f32_acos(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 0, true);
        a.acos()
    }
    /// f32 `atan`.
    math_f32_atan(Ulp(3)) |x| -> f32 {
        let a = f32_in(x, -12, 12, true);
        a.atan()
    }
    /// f32 `atan2`.
    math_f32_atan2(Ulp(4)) |x| -> f32 {
        let a = f32_in(x, -12, 12, true);
        let b = f32_in(x.rotate_left(29), -12, 12, true);
        a.atan2(b)
    }
    /// f32 `cbrt`.
    math_f32_cbrt(Ulp(2)) |x| -> f32 {
        let a = f32_in(x, -30, 30, true);
        a.cbrt()
    }
    /// f32 `hypot`.
    math_f32_hypot(Ulp(4)) |x| -> f32 {
        let a = f32_in(x, -30, 30, true);
        let b = f32_in(x.rotate_left(29), -30, 30, true);
        a.hypot(b)
    }
    /// f32 `exp_m1`.
    math_f32_exp_m1(Ulp(2)) |x| -> f32 {
        let a = f32_in(x, -12, 6, true);
        a.exp_m1()
    }
    /// f32 `ln_1p`.
    math_f32_ln_1p(Ulp(2)) |x| -> f32 {
        let a = f32_in(x, -12, 30, false);
        a.ln_1p()
    }
    /// f64 `sin`.
    math_f64_sin(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -12, 7, true);
        a.sin()
    }
    /// f64 `cos`.
    math_f64_cos(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -12, 7, true);
        a.cos()
    }
    /// f64 `tan`.
    math_f64_tan(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -12, 4, true);
        a.tan()
    }
    /// f64 `exp`.
    math_f64_exp(Ulp(2)) |x| -> f64 {
        let a = f64_in(x, -12, 9, true);
        a.exp()
    }
    /// f64 `ln`.
    math_f64_ln(Ulp(2)) |x| -> f64 {
        let a = f64_in(x, -300, 300, false);
        a.ln()
    }
    /// f64 `log2`.
    math_f64_log2(Ulp(2)) |x| -> f64 {
        let a = f64_in(x, -300, 300, false);
        a.log2()
    }
    /// f64 `powf` (base in [2^-4, 2^4), exponent in (-16, 16)).
    math_f64_powf(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -4, 4, false);
        let b = f64_in(x.rotate_left(29), -6, 4, true);
        a.powf(b)
    }
    /// f64 `tanh`.
    math_f64_tanh(Ulp(2)) |x| -> f64 {
        let a = f64_in(x, -12, 5, true);
        a.tanh()
    }
    /// f64 `atan2`.
    math_f64_atan2(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -12, 12, true);
        let b = f64_in(x.rotate_left(29), -12, 12, true);
        a.atan2(b)
    }
    /// f64 `cbrt`.
    math_f64_cbrt(Ulp(2)) |x| -> f64 {
        let a = f64_in(x, -300, 300, true);
        a.cbrt()
    }
    /// f64 `hypot`.
    math_f64_hypot(Ulp(3)) |x| -> f64 {
        let a = f64_in(x, -300, 300, true);
        let b = f64_in(x.rotate_left(29), -300, 300, true);
        a.hypot(b)
    }
    // ---- oxide::math::FastMath: the special function unit, against the accurate function ----
    /// `fast_sin` (`sin.approx.f32`) on [0.5, 2): an absolute error of 2^-20.5.
    math_fast_sin(Ulp(32)) |x| -> f32 {
        f32_range(x, -1, 1, false).fast_sin()
    }
    /// `fast_cos` (`cos.approx.f32`) on [0.25, 1).
    math_fast_cos(Ulp(32)) |x| -> f32 {
        f32_range(x, -2, 0, false).fast_cos()
    }
    /// `fast_exp2` (`ex2.approx.ftz.f32`) on |x| < 64.
    math_fast_exp2(Ulp(3)) |x| -> f32 {
        f32_range(x, -12, 6, true).fast_exp2()
    }
    /// `fast_exp2` on (-256, -64]: normal results down to 2^-126, 0 below (`.ftz`) on the GPU
    /// and the host alike.
    math_fast_exp2_underflow(Ulp(3)) |x| -> f32 {
        (-f32_range(x, 6, 8, false)).fast_exp2()
    }
    /// `fast_exp` (`__expf`) on |x| < 8: 2 + ⌊1.173·|x|⌋ ulp.
    math_fast_exp(Ulp(12)) |x| -> f32 {
        f32_range(x, -12, 3, true).fast_exp()
    }
    /// `fast_log2` (`lg2.approx.f32`) on [2, 2^30).
    math_fast_log2(Ulp(3)) |x| -> f32 {
        f32_range(x, 1, 30, false).fast_log2()
    }
    /// `fast_ln` (`__logf`) on [2, 2^30).
    math_fast_ln(Ulp(4)) |x| -> f32 {
        f32_range(x, 1, 30, false).fast_ln()
    }
    /// `fast_rsqrt` (`rsqrt.approx.f32`) on [2^-30, 2^30).
    math_fast_rsqrt(Ulp(2)) |x| -> f32 {
        f32_range(x, -30, 30, false).fast_rsqrt()
    }
    /// `fast_sqrt` (`sqrt.approx.f32`) on [2^-30, 2^30).
    math_fast_sqrt(Ulp(2)) |x| -> f32 {
        f32_range(x, -30, 30, false).fast_sqrt()
    }
}
