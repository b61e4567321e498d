//! Rust operations the GPU has no exact instruction for, written in Rust and compiled by oxide
//! like any device code. The backend calls these for the construct named on each function
//! (registry: `oxide_dialects::intrinsics::SOFT`); on the host they are ordinary functions, which
//! the tests compare with the host's own implementation bit for bit.

/// Defines the exact float remainder (C's `fmod`) for one float width, computed on the integer
/// representation so that no step rounds: PTX has no remainder instruction, and LLVM's
/// expansion (`x - trunc(x / y) * y`) rounds.
macro_rules! exact_fmod {
    ($(#[$doc:meta])* $name:ident, $float:ty, $bits:ty, $exp:ty, $mant:literal, $exp_mask:literal) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(x: $float, y: $float) -> $float {
            const MANT: u32 = $mant;
            const EXP_MASK: $bits = $exp_mask;
            const WIDTH: u32 = <$bits>::BITS;
            // Bits above the mantissa: sign and exponent.
            const HIGH: u32 = WIDTH - MANT;
            let (mut ux, mut uy) = (x.to_bits(), y.to_bits());
            let mut ex = ((ux >> MANT) & EXP_MASK) as $exp;
            let mut ey = ((uy >> MANT) & EXP_MASK) as $exp;
            let sign = ux & (1 << (WIDTH - 1));
            if uy << 1 == 0 || y.is_nan() || ex == EXP_MASK as $exp {
                // A NaN made from the operands, as libm makes it.
                #[allow(clippy::eq_op)]
                return (x * y) / (x * y);
            }
            if ux << 1 <= uy << 1 {
                return if ux << 1 == uy << 1 { 0.0 * x } else { x };
            }
            // Explicit leading bits; subnormals normalised.
            if ex == 0 {
                let mut i = ux << HIGH;
                while i >> (WIDTH - 1) == 0 {
                    ex -= 1;
                    i <<= 1;
                }
                ux <<= (1 - ex) as u32;
            } else {
                ux = (ux & (<$bits>::MAX >> HIGH)) | (1 << MANT);
            }
            if ey == 0 {
                let mut i = uy << HIGH;
                while i >> (WIDTH - 1) == 0 {
                    ey -= 1;
                    i <<= 1;
                }
                uy <<= (1 - ey) as u32;
            } else {
                uy = (uy & (<$bits>::MAX >> HIGH)) | (1 << MANT);
            }
            // Long division, one quotient bit per step.
            while ex > ey {
                let d = ux.wrapping_sub(uy);
                if d >> (WIDTH - 1) == 0 {
                    if d == 0 {
                        return 0.0 * x;
                    }
                    ux = d;
                }
                ux <<= 1;
                ex -= 1;
            }
            let d = ux.wrapping_sub(uy);
            if d >> (WIDTH - 1) == 0 {
                if d == 0 {
                    return 0.0 * x;
                }
                ux = d;
            }
            while ux >> MANT == 0 {
                ux <<= 1;
                ex -= 1;
            }
            if ex > 0 {
                ux = (ux - (1 << MANT)) | ((ex as $bits) << MANT);
            } else {
                ux >>= (1 - ex) as u32;
            }
            <$float>::from_bits(ux | sign)
        }
    };
}

exact_fmod!(
    /// `x % y` for `f32`: the exact remainder (C's `fmodf`).
    #[rustc_diagnostic_item = "oxide_soft_fmod_f32"]
    fmod_f32, f32, u32, i32, 23, 0xff
);
exact_fmod!(
    /// `x % y` for `f64`: the exact remainder (C's `fmod`).
    #[rustc_diagnostic_item = "oxide_soft_fmod_f64"]
    fmod_f64, f64, u64, i64, 52, 0x7ff
);

