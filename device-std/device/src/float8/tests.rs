//! The software conversions against a slow reference written apart from them (each format's
//! values decoded from the OCP definition in `f64`, the nearest found by search), over every
//! 8-bit value, every tie between neighbours, a sweep of all `f32` bit patterns and a dense one
//! over the formats' ranges; and the edges one by one: subnormals, saturation, NaNs, zeros.

use super::*;

/// A format as the OCP specification states it, for the reference.
struct Spec {
    exponent_bits: i32,
    mantissa_bits: i32,
    bias: i32,
    /// Whether an all-ones exponent is ∞/NaN (E5M2) or finite but for S.1111.111 (E4M3).
    ieee_specials: bool,
}

const E4M3_SPEC: Spec = Spec {
    exponent_bits: 4,
    mantissa_bits: 3,
    bias: 7,
    ieee_specials: false,
};

const E5M2_SPEC: Spec = Spec {
    exponent_bits: 5,
    mantissa_bits: 2,
    bias: 15,
    ieee_specials: true,
};

impl Spec {
    /// The value of `bits`, in `f64`: `None` for a NaN.
    fn decode(&self, bits: u8) -> Option<f64> {
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = i32::from(bits >> self.mantissa_bits) & ((1 << self.exponent_bits) - 1);
        let m = f64::from(bits & ((1 << self.mantissa_bits) - 1));
        let top = (1 << self.exponent_bits) - 1;
        let scale = f64::from(1 << self.mantissa_bits);
        if self.ieee_specials && e == top {
            return (m == 0.0).then_some(sign * f64::INFINITY);
        }
        if !self.ieee_specials && bits & 0x7f == 0x7f {
            return None;
        }
        Some(if e == 0 {
            sign * m / scale * 2f64.powi(1 - self.bias)
        } else {
            sign * (1.0 + m / scale) * 2f64.powi(e - self.bias)
        })
    }

    /// The finite non-negative values and their bits, ascending.
    fn finite_values(&self) -> Vec<(f64, u8)> {
        (0..0x80u8)
            .filter_map(|b| self.decode(b).filter(|v| v.is_finite()).map(|v| (v, b)))
            .collect()
    }

    /// `x` rounded as `cvt.rn.satfinite` is specified: the nearest finite value (ties to the
    /// even bits), the largest one beyond it, the canonical NaN for a NaN.
    fn reference(&self, values: &[(f64, u8)], x: f32) -> u8 {
        if x.is_nan() {
            return 0x7f;
        }
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = f64::from(x).abs();
        let (max, max_bits) = values[values.len() - 1];
        if a >= max {
            return sign | max_bits;
        }
        let above = values.partition_point(|&(v, _)| v < a);
        let (hi, hi_bits) = values[above];
        let (lo, lo_bits) = values[above.saturating_sub(1)];
        let bits = match (a - lo).partial_cmp(&(hi - a)).unwrap() {
            Ordering::Less => lo_bits,
            Ordering::Greater => hi_bits,
            Ordering::Equal if lo_bits % 2 == 0 => lo_bits,
            Ordering::Equal => hi_bits,
        };
        sign | bits
    }
}

/// Every `f32` whose bits are a multiple of `step`, both signs, NaNs included.
fn f32_sweep(step: u32) -> impl Iterator<Item = f32> {
    (0..=u32::MAX / step).map(move |i| f32::from_bits(i * step))
}

/// Every `f32` of both signs from 2^-20 to 2^17 (beyond both formats at each end) whose low
/// mantissa bits are those of a multiple of `step`: dense where the formats have values.
fn range_sweep(step: u32) -> impl Iterator<Item = f32> {
    let (first, last) = (2f32.powi(-20).to_bits(), 2f32.powi(17).to_bits());
    (first..last)
        .step_by(step as usize)
        .flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)])
}

/// Checks both conversions from `f32` (the marked one the CPU runs and the `const` one)
/// against the reference for each `x`.
fn check_against_reference(xs: impl Iterator<Item = f32>) {
    let (v4, v5) = (E4M3_SPEC.finite_values(), E5M2_SPEC.finite_values());
    for x in xs {
        let (want4, want5) = (E4M3_SPEC.reference(&v4, x), E5M2_SPEC.reference(&v5, x));
        let show = || format!("{x:e} ({:#010x})", x.to_bits());
        assert_eq!(e4m3::from_f32(x).to_bits(), want4, "e4m3 of {}", show());
        assert_eq!(e5m2::from_f32(x).to_bits(), want5, "e5m2 of {}", show());
        assert_eq!(e4m3::from_f32_const(x).to_bits(), want4, "{}", show());
        assert_eq!(e5m2::from_f32_const(x).to_bits(), want5, "{}", show());
    }
}

