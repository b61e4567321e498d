//! The 16-bit floats of tensor-core kernels: [`bf16`] (bfloat16: `f32`'s 8-bit exponent, 7
//! mantissa bits; CUDA's `__nv_bfloat16`) and [`f16`] (IEEE binary16: 5-bit exponent, 10
//! mantissa bits; CUDA's `__half`).
//!
//! Rust's own `f16` (nightly's primitive) is the same IEEE format and computes natively on the
//! GPU (`add.rn.f16`...); [`f16`] here is its buffer element: `DeviceRepr` for the host's
//! buffers, which a primitive of core's cannot be made, and `From` either way, bit for bit. It is
//! not in the prelude, so `f16` in a kernel that imports the prelude is still the primitive.
//!
//! Each is its 16 bits (`#[repr(transparent)]` over `u16`), so a `DeviceBuffer<bf16>` holds
//! exactly what a `torch.bfloat16` tensor or a CUDA `__nv_bfloat16*` holds, and a value moves
//! to and from the `half` crate's types by its bits ([`bf16::to_bits`], [`bf16::from_bits`]).
//!
//! Arithmetic converts to `f32`, computes there and rounds back to nearest-even: for `+ - * /`
//! that is the correctly rounded 16-bit result (a 24-bit `f32` result rounded to 8 or 11 bits
//! never rounds twice wrongly: 24 ≥ 2·11 + 2), the same value as CUDA's `__hadd`/`__hmul`. The
//! conversions are the GPU's instructions there (`cvt.rn.bf16.f32`, `cvt.rn.f16.f32`,
//! `cvt.f32.f16`) and the same function in software on the CPU (plain calls and the emulator):
//! round to nearest, ties to even; a NaN becomes the canonical NaN `0x7fff`, as the GPU's
//! conversions give; comparisons are those of the `f32` values (so `-0 == +0` and a NaN equals
//! nothing).

use core::cmp::Ordering;
use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A bfloat16: the upper half of an `f32` (sign, 8-bit exponent, 7 mantissa bits).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct bf16(u16);

/// An IEEE 754 binary16 float (sign, 5-bit exponent, 10 mantissa bits).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct f16(u16);

/// The canonical NaN both conversions from `f32` give for a NaN.
const CANONICAL_NAN: u16 = 0x7fff;

/// `x` rounded to the nearest bfloat16, ties to even, as bits (the CPU's conversion).
#[inline]
const fn bf16_bits_from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return CANONICAL_NAN;
    }
    // Adding 0x7fff plus the kept part's lowest bit, then truncating, rounds to nearest with
    // ties to even; a carry out of the mantissa steps the exponent (up to infinity), as it must.
    let lowest_kept = (bits >> 16) & 1;
    ((bits + 0x7fff + lowest_kept) >> 16) as u16
}

/// `x` rounded to the nearest binary16, ties to even, as bits (the CPU's conversion).
#[inline]
const fn f16_bits_from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let magnitude = bits & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 {
        return CANONICAL_NAN;
    }
    // 65520 = 65504 (the largest finite value, odd mantissa) plus half a step: from there on,
    // ties included, the value rounds to infinity.
    if magnitude >= 0x477f_f000 {
        return sign | 0x7c00;
    }
    let exponent = (magnitude >> 23) as i32;
    let mantissa = magnitude & 0x007f_ffff;
    if exponent >= 113 {
        // A normal binary16 (2^-14 and up): keep 10 of the 23 mantissa bits, rebias the
        // exponent, and round on the 13 dropped bits; a carry steps the exponent.
        let kept = ((exponent - 112) as u32) << 10 | mantissa >> 13;
        let dropped = mantissa & 0x1fff;
        let round_up = dropped > 0x1000 || (dropped == 0x1000 && kept & 1 == 1);
        return sign | (kept + round_up as u32) as u16;
    }
    // A subnormal binary16 (or zero): the value in units of 2^-24 is the full significand
    // shifted right by 126 - exponent; 25 or more shifts leave less than half a unit (an f32
    // subnormal, exponent 0, too).
    let shift = 126 - exponent;
    if exponent == 0 || shift > 24 {
        return sign;
    }
    let significand = mantissa | 0x0080_0000;
    let kept = significand >> shift;
    let dropped = significand & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round_up = dropped > half || (dropped == half && kept & 1 == 1);
    sign | (kept + round_up as u32) as u16
}

