//! Tensor cores in double precision: `mma.sync.m8n8k4` with `f64` operands and accumulators
//! (the `DMMA` of sm_80 and sm_90).
//!
//! A warp multiplies an 8 × 4 A tile by a 4 × 8 B tile into 8 × 8 accumulators: each lane holds
//! one value of A, one of B and two accumulators ([`FragA`], [`FragB`], [`FragC`]), laid out as
//! the PTX ISA draws them ("Matrix Fragments for mma.m8n8k4 with .f64"): A's value at
//! `(lane / 4, lane % 4)`, B's at `(k = lane % 4, n = lane / 4)`, the accumulators at
//! `(lane / 4, 2 · (lane % 4))` and the column after it.
//!
//! ```ignore
//! let a = fp64::FragA::from_fn(|r, c| a_tile(r, k + c));
//! let b = fp64::FragB::from_fn(|kk, n| b_tile(k + kk, n));
//! acc = mma(&a, &b, acc);                                 // mma.sync.m8n8k4 ... f64
//! ```
//!
//! On the CPU each accumulator is `c` plus the four products, added in `k` order with a fused
//! multiply-add each; the GPU's order and rounding inside the instruction are its own, so
//! results of general inputs may differ in the last bits of `f64` (products and sums of small
//! integers agree exactly).

use super::{Operands, host, lane, operands_sealed, private};

/// The calling lane's value of an 8 × 4 A operand (row-major). `Default` is zero.
#[derive(Clone, Copy, Default)]
pub struct FragA {
    value: f64,
}

/// The calling lane's value of a 4 × 8 B operand (`k` rows, `n` columns). `Default` is zero.
#[derive(Clone, Copy, Default)]
pub struct FragB {
    value: f64,
}

/// The calling lane's two accumulators of an 8 × 8 `f64` tile.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FragC {
    values: [f64; 2],
}

/// `(row, col)` of lane `lane`'s A value.
#[inline]
pub(super) const fn a_position(lane: u32) -> (usize, usize) {
    ((lane / 4) as usize, (lane % 4) as usize)
}

/// `(k, n)` of lane `lane`'s B value.
#[inline]
pub(super) const fn b_position(lane: u32) -> (usize, usize) {
    ((lane % 4) as usize, (lane / 4) as usize)
}

/// `(row, col)` of accumulator `i` (0..2) of lane `lane`.
#[inline]
pub(super) const fn c_position(lane: u32, i: usize) -> (usize, usize) {
    ((lane / 4) as usize, 2 * (lane % 4) as usize + i)
}

impl FragA {
    /// The lane's value, `value(row, col)` at its position in the 8 × 4 tile.
    #[inline]
    pub fn from_fn(value: impl FnOnce(usize, usize) -> f64) -> Self {
        let (r, c) = a_position(lane());
        FragA { value: value(r, c) }
    }

    /// The `(row, col)` of the lane's value in the tile.
    #[inline]
    pub fn position() -> (usize, usize) {
        a_position(lane())
    }

    /// The lane's value.
    #[inline]
    pub fn get(&self) -> f64 {
        self.value
    }
}

impl FragB {
    /// The lane's value, `value(k, n)` at its position in the 4 × 8 tile.
    #[inline]
    pub fn from_fn(value: impl FnOnce(usize, usize) -> f64) -> Self {
        let (k, n) = b_position(lane());
        FragB { value: value(k, n) }
    }

    /// The `(k, n)` of the lane's value in the tile.
    #[inline]
    pub fn position() -> (usize, usize) {
        b_position(lane())
    }

    /// The lane's value.
    #[inline]
    pub fn get(&self) -> f64 {
        self.value
    }
}

impl FragC {
    /// Accumulators of 0.0.
    #[inline]
    pub fn zero() -> Self {
        FragC { values: [0.0; 2] }
    }