#[test]
fn rounding_matches_the_reference_over_all_of_f32() {
    check_against_reference(f32_sweep(4099).chain([
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
    ]));
}

#[test]
fn rounding_matches_the_reference_where_the_formats_have_values() {
    // 37 binades of 2^23 values each, one in 97: about 3.2 million per sign, every tie and
    // subnormal region crossed many times over.
    check_against_reference(range_sweep(97));
}

#[test]
fn every_value_widens_exactly_and_rounds_back() {
    for bits in 0..=u8::MAX {
        for (spec, x, back, konst) in [
            (
                &E4M3_SPEC,
                e4m3::from_bits(bits).to_f32(),
                e4m3::from_f32(e4m3::from_bits(bits).to_f32()).to_bits(),
                e4m3::from_bits(bits).to_f32_const(),
            ),
            (
                &E5M2_SPEC,
                e5m2::from_bits(bits).to_f32(),
                e5m2::from_f32(e5m2::from_bits(bits).to_f32()).to_bits(),
                e5m2::from_bits(bits).to_f32_const(),
            ),
        ] {
            assert_eq!(x.to_bits(), konst.to_bits());
            match spec.decode(bits) {
                None => {
                    assert_eq!(x.to_bits(), 0x7fff_ffff, "{bits:#04x} widens to the NaN");
                    assert_eq!(back, 0x7f, "{bits:#04x} rounds back to the canonical NaN");
                }
                Some(v) if v.is_infinite() => {
                    assert_eq!(f64::from(x), v);
                    assert_eq!(back, (bits & 0x80) | 0x7b, "±∞ saturates");
                }
                Some(v) => {
                    // Bits, not values: -0.0 widens to -0.0 and comes back as 0x80.
                    assert_eq!(x.to_bits(), (v as f32).to_bits(), "{bits:#04x}");
                    assert_eq!(f64::from(x), v);
                    assert_eq!(back, bits, "{bits:#04x} ({v}) round-trips");
                }
            }
        }
    }
}

#[test]
fn ties_go_to_the_even_neighbour() {
    // Between two neighbouring values the midpoint has one bit more than the format: an f32.
    for (values, from_f32) in [
        (
            E4M3_SPEC.finite_values(),
            (|x| e4m3::from_f32(x).to_bits()) as fn(f32) -> u8,
        ),
        (E5M2_SPEC.finite_values(), |x| e5m2::from_f32(x).to_bits()),
    ] {
        for pair in values.windows(2) {
            let ((lo, lo_bits), (hi, hi_bits)) = (pair[0], pair[1]);
            let mid = ((lo + hi) / 2.0) as f32;
            assert_eq!(f64::from(mid), (lo + hi) / 2.0);
            let even = if lo_bits % 2 == 0 { lo_bits } else { hi_bits };
            assert_eq!(from_f32(mid), even, "between {lo} and {hi}");
            assert_eq!(from_f32(-mid), even | 0x80, "between -{lo} and -{hi}");
            // Just off the tie, the nearer neighbour, whatever its parity.
            assert_eq!(from_f32(mid.next_down()), lo_bits);
            assert_eq!(from_f32(mid.next_up()), hi_bits);
        }
    }
    // A few by hand, in several binades: 1 + 2^-4 lies between 1 (0x38, even) and 1.125;
    // 1.1875 between 1.125 (odd) and 1.25 (0x3a); 38 between 36 (0x61, odd) and 40 (0x62)...
    assert_eq!(e4m3::from_f32(1.0625).to_bits(), 0x38);
    assert_eq!(e4m3::from_f32(1.1875).to_bits(), 0x3a);
    assert_eq!(e4m3::from_f32(38.0).to_bits(), 0x62);
    assert_eq!(e4m3::from_f32(0.07421875).to_bits(), 0x1a); // 2^-4·1.1875: between 0x19 and 0x1a
    assert_eq!(e5m2::from_f32(1.125).to_bits(), 0x3c); // between 1 and 1.25
    assert_eq!(e5m2::from_f32(1.375).to_bits(), 0x3e); // between 1.25 and 1.5
    assert_eq!(e5m2::from_f32(832.0).to_bits(), 0x62); // between 768 (0x62) and 896
    assert_eq!(e5m2::from_f32(-6.5).to_bits(), 0xc6); // between -6 (0xc6) and -7
}

