//! The conversions of the two fp8 formats: to `f32` (exact, the same integer code on the GPU and
//! the CPU) and from `f32` (`cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` on the GPU, the same rounding
//! in software on the CPU).
//!
//! Both formats are described by one [`Format`], so each conversion is written once for both.

/// One fp8 format: the widths and encodings the conversions need.
#[derive(Clone, Copy)]
pub(super) struct Format {
    /// Stored mantissa bits (3 for E4M3, 2 for E5M2); the exponent has the other 7 − this.
    mantissa_bits: u32,
    /// The exponent bias (7, 15).
    bias: i32,
    /// The magnitude bits (sign cleared) of the largest finite value (448, 57344).
    max_finite: u8,
    /// Whether the magnitude after `max_finite` is infinity (E5M2) rather than a NaN (E4M3,
    /// whose only NaN is S.1111.111: the exponent 15 holds finite values up to 448).
    has_infinity: bool,
}

/// OCP E4M3 (`__nv_fp8_e4m3`): bias 7, no infinities, NaN = S.1111.111.
pub(super) const E4M3: Format = Format {
    mantissa_bits: 3,
    bias: 7,
    max_finite: 0x7e,
    has_infinity: false,
};

/// OCP E5M2 (`__nv_fp8_e5m2`): bias 15, IEEE-like infinities (S.11111.00) and NaNs.
pub(super) const E5M2: Format = Format {
    mantissa_bits: 2,
    bias: 15,
    max_finite: 0x7b,
    has_infinity: true,
};

/// The NaN both formats get from a NaN: what the GPU's `cvt...satfinite` and CUDA's software
/// conversion (`__nv_cvt_float_to_fp8`) give, whatever the input's sign and payload. For E5M2
/// it is the quiet NaN with every mantissa bit set.
pub(super) const CANONICAL_NAN: u8 = 0x7f;

/// The `f32` NaN every fp8 NaN widens to (as the `f16` conversion's), so that the GPU and the
/// CPU agree on its bits.
const F32_NAN: u32 = 0x7fff_ffff;

/// The `f32` of fp8 bits: exact, every fp8 value is an `f32`. Integer operations only, so the
/// GPU runs the same code as the CPU (its `cvt.rn.f16x2.e4m3x2` would need a second conversion
/// to reach `f32`, and its NaN bits would be the hardware's).
#[inline]
pub(super) const fn widen(bits: u8, format: Format) -> f32 {
    let sign = ((bits & 0x80) as u32) << 24;
    let magnitude = bits & 0x7f;
    let m = format.mantissa_bits;
    let exponent = (magnitude >> m) as i32;
    let mantissa = (magnitude & ((1 << m) - 1)) as u32;
    let f32_bits = if magnitude > format.max_finite {
        if format.has_infinity && magnitude == format.max_finite + 1 {
            sign | 0x7f80_0000
        } else {
            F32_NAN
        }
    } else if exponent == 0 {
        if mantissa == 0 {
            sign
        } else {
            // A subnormal, mantissa · 2^(1 − bias − m): with its leading one at bit `p`, that
            // is 1.f · 2^(1 − bias − m + p), normal in `f32`.
            let p = 31 - mantissa.leading_zeros();
            let f32_exponent = (128 - format.bias - m as i32 + p as i32) as u32;
            sign | f32_exponent << 23 | (mantissa ^ (1 << p)) << (23 - p)
        }
    } else {
        sign | ((exponent - format.bias + 127) as u32) << 23 | mantissa << (23 - m)
    };
    f32::from_bits(f32_bits)
}

/// `x` rounded to the nearest value of `format` (ties to even), as `cvt.rn.satfinite` does: a
/// finite value beyond the largest finite one, and ±∞, give ± the largest finite value; a NaN
/// gives [`CANONICAL_NAN`]; a value at most half the smallest subnormal gives a zero of its
/// sign.
#[inline]
pub(super) const fn round(x: f32, format: Format) -> u8 {
    let bits = x.to_bits();
    let sign = ((bits >> 24) & 0x80) as u8;
    let magnitude = bits & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 {
        return CANONICAL_NAN;
    }
    // `.satfinite`: nothing below the largest finite value rounds past it (it is a value of
    // the format), and everything from it on, ∞ included, becomes it.
    if magnitude >= widen(format.max_finite, format).to_bits() {
        return sign | format.max_finite;
    }
    let m = format.mantissa_bits;
    let dropped_bits = 23 - m;
    let exponent = (magnitude >> 23) as i32;
    let mantissa = magnitude & 0x007f_ffff;
    // The biased `f32` exponent of the format's smallest normal value, 2^(1 − bias).
    let min_normal = 128 - format.bias;
    if exponent >= min_normal {
        // A normal value: rebias the exponent, keep `m` mantissa bits and round on the dropped
        // ones; a carry out of the mantissa steps the exponent, as it must.
        let kept = ((exponent - min_normal + 1) as u32) << m | mantissa >> dropped_bits;
        let dropped = mantissa & ((1 << dropped_bits) - 1);
        let half = 1 << (dropped_bits - 1);
        let round_up = dropped > half || (dropped == half && kept & 1 == 1);
        return sign | (kept + round_up as u32) as u8;
    }
    // A subnormal (or zero): the value in units of the smallest subnormal, 2^(1 − bias − m), is
    // the full 24-bit significand shifted right by this much; from 25 on less than half a unit
    // is left (an `f32` subnormal, exponent 0, too). A carry out of the largest subnormal gives
    // the smallest normal, whose bits follow it.
    let shift = (min_normal - exponent) as u32 + dropped_bits;
    if exponent == 0 || shift > 24 {
        return sign;
    }
    let significand = mantissa | 0x0080_0000;
    let kept = significand >> shift;
    let dropped = significand & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round_up = dropped > half || (dropped == half && kept & 1 == 1);
    sign | (kept + round_up as u32) as u8
}

/// `cvt.rn.satfinite.e4m3x2.f32`: `lo` and `hi` rounded to E4M3, `lo` in the low byte. The
/// instruction's first source goes to the upper byte (`d = {a, b}`), hence `$2, $1`; its
/// destination is a `.b16` register (ptxas refuses a `.b32` one). CUDA's
/// `__nv_cvt_float2_to_fp8x2` passes its operands the same way.
#[oxide_gpu::ptx(
    template = "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;",
    constraints = "=h,f,f"
)]
#[inline(never)]
pub(super) fn cvt_e4m3x2(lo: f32, hi: f32) -> u16 {
    u16::from(round(lo, E4M3)) | u16::from(round(hi, E4M3)) << 8
}

/// `cvt.rn.satfinite.e5m2x2.f32`: as [`cvt_e4m3x2`], in E5M2.
#[oxide_gpu::ptx(
    template = "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;",
    constraints = "=h,f,f"
)]
#[inline(never)]
pub(super) fn cvt_e5m2x2(lo: f32, hi: f32) -> u16 {
    u16::from(round(lo, E5M2)) | u16::from(round(hi, E5M2)) << 8
}
