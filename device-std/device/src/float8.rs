//! The 8-bit floats of fp8 tensor-core kernels, in the OCP formats CUDA and PyTorch use:
//! [`e4m3`] (sign, 4-bit exponent of bias 7, 3 mantissa bits; CUDA's `__nv_fp8_e4m3`,
//! `torch.float8_e4m3fn`) and [`e5m2`] (sign, 5-bit exponent of bias 15, 2 mantissa bits;
//! `__nv_fp8_e5m2`, `torch.float8_e5m2`).
//!
//! E4M3 has no infinities: its exponent 15 holds finite values up to 448 and one NaN,
//! S.1111.111 (`0x7f`, `0xff`). E5M2 is IEEE-like: ±∞ are `0x7c`/`0xfc`, the rest of exponent 31
//! is NaNs, and its largest finite value is 57344. Both have subnormals (down to 2^-9 and 2^-16).
//!
//! Each is its 8 bits (`#[repr(transparent)]` over `u8`), so a `DeviceBuffer<e4m3>` holds what
//! a `torch.float8_e4m3fn` tensor or a CUDA `__nv_fp8_e4m3*` holds.
//!
//! From `f32` the rounding is that of `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`, which the GPU
//! runs (and CUDA's `__nv_fp8_e4m3(float)`): to nearest, ties to even; a finite value beyond the
//! largest finite one, and ±∞, give ± the largest finite value (±448, ±57344: saturation, not
//! infinity, in both formats); a NaN gives the canonical NaN `0x7f` in both formats; a value at
//! most half the smallest subnormal gives a zero of its sign. The CPU (plain calls and the
//! emulator) runs the same rounding in software. To `f32` is exact and the same integer code
//! on both; every NaN widens to the `f32` NaN `0x7fffffff`.
//!
//! The instructions need sm_90 or later for ptxas (sm_89 would need PTX ISA 8.1, and oxide
//! declares 8.0 there): a kernel built for an earlier architecture that converts to fp8 is
//! refused by ptxas. Widening is integer code and builds for any architecture.
//!
//! There is no arithmetic, as on CUDA's fp8 types: with saturation instead of overflow to ∞,
//! an fp8 `+` would not be IEEE's, and fp8 is a storage and tensor-core input format; compute
//! in `f32` ([`e4m3::to_f32`]) and round once at the end. Comparisons are those of the `f32`
//! values (so `-0 == +0` and a NaN equals nothing).

use core::cmp::Ordering;
use core::fmt;
use core::ops::Neg;

mod convert;

use convert::{E4M3, E5M2, cvt_e4m3x2, cvt_e5m2x2, round, widen};

/// An OCP FP8 E4M3 float (sign, 4-bit exponent of bias 7, 3 mantissa bits; no infinities).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct e4m3(u8);

/// An OCP FP8 E5M2 float (sign, 5-bit exponent of bias 15, 2 mantissa bits; ±∞ and NaNs).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct e5m2(u8);

