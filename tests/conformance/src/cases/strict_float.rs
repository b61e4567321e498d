//! `strict_float` kernels: float results bit for bit those of the CPU where Rust leaves the GPU a
//! choice (docs/math.md): no FMA contraction, `f16` included, and `min`/`max` of `-0.0` and
//! `+0.0` returning what the host returns (the second argument).

use crate::harness::Check::Exact;

/// An `f16` from 16 bits of `x` at `shift`, below 512 in magnitude (exponent at most 23), so
/// that the cases' products stay finite most of the time.
fn half(x: u64, shift: u32) -> f16 {
    f16::from_bits((x >> shift) as u16 & 0xdfff)
}

/// `v`'s bits, every NaN as one: the GPU and the host make NaNs of different payloads.
fn half_bits(v: f16) -> u64 {
    let bits = v.to_bits();
    u64::from(if bits & 0x7fff > 0x7c00 { 0x7e00 } else { bits })
}

/// Zeros of both signs, often, beside a few other values.
const WITH_ZEROS_F32: [f32; 8] = [0.0, -0.0, 0.0, -0.0, 1.5, -2.0, f32::INFINITY, 1e-40];
const WITH_ZEROS_F64: [f64; 8] = [0.0, -0.0, -0.0, 0.0, -1.5, 2.0, f64::NEG_INFINITY, 5e-324];

map_cases! {
    /// `f16` arithmetic: products, sums, a quotient, constants and conversions, each operation
    /// rounded to `f16` as on the CPU (by default `a * b + c` may become `fma.rn.f16`).
    [strict_float] f16_arith_strict(Exact) |x| -> u64 {
        let (a, b, c, d) = (half(x, 0), half(x, 16), half(x, 32), half(x, 48));
        let fused_by_default = a * b + c;
        let two_products = a * d - b * 0.75;
        let quotient = (c - d) / (a + 1.5);
        let through_f32 = ((a as f32) * 0.1 + d as f32) as f16;
        half_bits(fused_by_default)
            | half_bits(two_products) << 16
            | half_bits(quotient) << 32
            | half_bits(through_f32) << 48
    }
    /// `f32::min`/`max` of zeros of both signs in both orders: the second argument, as on the
    /// host (PTX's `min`/`max` order `-0.0` below `+0.0`).
    [strict_float] float_min_max_zeros_f32(Exact) |x| -> u64 {
        let a = WITH_ZEROS_F32[(x & 7) as usize];
        let b = WITH_ZEROS_F32[(x >> 3 & 7) as usize];
        u64::from(a.min(b).to_bits()) << 32 | u64::from(a.max(b).to_bits())
    }
    /// `f64::min`/`max` of zeros of both signs in both orders, as on the host.
    [strict_float] float_min_max_zeros_f64(Exact) |x| -> u64 {
        let a = WITH_ZEROS_F64[(x & 7) as usize];
        let b = WITH_ZEROS_F64[(x >> 3 & 7) as usize];
        a.min(b).to_bits() ^ a.max(b).to_bits().rotate_left(1)
    }
}