#[test]
fn subnormals_and_what_rounds_to_zero() {
    let tiny4 = 2f32.powi(-9);
    assert_eq!(e4m3::MIN_POSITIVE_SUBNORMAL.to_f32(), tiny4);
    assert_eq!(e4m3::from_f32(tiny4).to_bits(), 0x01);
    assert_eq!(e4m3::from_f32(3.0 * tiny4).to_bits(), 0x03);
    // Half the smallest subnormal is a tie with zero, which is even; anything more rounds up.
    assert_eq!(e4m3::from_f32(tiny4 / 2.0).to_bits(), 0x00);
    assert_eq!(e4m3::from_f32((tiny4 / 2.0).next_up()).to_bits(), 0x01);
    assert_eq!(e4m3::from_f32(-tiny4 / 2.0).to_bits(), 0x80);
    assert_eq!(e4m3::from_f32(tiny4 / 4.0).to_bits(), 0x00);
    // 1.5 and 2.5 units: ties to the even 2.
    assert_eq!(e4m3::from_f32(1.5 * tiny4).to_bits(), 0x02);
    assert_eq!(e4m3::from_f32(2.5 * tiny4).to_bits(), 0x02);
    // The largest subnormal, 7 units, and the tie above it carry into the smallest normal.
    assert_eq!(e4m3::from_bits(0x07).to_f32(), 7.0 * tiny4);
    assert_eq!(e4m3::from_f32(7.5 * tiny4), e4m3::MIN_POSITIVE);
    assert_eq!(e4m3::MIN_POSITIVE.to_f32(), 2f32.powi(-6));

    let tiny5 = 2f32.powi(-16);
    assert_eq!(e5m2::MIN_POSITIVE_SUBNORMAL.to_f32(), tiny5);
    assert_eq!(e5m2::from_f32(tiny5).to_bits(), 0x01);
    assert_eq!(e5m2::from_f32(tiny5 / 2.0).to_bits(), 0x00);
    assert_eq!(e5m2::from_f32((tiny5 / 2.0).next_up()).to_bits(), 0x01);
    assert_eq!(e5m2::from_f32(-(tiny5 / 2.0).next_up()).to_bits(), 0x81);
    assert_eq!(e5m2::from_f32(3.5 * tiny5), e5m2::MIN_POSITIVE);
    assert_eq!(e5m2::MIN_POSITIVE.to_f32(), 2f32.powi(-14));
    // f32 subnormals are far below both formats.
    assert_eq!(e4m3::from_f32(-1e-45).to_bits(), 0x80);
    assert_eq!(e5m2::from_f32(1e-40).to_bits(), 0x00);
}

#[test]
fn beyond_the_largest_finite_value_saturates() {
    for x in [
        448.0,
        449.0,
        463.9,
        464.0,
        465.0,
        480.0,
        1e6,
        f32::MAX,
        f32::INFINITY,
    ] {
        assert_eq!(e4m3::from_f32(x), e4m3::MAX, "{x}");
        assert_eq!(e4m3::from_f32(-x), e4m3::MIN, "{x}");
    }
    // Below it, ordinary rounding: 432 is the tie between 416 (0x7d) and 448 (0x7e).
    assert_eq!(e4m3::from_f32(447.0), e4m3::MAX);
    assert_eq!(e4m3::from_f32(432.0), e4m3::MAX);
    assert_eq!(e4m3::from_f32(431.0).to_bits(), 0x7d);
    for x in [57344.0, 60000.0, 61440.0, 65536.0, 1e30, f32::INFINITY] {
        assert_eq!(e5m2::from_f32(x), e5m2::MAX, "{x}");
        assert_eq!(e5m2::from_f32(-x), e5m2::MIN, "{x}");
    }
    // 53248 is the tie between 49152 (0x7a, even) and MAX.
    assert_eq!(e5m2::from_f32(53248.0).to_bits(), 0x7a);
    assert_eq!(e5m2::from_f32(53249.0), e5m2::MAX);
    assert_eq!(e4m3::MAX.to_f32(), 448.0);
    assert_eq!(e5m2::MAX.to_f32(), 57344.0);
}

