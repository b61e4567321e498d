//! The software conversions against the `half` crate's (an independent implementation), over
//! every 16-bit value, every tie between neighbours, and a sweep of `f32` bit patterns.

use super::*;

/// Every `f32` whose bits are a multiple of `step` (both signs), NaNs left out.
fn f32_sweep(step: u32) -> impl Iterator<Item = f32> {
    (0..=u32::MAX / step)
        .map(move |i| f32::from_bits(i * step))
        .filter(|x| !x.is_nan())
}

#[test]
fn bf16_rounds_as_half_does() {
    for x in f32_sweep(4099).chain([0.0, -0.0, f32::MAX, f32::MIN_POSITIVE, 1e-45]) {
        let ours = bf16::from_f32(x).to_bits();
        let theirs = half::bf16::from_f32(x).to_bits();
        assert_eq!(ours, theirs, "{x:e} ({:#010x})", x.to_bits());
    }
}

#[test]
fn f16_rounds_as_half_does() {
    for x in f32_sweep(4099).chain([65504.0, 65519.99, 65520.0, 6.0e-8, 2.9802322e-8]) {
        let ours = f16::from_f32(x).to_bits();
        let theirs = half::f16::from_f32(x).to_bits();
        assert_eq!(ours, theirs, "{x:e} ({:#010x})", x.to_bits());
    }
}

#[test]
fn every_value_converts_exactly_and_back() {
    for bits in 0..=u16::MAX {
        let (b, h) = (bf16::from_bits(bits), f16::from_bits(bits));
        let (bx, hx) = (b.to_f32(), h.to_f32());
        assert_eq!(bx.is_nan(), half::bf16::from_bits(bits).is_nan());
        assert_eq!(hx.is_nan(), half::f16::from_bits(bits).is_nan());
        if !bx.is_nan() {
            assert_eq!(bx.to_bits(), half::bf16::from_bits(bits).to_f32().to_bits());
            assert_eq!(bf16::from_f32(bx).to_bits(), bits);
        }
        if !hx.is_nan() {
            assert_eq!(hx.to_bits(), half::f16::from_bits(bits).to_f32().to_bits());
            assert_eq!(f16::from_f32(hx).to_bits(), bits);
            assert_eq!(h.to_f32_const().to_bits(), hx.to_bits());
        }
    }
}

#[test]
fn ties_go_to_the_even_neighbour() {
    // Between each finite positive value and the next, the midpoint is an f32 (both formats
    // have far fewer bits), and must round to whichever of the two has an even mantissa.
    for bits in 0..0x7bffu16 {
        let (lo, hi) = (f16::from_bits(bits), f16::from_bits(bits + 1));
        let mid = ((lo.to_f64() + hi.to_f64()) / 2.0) as f32;
        let even = if bits % 2 == 0 { bits } else { bits + 1 };
        assert_eq!(f16::from_f32(mid).to_bits(), even, "between {lo} and {hi}");
        assert_eq!(f16::from_f32(-mid).to_bits(), even | 0x8000);
    }
    for bits in 0..0x7f7fu16 {
        let (lo, hi) = (bf16::from_bits(bits), bf16::from_bits(bits + 1));
        let mid = ((lo.to_f64() + hi.to_f64()) / 2.0) as f32;
        let even = if bits % 2 == 0 { bits } else { bits + 1 };
        assert_eq!(bf16::from_f32(mid).to_bits(), even, "between {lo} and {hi}");
    }
}

#[test]
fn nan_is_canonical_and_overflow_is_infinite() {
    for nan in [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
    ] {
        assert_eq!(bf16::from_f32(nan).to_bits(), 0x7fff);
        assert_eq!(f16::from_f32(nan).to_bits(), 0x7fff);
    }
    assert_eq!(f16::from_f32(65520.0), f16::INFINITY);
    assert_eq!(f16::from_f32(-1e9), f16::NEG_INFINITY);
    assert_eq!(f16::from_f32(65519.0), f16::MAX);
    assert_eq!(bf16::from_f32(f32::MAX), bf16::INFINITY);
    assert_eq!(bf16::MAX.to_f32(), 3.3895314e38);
    assert!(bf16::NAN.is_nan() && f16::NAN.is_nan());
    assert!(bf16::NAN != bf16::NAN);
    assert_eq!(bf16::from_bits(0x8000), bf16::ZERO);
}

#[test]
fn constants_are_their_values() {
    assert_eq!(bf16::ONE.to_f32(), 1.0);
    assert_eq!(f16::ONE.to_f32(), 1.0);
    assert_eq!(f16::MAX.to_f32(), 65504.0);
    assert_eq!(f16::MIN.to_f32(), -65504.0);
    assert_eq!(f16::MIN_POSITIVE.to_f32(), 2f32.powi(-14));
    assert_eq!(bf16::MIN_POSITIVE.to_f32(), f32::MIN_POSITIVE);
    assert_eq!(f16::EPSILON.to_f32(), 2f32.powi(-10));
    assert_eq!(bf16::EPSILON.to_f32(), 2f32.powi(-7));
    assert_eq!(bf16::MIN.to_f32(), -bf16::MAX.to_f32());
    assert_eq!(bf16::INFINITY.to_f32(), f32::INFINITY);
    assert_eq!(f16::NEG_INFINITY.to_f32(), f32::NEG_INFINITY);
}

#[test]
fn arithmetic_is_correctly_rounded() {
    // 1 + 2^-8 is a tie in bf16 (7 mantissa bits): it rounds to the even 1.0; 1 + 3·2^-8
    // rounds up to 1 + 2^-6.
    let one = bf16::ONE;
    let tiny = bf16::from_f32(2f32.powi(-8));
    assert_eq!(one + tiny, one);
    assert_eq!(
        (one + tiny * bf16::from_f32(3.0)).to_f32(),
        1.0 + 2f32.powi(-6)
    );
    let (a, b) = (f16::from_f32(1.5), f16::from_f32(-0.25));
    assert_eq!((a * b).to_f32(), -0.375);
    assert_eq!((a / b).to_f32(), -6.0);
    assert_eq!((a - b).to_f32(), 1.75);
    assert_eq!((-a).to_f32(), -1.5);
    let mut c = a;
    c += b;
    c *= f16::from_f32(2.0);
    assert_eq!(c.to_f32(), 2.5);
    assert!(bf16::from_f32(-2.0) < bf16::ONE);
    assert_eq!(bf16::from_f32(-3.0).abs().to_f32(), 3.0);
    assert_eq!(f16::ONE.max(f16::NAN), f16::ONE);
    assert_eq!(
        format!("{} {:?}", bf16::from_f32(0.5), f16::from_f32(-2.0)),
        "0.5 -2.0"
    );
}

#[test]
fn the_primitive_f16_converts_bit_for_bit() {
    let x: super::primitive::F16 = 1.5;
    let ours = f16::from(x);
    assert_eq!(ours.to_f32(), 1.5);
    assert_eq!(super::primitive::F16::from(ours).to_bits(), x.to_bits());
    assert_eq!(
        f16::from(super::primitive::F16::from_bits(0xfbff)),
        f16::MIN
    );
}
