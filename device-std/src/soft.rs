//! Rust operations the GPU has no exact instruction for, written in Rust and compiled by oxide
//! like any device code. The backend calls these for the construct named on each function
//! (registry: `oxide_dialects::intrinsics::SOFT`); on the host they are ordinary functions, which
//! the tests compare with the host's own implementation bit for bit.

/// `x % y` for `f32`: the exact remainder (C's `fmodf`), which PTX has no instruction for.
/// Computed on the integer representation, so no step rounds.
#[inline]
pub fn fmod_f32(x: f32, y: f32) -> f32 {
    const MANT: u32 = 23;
    const EXP_MASK: u32 = 0xff;
    let (mut ux, mut uy) = (x.to_bits(), y.to_bits());
    let mut ex = ((ux >> MANT) & EXP_MASK) as i32;
    let mut ey = ((uy >> MANT) & EXP_MASK) as i32;
    let sign = ux & 0x8000_0000;
    if uy << 1 == 0 || y.is_nan() || ex == EXP_MASK as i32 {
        return (x * y) / (x * y);
    }
    if ux << 1 <= uy << 1 {
        return if ux << 1 == uy << 1 { 0.0 * x } else { x };
    }
    // Explicit leading bits; subnormals normalised.
    if ex == 0 {
        let mut i = ux << 9;
        while i >> 31 == 0 {
            ex -= 1;
            i <<= 1;
        }
        ux <<= (1 - ex) as u32;
    } else {
        ux = (ux & (u32::MAX >> 9)) | (1 << MANT);
    }
    if ey == 0 {
        let mut i = uy << 9;
        while i >> 31 == 0 {
            ey -= 1;
            i <<= 1;
        }
        uy <<= (1 - ey) as u32;
    } else {
        uy = (uy & (u32::MAX >> 9)) | (1 << MANT);
    }
    // Long division, one quotient bit per step.
    while ex > ey {
        let d = ux.wrapping_sub(uy);
        if d >> 31 == 0 {
            if d == 0 {
                return 0.0 * x;
            }
            ux = d;
        }
        ux <<= 1;
        ex -= 1;
    }
    let d = ux.wrapping_sub(uy);
    if d >> 31 == 0 {
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
        ux = (ux - (1 << MANT)) | ((ex as u32) << MANT);
    } else {
        ux >>= (1 - ex) as u32;
    }
    f32::from_bits(ux | sign)
}

/// `x % y` for `f64`: the exact remainder (C's `fmod`).
#[inline]
pub fn fmod_f64(x: f64, y: f64) -> f64 {
    const MANT: u64 = 52;
    const EXP_MASK: u64 = 0x7ff;
    let (mut ux, mut uy) = (x.to_bits(), y.to_bits());
    let mut ex = ((ux >> MANT) & EXP_MASK) as i64;
    let mut ey = ((uy >> MANT) & EXP_MASK) as i64;
    let sign = ux & (1 << 63);
    if uy << 1 == 0 || y.is_nan() || ex == EXP_MASK as i64 {
        return (x * y) / (x * y);
    }
    if ux << 1 <= uy << 1 {
        return if ux << 1 == uy << 1 { 0.0 * x } else { x };
    }
    if ex == 0 {
        let mut i = ux << 12;
        while i >> 63 == 0 {
            ex -= 1;
            i <<= 1;
        }
        ux <<= (1 - ex) as u64;
    } else {
        ux = (ux & (u64::MAX >> 12)) | (1 << MANT);
    }
    if ey == 0 {
        let mut i = uy << 12;
        while i >> 63 == 0 {
            ey -= 1;
            i <<= 1;
        }
        uy <<= (1 - ey) as u64;
    } else {
        uy = (uy & (u64::MAX >> 12)) | (1 << MANT);
    }
    while ex > ey {
        let d = ux.wrapping_sub(uy);
        if d >> 63 == 0 {
            if d == 0 {
                return 0.0 * x;
            }
            ux = d;
        }
        ux <<= 1;
        ex -= 1;
    }
    let d = ux.wrapping_sub(uy);
    if d >> 63 == 0 {
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
        ux = (ux - (1 << MANT)) | ((ex as u64) << MANT);
    } else {
        ux >>= (1 - ex) as u64;
    }
    f64::from_bits(ux | sign)
}

/// `core::intrinsics::compare_bytes`: `memcmp` of `n` bytes, as a sign.
///
/// # Safety
/// Both pointers are valid for reads of `n` bytes.
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