macro_rules! float8 {
    ($t:ident, $name:literal, $format:ident, $cvt:ident, $instruction:literal;
     consts: $($c:ident = $v:literal, $cdoc:literal;)*) => {
        impl $t {
            $(#[doc = $cdoc] pub const $c: $t = $t($v);)*

            #[doc = concat!("The ", $name, " nearest `x` (ties to even), saturated: beyond the largest finite value, ±∞ included, ± that value; a NaN gives the canonical NaN `0x7f`. `", $instruction, "` on the GPU.")]
            #[inline]
            pub fn from_f32(x: f32) -> $t {
                // The instruction converts a pair; `x` goes to the low byte, 0 to the other,
                // as CUDA's `__nv_cvt_float_to_fp8` does.
                $t($cvt(x, 0.0) as u8)
            }

            #[doc = concat!("[`from_f32`](Self::from_f32) in a `const` context (the CPU's conversion, which rounds as the GPU's instruction does).")]
            #[inline]
            pub const fn from_f32_const(x: f32) -> $t {
                $t(round(x, $format))
            }

            #[doc = concat!("`x` rounded to `f32`, then to the nearest ", $name, ": two roundings, so a value within an `f32` ulp of a tie between two neighbours may land on the other one than one rounding would give.")]
            #[inline]
            pub fn from_f64(x: f64) -> $t {
                $t::from_f32(x as f32)
            }

            /// The value as an `f32` (exact; every NaN gives the `f32` NaN `0x7fffffff`).
            #[inline]
            pub const fn to_f32(self) -> f32 {
                widen(self.0, $format)
            }

            /// [`to_f32`](Self::to_f32), which is `const` already: the name `bf16` and `f16`
            /// have, for code written for them.
            #[inline]
            pub const fn to_f32_const(self) -> f32 {
                widen(self.0, $format)
            }

            /// The value as an `f64` (exact).
            #[inline]
            pub fn to_f64(self) -> f64 {
                f64::from(self.to_f32())
            }

            #[doc = concat!("The ", $name, " of these bits.")]
            #[inline]
            pub const fn from_bits(bits: u8) -> $t {
                $t(bits)
            }

            /// The value's 8 bits.
            #[inline]
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// Whether the value is a NaN.
            #[inline]
            pub const fn is_nan(self) -> bool {
                self.to_f32().is_nan()
            }

            /// Whether the value is neither infinite nor a NaN.
            #[inline]
            pub const fn is_finite(self) -> bool {
                self.to_f32().is_finite()
            }

            /// The absolute value (the sign bit cleared).
            #[inline]
            pub const fn abs(self) -> $t {
                $t(self.0 & 0x7f)
            }

            /// The larger value; a NaN loses to a number, as `f32::max`. One of the two,
            /// bit for bit (no conversion back).
            #[inline]
            pub fn max(self, other: $t) -> $t {
                if self.is_nan() || (!other.is_nan() && other.to_f32() > self.to_f32()) {
                    other
                } else {
                    self
                }
            }

            /// The smaller value; a NaN loses to a number, as `f32::min`. One of the two,
            /// bit for bit.
            #[inline]
            pub fn min(self, other: $t) -> $t {
                if self.is_nan() || (!other.is_nan() && other.to_f32() < self.to_f32()) {
                    other
                } else {
                    self
                }
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
                $t(self.0 ^ 0x80)
            }
        }

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
}

float8! {
    e4m3, "E4M3 value", E4M3, cvt_e4m3x2, "cvt.rn.satfinite.e4m3x2.f32";
    consts:
        ZERO = 0x00, "0.0";
        ONE = 0x38, "1.0";
        NAN = 0x7f, "The canonical NaN (E4M3's only NaN but for its negative, `0xff`).";
        MAX = 0x7e, "The largest finite value, 448.";
        MIN = 0xfe, "The smallest finite value, −448.";
        MIN_POSITIVE = 0x08, "The smallest positive normal value, 2^-6.";
        MIN_POSITIVE_SUBNORMAL = 0x01, "The smallest positive value, 2^-9.";
        EPSILON = 0x20, "The gap between 1.0 and the next value, 2^-3.";
}

float8! {
    e5m2, "E5M2 value", E5M2, cvt_e5m2x2, "cvt.rn.satfinite.e5m2x2.f32";
    consts:
        ZERO = 0x00, "0.0";
        ONE = 0x3c, "1.0";
        INFINITY = 0x7c, "+∞ (no conversion from `f32` gives it: they saturate).";
        NEG_INFINITY = 0xfc, "−∞ (no conversion from `f32` gives it: they saturate).";
        NAN = 0x7f, "The canonical NaN.";
        MAX = 0x7b, "The largest finite value, 57344.";
        MIN = 0xfb, "The smallest finite value, −57344.";
        MIN_POSITIVE = 0x04, "The smallest positive normal value, 2^-14.";
        MIN_POSITIVE_SUBNORMAL = 0x01, "The smallest positive value, 2^-16.";
        EPSILON = 0x34, "The gap between 1.0 and the next value, 2^-2.";
}

// `MmaTiles<e4m3, ..>` stores accumulators rounded (and saturated) as `from_f32` does.
impl crate::outputs::FromAccumulator for e4m3 {
    #[inline]
    fn from_accumulator(value: f32) -> e4m3 {
        e4m3::from_f32(value)
    }
}

impl crate::outputs::FromAccumulator for e5m2 {
    #[inline]
    fn from_accumulator(value: f32) -> e5m2 {
        e5m2::from_f32(value)
    }
}

// SAFETY: each is a `#[repr(transparent)]` `u8`: plain data the GPU reads as its 8 bits, and
// all-zero bits are 0.0.
#[cfg(feature = "host")]
unsafe impl cudarc::driver::DeviceRepr for e4m3 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::DeviceRepr for e5m2 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::ValidAsZeroBits for e4m3 {}
#[cfg(feature = "host")]
unsafe impl cudarc::driver::ValidAsZeroBits for e5m2 {}

#[cfg(test)]
mod tests;