    /// The lane's 2 accumulators, each `value(row, col)` at its position in the 8 × 8 tile.
    #[inline]
    pub fn from_fn(mut value: impl FnMut(usize, usize) -> f64) -> Self {
        let lane = lane();
        FragC {
            values: core::array::from_fn(|i| {
                let (r, c) = c_position(lane, i);
                value(r, c)
            }),
        }
    }

    /// The `(row, col)` of the lane's accumulators in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 2] {
        let lane = lane();
        core::array::from_fn(|i| c_position(lane, i))
    }

    /// The lane's accumulators, at `positions()`.
    #[inline]
    pub fn values(&self) -> [f64; 2] {
        self.values
    }

    /// Each accumulator replaced by `f((row, col), value)`.
    #[inline]
    pub fn map(self, mut f: impl FnMut((usize, usize), f64) -> f64) -> Self {
        let positions = Self::positions();
        FragC {
            values: core::array::from_fn(|i| f(positions[i], self.values[i])),
        }
    }
}

/// `mma.sync.m8n8k4` with `f64` operands and accumulators, as inline PTX whose body is the
/// CPU's.
#[oxide_gpu::ptx(
    template = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {$0, $1}, {$2}, {$3}, {$4, $5};",
    constraints = "=d,=d,d,d,d,d"
)]
#[inline(never)]
fn mma_f64(a: f64, b: f64, c0: f64, c1: f64) -> [f64; 2] {
    mma_on_cpu(a, b, [c0, c1])
}

impl operands_sealed::Sealed for FragA {}

impl Operands<FragB> for FragA {
    type C = FragC;

    #[inline]
    fn multiply(&self, b: &FragB, c: FragC, _: private::Token) -> FragC {
        let [c0, c1] = c.values;
        FragC {
            values: mma_f64(self.value, b.value, c0, c1),
        }
    }
}

/// `mma.sync.m8n8k4` with `f64` operands and accumulators: the calling lane's `c + a·b`, the
/// four products added to `c` in `k` order, each with a fused multiply-add.
fn mma_on_cpu(a: f64, b: f64, c: [f64; 2]) -> [f64; 2] {
    let (a_all, b_all) = (host::exchange(a.to_bits()), host::exchange(b.to_bits()));
    let mut a_tile = [[0f64; 4]; 8];
    let mut b_tile = [[0f64; 8]; 4];
    for lane in 0..crate::host_context::WARP_SIZE {
        let (row, col) = a_position(lane);
        a_tile[row][col] = f64::from_bits(a_all.get(lane).unwrap_or(0));
        let (k, n) = b_position(lane);
        b_tile[k][n] = f64::from_bits(b_all.get(lane).unwrap_or(0));
    }
    let lane = crate::warp::lane_id();
    core::array::from_fn(|i| {
        let (row, col) = c_position(lane, i);
        (0..4).fold(c[i], |sum, k| a_tile[row][k].mul_add(b_tile[k][col], sum))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout puts the warp's 32 lanes' values on every position of its tile once, and
    /// lane 5 (group 1, thread 1 of it) holds what the PTX ISA's figures show.
    #[test]
    fn the_layouts_cover_their_tiles_as_the_isa_draws_them() {
        let (mut a, mut b, mut c) = ([[0u8; 4]; 8], [[0u8; 8]; 4], [[0u8; 8]; 8]);
        for lane in 0..32 {
            let (r, col) = a_position(lane);
            a[r][col] += 1;
            let (k, n) = b_position(lane);
            b[k][n] += 1;
            for i in 0..2 {
                let (r, col) = c_position(lane, i);
                c[r][col] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&n| n == 1));
        assert!(b.iter().flatten().all(|&n| n == 1));
        assert!(c.iter().flatten().all(|&n| n == 1));
        assert_eq!(a_position(5), (1, 1));
        assert_eq!(b_position(5), (1, 1));
        assert_eq!([c_position(5, 0), c_position(5, 1)], [(1, 2), (1, 3)]);
        assert_eq!(c_position(31, 1), (7, 7));
    }
}