/// `core::intrinsics::compare_bytes`: `memcmp` of `n` bytes, as a sign.
///
/// # Safety
/// Both pointers are valid for reads of `n` bytes.
#[rustc_diagnostic_item = "oxide_soft_compare_bytes"]
#[inline]
pub unsafe fn compare_bytes(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        // SAFETY: `i < n`, and both are valid for `n` bytes.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return x as i32 - y as i32;
        }
        i += 1;
    }
    0
}

/// The bits of the float nearest to `x` (ties to even), for a format with `mant` explicit
/// mantissa bits and exponent bias `bias`; infinity when `x` is out of range.
#[inline]
fn u128_to_float_bits(x: u128, mant: u32, bias: u32) -> u64 {
    if x == 0 {
        return 0;
    }
    let top = 127 - x.leading_zeros();
    let (mut m, mut e) = if top <= mant {
        ((x << (mant - top)) as u64, top)
    } else {
        let shift = top - mant;
        let rest = x & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let mut m = (x >> shift) as u64;
        if rest > half || (rest == half && m & 1 == 1) {
            m += 1;
        }
        (m, top)
    };
    if m >> (mant + 1) != 0 {
        m >>= 1;
        e += 1;
    }
    let max_exp = 2 * bias + 1;
    if e + bias >= max_exp {
        return (max_exp as u64) << mant;
    }
    ((u64::from(e + bias)) << mant) | (m & ((1u64 << mant) - 1))
}

/// `x as f64` for `u128`.
#[rustc_diagnostic_item = "oxide_soft_u128_to_f64"]
#[inline]
pub fn u128_to_f64(x: u128) -> f64 {
    f64::from_bits(u128_to_float_bits(x, 52, 1023))
}

/// `x as f32` for `u128`.
#[rustc_diagnostic_item = "oxide_soft_u128_to_f32"]
#[inline]
pub fn u128_to_f32(x: u128) -> f32 {
    f32::from_bits(u128_to_float_bits(x, 23, 127) as u32)
}

/// `x as f64` for `i128`.
#[rustc_diagnostic_item = "oxide_soft_i128_to_f64"]
#[inline]
pub fn i128_to_f64(x: i128) -> f64 {
    let magnitude = u128_to_f64(x.unsigned_abs());
    if x < 0 { -magnitude } else { magnitude }
}

/// `x as f32` for `i128`.
#[rustc_diagnostic_item = "oxide_soft_i128_to_f32"]
#[inline]
pub fn i128_to_f32(x: i128) -> f32 {
    let magnitude = u128_to_f32(x.unsigned_abs());
    if x < 0 { -magnitude } else { magnitude }
}

/// The integer part of a finite `x` with `|x| < 2^128`, as a magnitude.
#[inline]
fn f64_magnitude(x: f64) -> u128 {
    let bits = x.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    if exp_field < 1023 {
        return 0; // |x| < 1
    }
    let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let shift = exp_field - 1075;
    if shift >= 0 {
        (mant as u128) << shift as u32
    } else {
        (mant >> (-shift) as u32) as u128
    }
}

/// `x as u128` for `f64`: truncates, saturates, NaN is 0.
#[rustc_diagnostic_item = "oxide_soft_f64_to_u128"]
#[inline]
pub fn f64_to_u128(x: f64) -> u128 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 340282366920938463463374607431768211456.0 {
        u128::MAX
    } else {
        f64_magnitude(x)
    }
}

/// `x as i128` for `f64`: truncates, saturates, NaN is 0.
#[rustc_diagnostic_item = "oxide_soft_f64_to_i128"]
#[inline]
pub fn f64_to_i128(x: f64) -> i128 {
    if x.is_nan() {
        0
    } else if x >= 170141183460469231731687303715884105728.0 {
        i128::MAX
    } else if x <= -170141183460469231731687303715884105728.0 {
        i128::MIN
    } else {
        let magnitude = f64_magnitude(x.abs()) as i128;
        if x < 0.0 { -magnitude } else { magnitude }
    }
}