/// The `f32` of binary16 bits (exact: every binary16 is an `f32`).
#[inline]
const fn f32_from_f16_bits(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exponent = ((h >> 10) & 0x1f) as u32;
    let mantissa = (h & 0x03ff) as u32;
    let bits = match exponent {
        0x1f if mantissa == 0 => sign | 0x7f80_0000,
        0x1f => 0x7fff_ffff,
        0 if mantissa == 0 => sign,
        0 => {
            // A subnormal: mantissa · 2^-24, renormalised so its leading one is implicit.
            let leading = mantissa.leading_zeros() - 21;
            let mantissa = (mantissa << leading) & 0x03ff;
            sign | (113 - leading) << 23 | mantissa << 13
        }
        _ => sign | (exponent + 112) << 23 | mantissa << 13,
    };
    f32::from_bits(bits)
}

// On the GPU the conversions are LLVM's casts (`fptrunc`, `fpext`; the `float_convert` mark),
// which NVPTX selects as `cvt.rn.bf16.f32`, `cvt.rn.f16.f32` and `cvt.f32.f16`. As casts LLVM
// sees them, so two roundings whose results sit side by side (a chunk of a `[bf16; 8]`) become
// one `cvt.rn.bf16x2.f32`, which inline PTX hid from it.

/// `x` rounded to bf16 (`cvt.rn.bf16.f32` on the GPU).
#[oxide_gpu::float_convert("bf16")]
#[inline(never)]
fn cvt_bf16_f32(x: f32) -> u16 {
    bf16_bits_from_f32(x)
}

/// `x` rounded to f16 (`cvt.rn.f16.f32` on the GPU).
#[oxide_gpu::float_convert("f16")]
#[inline(never)]
fn cvt_f16_f32(x: f32) -> u16 {
    f16_bits_from_f32(x)
}

/// The f16 of bits `h`, widened (`cvt.f32.f16` on the GPU).
#[oxide_gpu::float_convert("f16")]
#[inline(never)]
fn cvt_f32_f16(h: u16) -> f32 {
    f32_from_f16_bits(h)
}

