//! Tensor cores on `f32` data: `mma.sync.m16n8k8` with `tf32` operands and `f32` accumulators.
//!
//! `tf32` is a rounding of `f32`, not a type of its own: the tensor cores read an `f32`'s sign,
//! its 8 exponent bits and the top 10 of its 23 mantissa bits. A fragment's constructor rounds
//! each value there (as `cvt.rna.tf32.f32` does: to nearest, ties away from zero, as CUTLASS
//! rounds its `tf32` operands; in integer arithmetic, the same on the GPU and the CPU), so a warp multiplies a 16 × 8 A tile by an 8 × 8 B tile into the same
//! 16 × 8 accumulators ([`FragC`]) that the 16-bit shapes use, with `f32` data in and out.
//!
//! ```ignore
//! let a = tf32::FragA::from_fn(|r, c| a_tile(r, k + c)); // rounded to tf32
//! let b = tf32::FragB::from_fn(|kk, n| b_tile(k + kk, n));
//! acc = mma(&a, &b, acc);                                 // mma.sync.m16n8k8 ... tf32
//! ```
//!
//! Layouts (the PTX ISA's "Matrix Fragments for mma.m16n8k8", `.tf32`; a lane's `group` is
//! `lane / 4`, its `t` is `lane % 4`): A's registers hold `(g, t)`, `(g + 8, t)`, `(g, t + 4)`,
//! `(g + 8, t + 4)`; B's `(k = t, n = g)` and `(t + 4, g)`; the accumulators are the
//! `m16n8k16` ones. On the CPU each accumulator is `c + Σ a·b` with the eight products of the
//! rounded operands (exact in `f64`) summed in `f64` and rounded to `f32` once.

use super::{FragC, Operands, host, lane, operands_sealed, private};

/// The calling lane's share of a 16 × 8 A operand (row-major) in `tf32`: 4 values.
/// `Default` is all zeros.
#[derive(Clone, Copy, Default)]
pub struct FragA {
    registers: [u32; 4],
}

/// The calling lane's share of an 8 × 8 B operand (`k` rows, `n` columns) in `tf32`: 2
/// values. `Default` is all zeros.
#[derive(Clone, Copy, Default)]
pub struct FragB {
    registers: [u32; 2],
}

/// `(row, col)` of element `i` (0..4) of lane `lane`'s A fragment.
#[inline]
pub(super) const fn a_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, t) = ((lane / 4) as usize, (lane % 4) as usize);
    (group + 8 * (i % 2), t + 4 * (i / 2))
}

/// `(k, n)` of element `i` (0..2) of lane `lane`'s B fragment.
#[inline]
pub(super) const fn b_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, t) = ((lane / 4) as usize, (lane % 4) as usize);
    (t + 4 * i, group)
}

/// `x` rounded to `tf32`: to the nearest value with 10 mantissa bits, ties away from zero (PTX's
/// `cvt.rna.tf32.f32` for every number), as the bits of an `f32` whose low 13 mantissa bits are
/// zero. Infinities stay; a NaN stays a NaN, quiet, its payload's top 10 bits kept.
///
/// Plain Rust rather than the `cvt` instruction, so that the GPU and the CPU run the same
/// integer arithmetic: a review found a report that the instruction is that same add and mask
/// on the GPU with no test for NaN (a NaN would come out as zero or infinity), which the
/// emulator would not do. The rounding is checked against an f64 reference for all 2^32
/// inputs (the review's exhaustive run; the unit tests below keep the cases).
#[inline]
fn round_to_tf32(x: f32) -> u32 {
    round_to_tf32_bits(x.to_bits())
}

/// `round_to_tf32` on an `f32`'s bits.
const fn round_to_tf32_bits(bits: u32) -> u32 {
    const DROPPED: u32 = (1 << 13) - 1;
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        // A NaN: kept quiet and a NaN whatever the rounding would do to its payload.
        return (bits | 0x0040_0000) & !DROPPED;
    }
    // Half of the dropped part's weight, added to the magnitude: ties go away from zero, and a
    // carry into the exponent is the right rounding (up to infinity past the largest).
    (bits + (1 << 12)) & !DROPPED
}

impl FragA {
    /// The lane's 4 values, each `value(row, col)` at its position in the 16 × 8 tile
    /// ([`positions`](Self::positions)), rounded to `tf32`.
    #[inline]
    pub fn from_fn(mut value: impl FnMut(usize, usize) -> f32) -> Self {
        let lane = lane();
        FragA {
            registers: core::array::from_fn(|i| {
                let (r, c) = a_position(lane, i);
                round_to_tf32(value(r, c))
            }),
        }
    }

    /// The `(row, col)` of the lane's values in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 4] {
        let lane = lane();
        core::array::from_fn(|i| a_position(lane, i))
    }

    /// The lane's value `i` (0..4), at `positions()[i]`, as the rounded `f32`.
    ///
    /// # Panics
    /// When `i` is 4 or more.
    #[track_caller]
    #[inline]
    pub fn get(&self, i: usize) -> f32 {
        f32::from_bits(self.registers[i])
    }
}