#[test]
fn nan_is_canonical() {
    for nan in [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        f32::from_bits(0x7fff_ffff),
    ] {
        assert_eq!(e4m3::from_f32(nan).to_bits(), 0x7f);
        assert_eq!(e5m2::from_f32(nan).to_bits(), 0x7f);
    }
    assert!(e4m3::NAN.is_nan() && e4m3::from_bits(0xff).is_nan());
    assert!(!e4m3::from_bits(0x7e).is_nan() && e4m3::from_bits(0x7e).is_finite());
    for bits in [0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff] {
        assert!(e5m2::from_bits(bits).is_nan(), "{bits:#x}");
    }
    assert!(e4m3::NAN != e4m3::NAN);
    assert!(e5m2::NAN.partial_cmp(&e5m2::ONE).is_none());
}

#[test]
fn zeros_infinities_and_constants() {
    assert_eq!(e4m3::from_f32(-0.0).to_bits(), 0x80);
    assert_eq!(e5m2::from_f32(-0.0).to_bits(), 0x80);
    assert!(e4m3::from_bits(0x80).to_f32().is_sign_negative());
    assert_eq!(e4m3::from_bits(0x80), e4m3::ZERO);
    assert_eq!((-e5m2::ZERO).to_bits(), 0x80);
    assert_eq!(e5m2::INFINITY.to_f32(), f32::INFINITY);
    assert_eq!(e5m2::NEG_INFINITY.to_f32(), f32::NEG_INFINITY);
    assert!(!e5m2::INFINITY.is_finite() && !e5m2::INFINITY.is_nan());
    assert_eq!(e4m3::ONE.to_f32(), 1.0);
    assert_eq!(e5m2::ONE.to_f32(), 1.0);
    assert_eq!(e4m3::MIN.to_f32(), -448.0);
    assert_eq!(e5m2::MIN.to_f32(), -57344.0);
    assert_eq!(e4m3::EPSILON.to_f32(), 2f32.powi(-3));
    assert_eq!(e5m2::EPSILON.to_f32(), 2f32.powi(-2));
    assert_eq!(e4m3::from_bits(0x39).to_f32() - 1.0, e4m3::EPSILON.to_f32());
    assert_eq!(e5m2::from_bits(0x3d).to_f32() - 1.0, e5m2::EPSILON.to_f32());
    assert_eq!(e4m3::default().to_bits(), 0);
    assert_eq!(e4m3::from_f64(0.3).to_f32(), 0.3125);
    assert_eq!(e5m2::from_f32(-3.0).to_f64(), -3.0);
}

#[test]
fn comparisons_and_printing_are_the_values() {
    assert!(e4m3::from_f32(-2.0) < e4m3::ONE);
    assert!(e5m2::MAX < e5m2::INFINITY);
    assert_eq!(e4m3::from_f32(-3.0).abs().to_f32(), 3.0);
    assert_eq!((-e4m3::ONE).to_f32(), -1.0);
    assert_eq!(e4m3::ONE.max(e4m3::NAN), e4m3::ONE);
    assert_eq!(e4m3::NAN.min(e4m3::ONE), e4m3::ONE);
    assert_eq!(e5m2::ONE.min(e5m2::NEG_INFINITY), e5m2::NEG_INFINITY);
    assert_eq!(e5m2::ONE.max(e5m2::MAX), e5m2::MAX);
    assert_eq!(f32::from(e4m3::MAX), 448.0);
    assert_eq!(f64::from(e5m2::MIN_POSITIVE_SUBNORMAL), 2f64.powi(-16));
    assert_eq!(
        format!(
            "{} {:?} {} {}",
            e4m3::from_f32(0.5),
            e5m2::from_f32(-2.0),
            e4m3::NAN,
            e5m2::NEG_INFINITY
        ),
        "0.5 -2.0 NaN -inf"
    );
}

#[test]
fn pairs_put_the_first_value_in_the_low_byte() {
    // The bytes of `cvt.rn.satfinite.*x2.f32 d, a, b` are d = {a, b}: the CPU body must give the
    // GPU's layout, the first argument low.
    assert_eq!(convert::cvt_e4m3x2(1.0, -448.0), 0xfe38);
    assert_eq!(convert::cvt_e5m2x2(f32::NAN, 1.0), 0x3c7f);
}

#[test]
fn accumulators_store_rounded_and_saturated() {
    use crate::outputs::FromAccumulator;
    assert_eq!(e4m3::from_accumulator(1000.0), e4m3::MAX);
    assert_eq!(e5m2::from_accumulator(-1e9), e5m2::MIN);
    assert_eq!(e4m3::from_accumulator(0.3).to_f32(), 0.3125);
}