macro_rules! float16 {
    ($t:ident, $name:literal, from_f32: $from:ident, const_from_f32: $const_from:ident,
     to_f32: |$bits:ident| $to:expr, const_to_f32: $const_to:expr;
     consts: $($c:ident = $v:literal, $cdoc:literal;)*) => {
        impl $t {
            $(#[doc = $cdoc] pub const $c: $t = $t($v);)*

            #[doc = concat!("The ", $name, " nearest `x` (ties to even); a NaN gives the canonical NaN.")]
            #[inline]
            pub fn from_f32(x: f32) -> $t {
                $t($from(x))
            }

            #[doc = concat!("[`from_f32`](Self::from_f32) in a `const` context (the CPU's conversion, which is the GPU's instruction's).")]
            #[inline]
            pub const fn from_f32_const(x: f32) -> $t {
                $t($const_from(x))
            }

            #[doc = concat!("`x` rounded to `f32`, then to the nearest ", $name, ": two roundings, so a value within an `f32` ulp of a tie between two neighbours may land on the other one than one rounding would give (as CUDA's `__double2bfloat16` through `float`).")]
            #[inline]
            pub fn from_f64(x: f64) -> $t {
                $t::from_f32(x as f32)
            }

            /// The value as an `f32` (exact).
            #[inline]
            pub fn to_f32(self) -> f32 {
                let $bits = self.0;
                $to
            }

            /// [`to_f32`](Self::to_f32) in a `const` context.
            #[inline]
            pub const fn to_f32_const(self) -> f32 {
                let $bits = self.0;
                $const_to
            }

            /// The value as an `f64` (exact).
            #[inline]
            pub fn to_f64(self) -> f64 {
                f64::from(self.to_f32())
            }

            #[doc = concat!("The ", $name, " of these bits.")]
            #[inline]
            pub const fn from_bits(bits: u16) -> $t {
                $t(bits)
            }

            /// The value's 16 bits.
            #[inline]
            pub const fn to_bits(self) -> u16 {
                self.0
            }

            /// Whether the value is a NaN.
            #[inline]
            pub fn is_nan(self) -> bool {
                self.to_f32().is_nan()
            }

            /// Whether the value is neither infinite nor a NaN.
            #[inline]
            pub fn is_finite(self) -> bool {
                self.to_f32().is_finite()
            }

            /// The absolute value (the sign bit cleared).
            #[inline]
            pub const fn abs(self) -> $t {
                $t(self.0 & 0x7fff)
            }

            /// The larger value; a NaN loses to a number, as `f32::max`.
            #[inline]
            pub fn max(self, other: $t) -> $t {
                $t::from_f32(self.to_f32().max(other.to_f32()))
            }

            /// The smaller value; a NaN loses to a number, as `f32::min`.
            #[inline]
            pub fn min(self, other: $t) -> $t {
                $t::from_f32(self.to_f32().min(other.to_f32()))
            }
        }

        impl From<$t> for f32 {
            #[inline]
            fn from(x: $t) -> f32 {
                x.to_f32()
            }
        }

        impl From<$t> for f64 {
            #[inline]
            fn from(x: $t) -> f64 {
                x.to_f64()
            }
        }

        impl PartialEq for $t {
            #[inline]
            fn eq(&self, other: &$t) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $t {
            #[inline]
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl Neg for $t {
            type Output = $t;
            #[inline]
            fn neg(self) -> $t {
                $t(self.0 ^ 0x8000)
            }
        }

        float16!(@ops $t; Add add AddAssign add_assign +; Sub sub SubAssign sub_assign -;
                 Mul mul MulAssign mul_assign *; Div div DivAssign div_assign /);

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
    (@ops $t:ident; $($op:ident $method:ident $assign:ident $assign_method:ident $sym:tt);*) => {$(
        impl $op for $t {
            type Output = $t;
            #[inline]
            fn $method(self, rhs: $t) -> $t {
                $t::from_f32(self.to_f32() $sym rhs.to_f32())
            }
        }

        impl $assign for $t {
            #[inline]
            fn $assign_method(&mut self, rhs: $t) {
                *self = *self $sym rhs;
            }
        }
    )*};
}

float16! {
    bf16, "bfloat16", from_f32: cvt_bf16_f32, const_from_f32: bf16_bits_from_f32,
    to_f32: |bits| f32::from_bits((bits as u32) << 16),
    const_to_f32: f32::from_bits((bits as u32) << 16);
    consts:
        ZERO = 0x0000, "0.0";
        ONE = 0x3f80, "1.0";
        INFINITY = 0x7f80, "+∞";
        NEG_INFINITY = 0xff80, "−∞";
        NAN = 0x7fff, "The canonical NaN.";
        MAX = 0x7f7f, "The largest finite value, about 3.39e38.";
        MIN = 0xff7f, "The smallest finite value, −MAX.";
        MIN_POSITIVE = 0x0080, "The smallest positive normal value, 2^-126.";
        EPSILON = 0x3c00, "The gap between 1.0 and the next value, 2^-7.";
}

float16! {
    f16, "binary16", from_f32: cvt_f16_f32, const_from_f32: f16_bits_from_f32,
    to_f32: |bits| cvt_f32_f16(bits),
    const_to_f32: f32_from_f16_bits(bits);
    consts:
        ZERO = 0x0000, "0.0";
        ONE = 0x3c00, "1.0";
        INFINITY = 0x7c00, "+∞";
        NEG_INFINITY = 0xfc00, "−∞";
        NAN = 0x7fff, "The canonical NaN.";
        MAX = 0x7bff, "The largest finite value, 65504.";
        MIN = 0xfbff, "The smallest finite value, −65504.";
        MIN_POSITIVE = 0x0400, "The smallest positive normal value, 2^-14.";
        EPSILON = 0x1400, "The gap between 1.0 and the next value, 2^-10.";
}

/// Rust's own `f16`, by a name this module's `f16` does not hide.
mod primitive {
    pub type F16 = f16;
}

impl From<primitive::F16> for f16 {
    #[inline]
    fn from(x: primitive::F16) -> f16 {
        f16(x.to_bits())
    }
}

impl From<f16> for primitive::F16 {
    #[inline]
    fn from(x: f16) -> primitive::F16 {
        primitive::F16::from_bits(x.0)
    }
}

// SAFETY: each is a `#[repr(transparent)]` `u16`: plain data the GPU reads as its 16 bits, and
// all-zero bits are 0.0.
#[cfg(feature = "host")]
unsafe impl cudarc::driver::DeviceRepr for bf16 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::DeviceRepr for f16 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::ValidAsZeroBits for bf16 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::ValidAsZeroBits for f16 {}

#[cfg(test)]
mod tests;