impl FragB {
    /// The lane's 2 values, each `value(k, n)` at its position in the 8 × 8 tile
    /// ([`positions`](Self::positions)), rounded to `tf32`.
    #[inline]
    pub fn from_fn(mut value: impl FnMut(usize, usize) -> f32) -> Self {
        let lane = lane();
        FragB {
            registers: core::array::from_fn(|i| {
                let (k, n) = b_position(lane, i);
                round_to_tf32(value(k, n))
            }),
        }
    }

    /// The `(k, n)` of the lane's values in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 2] {
        let lane = lane();
        core::array::from_fn(|i| b_position(lane, i))
    }

    /// The lane's value `i` (0..2), at `positions()[i]`, as the rounded `f32`.
    ///
    /// # Panics
    /// When `i` is 2 or more.
    #[track_caller]
    #[inline]
    pub fn get(&self, i: usize) -> f32 {
        f32::from_bits(self.registers[i])
    }
}

mma_instruction! {
    mma_tf32: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        |a, b, c| mma_on_cpu(a, b, c);
}

impl operands_sealed::Sealed for FragA {}

impl Operands<FragB> for FragA {
    type C = FragC;

    #[inline]
    fn multiply(&self, b: &FragB, c: FragC, _: private::Token) -> FragC {
        let ([a0, a1, a2, a3], [b0, b1]) = (self.registers, b.registers);
        let [c0, c1, c2, c3] = c.values;
        FragC {
            values: mma_tf32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3),
        }
    }
}

/// `mma.sync.m16n8k8` with `tf32` operands (the `f32` bits of rounded values) and `f32`
/// accumulators: the calling lane's `c + a·b`, each sum of eight exact products taken in `f64`
/// (in `k` order) and rounded to `f32` once.
fn mma_on_cpu(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    let a_low = host::exchange(u64::from(a[0]) | u64::from(a[1]) << 32);
    let a_high = host::exchange(u64::from(a[2]) | u64::from(a[3]) << 32);
    let b_all = host::exchange(u64::from(b[0]) | u64::from(b[1]) << 32);
    let mut a_tile = [[0f64; 8]; 16];
    let mut b_tile = [[0f64; 8]; 8];
    let value = |bits: u32| f64::from(f32::from_bits(bits));
    for lane in 0..crate::host_context::WARP_SIZE {
        let [r0, r1] = host::registers(&a_low, lane);
        let [r2, r3] = host::registers(&a_high, lane);
        for (i, bits) in [r0, r1, r2, r3].into_iter().enumerate() {
            let (row, col) = a_position(lane, i);
            a_tile[row][col] = value(bits);
        }
        for (i, bits) in host::registers(&b_all, lane).into_iter().enumerate() {
            let (k, n) = b_position(lane, i);
            b_tile[k][n] = value(bits);
        }
    }
    let lane = crate::warp::lane_id();
    core::array::from_fn(|i| {
        let (row, col) = super::layout::c_position(lane, i);
        let products: f64 = (0..8).map(|k| a_tile[row][k] * b_tile[k][col]).sum();
        (f64::from(c[i]) + products) as f32
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout puts the warp's 32 lanes' values on every position of its tile once, and
    /// lane 5 (group 1, t 1) holds what the PTX ISA's figure shows.
    #[test]
    fn the_layouts_cover_their_tiles_as_the_isa_draws_them() {
        let (mut a, mut b) = ([[0u8; 8]; 16], [[0u8; 8]; 8]);
        for lane in 0..32 {
            for i in 0..4 {
                let (r, c) = a_position(lane, i);
                a[r][c] += 1;
            }
            for i in 0..2 {
                let (k, n) = b_position(lane, i);
                b[k][n] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&n| n == 1));
        assert!(b.iter().flatten().all(|&n| n == 1));
        assert_eq!(
            [0, 1, 2, 3].map(|i| a_position(5, i)),
            [(1, 1), (9, 1), (1, 5), (9, 5)]
        );
        assert_eq!([0, 1].map(|i| b_position(5, i)), [(1, 1), (5, 1)]);
    }

    /// Rounding to 10 mantissa bits: exact values stay, the nearest wins, ties go away from
    /// zero, a carry reaches the exponent, infinities stay and NaNs stay NaNs.
    #[test]
    fn rounding_to_tf32_is_to_nearest_ties_away() {
        let round = |x: f32| f32::from_bits(round_to_tf32_bits(x.to_bits()));
        let ulp = 2f32.powi(-10);
        assert_eq!(round(1.0), 1.0);
        assert_eq!(round(-3.5), -3.5);
        assert_eq!(round(1.0 + ulp * 0.49), 1.0);
        assert_eq!(round(1.0 + ulp * 0.51), 1.0 + ulp);
        // Ties: away from zero on both sides.
        assert_eq!(round(1.0 + ulp * 0.5), 1.0 + ulp);
        assert_eq!(round(-(1.0 + ulp * 0.5)), -(1.0 + ulp));
        assert_eq!(round(2.0 - ulp * 0.25), 2.0);
        assert_eq!(round(f32::MAX), f32::INFINITY);
        assert_eq!(round(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert!(round(f32::NAN).is_nan());
        assert!(f32::from_bits(round_to_tf32_bits(0x7f80_0001)).is_nan());
        assert_eq!(round_to_tf32_bits(0x3f80_1fff) & 0x1fff, 0);
    }
}