/// `x as u128` for `f32` (every `f32` is exactly an `f64`).
#[rustc_diagnostic_item = "oxide_soft_f32_to_u128"]
#[inline]
pub fn f32_to_u128(x: f32) -> u128 {
    f64_to_u128(x as f64)
}

/// `x as i128` for `f32`.
#[rustc_diagnostic_item = "oxide_soft_f32_to_i128"]
#[inline]
pub fn f32_to_i128(x: f32) -> i128 {
    f64_to_i128(x as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples_f32() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            3.0,
            -7.25,
            1e-45,
            -1e-45,
            1.17e-38,
            3.4e38,
            -3.4e38,
            1e10,
            7.62933e-23,
            188.58203,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
        ];
        let mut s = 0x1234_5678u32;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            v.push(f32::from_bits(s));
        }
        v
    }

    #[test]
    fn fmod_f32_is_the_host_remainder_bit_for_bit() {
        let v = samples_f32();
        for &x in &v {
            for &y in v.iter().step_by(37) {
                let (got, want) = (fmod_f32(x, y), x % y);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{x:e} % {y:e}: {got:e} vs {want:e}"
                );
            }
        }
    }

    #[test]
    fn fmod_f64_is_the_host_remainder_bit_for_bit() {
        let mut v: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            -2.75,
            1e300,
            -1e-310,
            5e-324,
            f64::INFINITY,
            f64::NAN,
            1946573.5,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push(f64::from_bits(s));
        }
        for &x in &v {
            for &y in v.iter().step_by(41) {
                let (got, want) = (fmod_f64(x, y), x % y);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{x:e} % {y:e}: {got:e} vs {want:e}"
                );
            }
        }
    }

    fn wide_samples() -> Vec<u128> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            u64::MAX as u128,
            (1 << 53) + 1,
            (1 << 54) + 2,
            (1 << 24) + 1,
            u128::MAX,
            u128::MAX >> 1,
            1 << 127,
        ];
        let mut s = 0x0123_4567_89ab_cdefu64;
        for i in 0..4000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let hi = s.rotate_left(i % 64) >> (i % 64);
            v.push(((hi as u128) << 64 | s as u128) >> (i % 128));
        }
        v
    }

    #[test]
    fn int128_to_float_is_the_host_cast() {
        for x in wide_samples() {
            assert_eq!(u128_to_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
            assert_eq!(u128_to_f32(x).to_bits(), (x as f32).to_bits(), "{x}");
            let y = x as i128;
            assert_eq!(i128_to_f64(y).to_bits(), (y as f64).to_bits(), "{y}");
            assert_eq!(i128_to_f32(y).to_bits(), (y as f32).to_bits(), "{y}");
        }
    }

    #[test]
    fn float_to_int128_is_the_host_cast() {
        let mut floats: Vec<f64> = wide_samples().into_iter().map(|x| x as f64).collect();
        floats.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.5,
            0.99,
            -1e40,
            1e40,
            3.4e38,
            -1.7e38,
            1.5,
            -2.5,
        ]);
        for x in floats.iter().copied().chain(floats.iter().map(|x| -x)) {
            assert_eq!(f64_to_u128(x), x as u128, "{x:e}");
            assert_eq!(f64_to_i128(x), x as i128, "{x:e}");
            let f = x as f32;
            assert_eq!(f32_to_u128(f), f as u128, "{f:e}");
            assert_eq!(f32_to_i128(f), f as i128, "{f:e}");
        }
    }

    #[test]
    fn compare_bytes_orders_like_slices() {
        let cases: [(&[u8], &[u8]); 4] =
            [(b"abc", b"abd"), (b"abc", b"abc"), (b"b", b"a"), (b"", b"")];
        for (a, b) in cases {
            let got = unsafe { compare_bytes(a.as_ptr(), b.as_ptr(), a.len().min(b.len())) };
            assert_eq!(got.signum(), (a.cmp(b) as i32).signum(), "{a:?} {b:?}");
        }
    }
}
