//! Tensor cores on 8-bit integers: `mma.sync.m16n8k32` with `i8` or `u8` operands and `i32`
//! accumulators (the `IMMA` of sm_80 and sm_90).
//!
//! A warp multiplies a 16 × 32 A tile by a 32 × 8 B tile into 16 × 8 `i32` accumulators: each
//! lane holds 16 elements of A, 8 of B and 4 accumulators ([`FragA`], [`FragB`], [`FragC`]),
//! laid out as the PTX ISA draws them ("Matrix Fragments for mma.m16n8k32", `.s8`/`.u8`; a
//! lane's `group` is `lane / 4`, its `t` is `lane % 4`): A's element `i` at row
//! `group + 8 · ((i / 4) % 2)`, column `4t + i % 4 + 16 · (i / 8)`; B's element `i` at
//! `k = 4t + i % 4 + 16 · (i / 4)`, `n = group`; the accumulators where the `m16n8k16` ones are.
//! A and B have the same element type ([`IntInput`]: `i8` or `u8`).
//!
//! ```ignore
//! let a = int8::FragA::<i8>::from_fn(|r, c| a_tile(r, k + c));
//! let b = int8::FragB::<i8>::from_fn(|kk, n| b_tile(k + kk, n));
//! acc = mma(&a, &b, acc);                            // mma.sync.m16n8k32 ... s32.s8.s8.s32
//! ```
//!
//! Overflow: the 32 products of a dot product and their sum always fit an `i32` (at most
//! 32 · 255² in magnitude); adding the accumulator wraps, modulo 2³², as `i32::wrapping_add`
//! does, on the GPU (the instruction without `.satfinite`) and the CPU alike, in release and
//! debug builds. Integer results are exact, so the GPU and the CPU agree bit for bit.

use super::{Operands, host, lane, layout, operands_sealed, private};

mod sealed {
    pub trait Sealed {}
}

/// An element type of the `m16n8k32` integer operands: `i8` or `u8`.
///
/// Like [`MmaInput`](super::MmaInput), it has no methods; the library picks the instruction by
/// [`SIGNED`](Self::SIGNED).
pub trait IntInput: Copy + sealed::Sealed + Send + Sync + 'static {
    /// `i8` (else `u8`).
    #[doc(hidden)]
    const SIGNED: bool;
}

impl sealed::Sealed for i8 {}
impl IntInput for i8 {
    const SIGNED: bool = true;
}
impl sealed::Sealed for u8 {}
impl IntInput for u8 {
    const SIGNED: bool = false;
}

/// The byte of an element.
#[inline]
fn byte_of<E: IntInput>(e: E) -> u8 {
    const { assert!(core::mem::size_of::<E>() == 1) };
    // SAFETY: `i8` and `u8` are one byte, and every byte is both.
    unsafe { core::mem::transmute_copy::<E, u8>(&e) }
}

/// The element of a byte.
#[inline]
fn from_byte<E: IntInput>(byte: u8) -> E {
    const { assert!(core::mem::size_of::<E>() == 1) };
    // SAFETY: as above.
    unsafe { core::mem::transmute_copy::<u8, E>(&byte) }
}

/// Four elements in one register, the first in the low byte (PTX's order).
#[inline]
fn pack4<E: IntInput>(elements: [E; 4]) -> u32 {
    u32::from_le_bytes(elements.map(byte_of))
}

/// Element `i` of registers holding four elements each.
#[inline]
fn unpack<E: IntInput>(registers: &[u32], i: usize) -> E {
    from_byte(registers[i / 4].to_le_bytes()[i % 4])
}

/// The calling lane's share of a 16 × 32 A operand (row-major): 16 elements. `Default` is all
/// zeros.
#[derive(Clone, Copy)]
pub struct FragA<E: IntInput> {
    registers: [u32; 4],
    _element: core::marker::PhantomData<E>,
}

/// The calling lane's share of a 32 × 8 B operand (`k` rows, `n` columns): 8 elements.
/// `Default` is all zeros.
#[derive(Clone, Copy)]
pub struct FragB<E: IntInput> {
    registers: [u32; 2],
    _element: core::marker::PhantomData<E>,
}

/// The calling lane's share of a 16 × 8 tile of `i32` accumulators: 4 values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragC {
    values: [i32; 4],
}

impl<E: IntInput> Default for FragA<E> {
    #[inline]
    fn default() -> Self {
        FragA {
            registers: [0; 4],
            _element: core::marker::PhantomData,
        }
    }
}

impl<E: IntInput> Default for FragB<E> {
    #[inline]
    fn default() -> Self {
        FragB {
            registers: [0; 2],
            _element: core::marker::PhantomData,
        }
    }
}

/// `(row, col)` of element `i` (0..16) of lane `lane`'s A fragment.
#[inline]
pub(super) const fn a_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, t) = ((lane / 4) as usize, (lane % 4) as usize);
    (group + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8))
}

/// `(k, n)` of element `i` (0..8) of lane `lane`'s B fragment.
#[inline]
pub(super) const fn b_position(lane: u32, i: usize) -> (usize, usize) {
    let (group, t) = ((lane / 4) as usize, (lane % 4) as usize);
    (4 * t + i % 4 + 16 * (i / 4), group)
}

impl<E: IntInput> FragA<E> {
    /// The lane's 16 elements, each `element(row, col)` at its position in the 16 × 32 tile
    /// ([`positions`](Self::positions)).
    #[inline]
    pub fn from_fn(mut element: impl FnMut(usize, usize) -> E) -> Self {
        let lane = lane();
        FragA {
            registers: core::array::from_fn(|register| {
                pack4(core::array::from_fn(|j| {
                    let (r, c) = a_position(lane, 4 * register + j);
                    element(r, c)
                }))
            }),
            _element: core::marker::PhantomData,
        }
    }

    /// The `(row, col)` of the lane's elements in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 16] {
        let lane = lane();
        core::array::from_fn(|i| a_position(lane, i))
    }

    /// The lane's element `i` (0..16), at `positions()[i]`.
    ///
    /// # Panics
    /// When `i` is 16 or more.
    #[track_caller]
    #[inline]
    pub fn get(&self, i: usize) -> E {
        unpack(&self.registers, i)
    }
}

impl<E: IntInput> FragB<E> {
    /// The lane's 8 elements, each `element(k, n)` at its position in the 32 × 8 tile
    /// ([`positions`](Self::positions)).
    #[inline]
    pub fn from_fn(mut element: impl FnMut(usize, usize) -> E) -> Self {
        let lane = lane();
        FragB {
            registers: core::array::from_fn(|register| {
                pack4(core::array::from_fn(|j| {
                    let (k, n) = b_position(lane, 4 * register + j);
                    element(k, n)
                }))
            }),
            _element: core::marker::PhantomData,
        }
    }

    /// The `(k, n)` of the lane's elements in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 8] {
        let lane = lane();
        core::array::from_fn(|i| b_position(lane, i))
    }

    /// The lane's element `i` (0..8), at `positions()[i]`.
    ///
    /// # Panics
    /// When `i` is 8 or more.
    #[track_caller]
    #[inline]
    pub fn get(&self, i: usize) -> E {
        unpack(&self.registers, i)
    }
}

impl FragC {
    /// Accumulators of 0.
    #[inline]
    pub fn zero() -> Self {
        FragC { values: [0; 4] }
    }

    /// The lane's 4 accumulators, each `value(row, col)` at its position in the 16 × 8 tile.
    #[inline]
    pub fn from_fn(mut value: impl FnMut(usize, usize) -> i32) -> Self {
        let lane = lane();
        FragC {
            values: core::array::from_fn(|i| {
                let (r, c) = layout::c_position(lane, i);
                value(r, c)
            }),
        }
    }

    /// The `(row, col)` of the lane's accumulators in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 4] {
        let lane = lane();
        core::array::from_fn(|i| layout::c_position(lane, i))
    }

    /// The lane's accumulators, at `positions()`.
    #[inline]
    pub fn values(&self) -> [i32; 4] {
        self.values
    }

    /// Each accumulator replaced by `f((row, col), value)`.
    #[inline]
    pub fn map(self, mut f: impl FnMut((usize, usize), i32) -> i32) -> Self {
        let positions = Self::positions();
        FragC {
            values: core::array::from_fn(|i| f(positions[i], self.values[i])),
        }
    }
}

/// An `mma.sync.m16n8k32` of four A registers, two B registers and four `i32` accumulators,
/// as inline PTX whose body is the CPU's.
macro_rules! int_mma_instruction {
    ($($name:ident: $template:literal, signed = $signed:literal;)*) => {$(
        #[oxide_gpu::ptx(template = $template, constraints = "=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r")]
        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            a0: u32,
            a1: u32,
            a2: u32,
            a3: u32,
            b0: u32,
            b1: u32,
            c0: i32,
            c1: i32,
            c2: i32,
            c3: i32,
        ) -> [i32; 4] {
            host::mma_m16n8k32_int([a0, a1, a2, a3], [b0, b1], [c0, c1, c2, c3], $signed)
        }
    )*};
}

int_mma_instruction! {
    mma_s8: "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = true;
    mma_u8: "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = false;
}

impl<E: IntInput> operands_sealed::Sealed for FragA<E> {}

impl<E: IntInput> Operands for FragA<E> {
    type B = FragB<E>;
    type C = FragC;

    #[inline]
    fn multiply(&self, b: &FragB<E>, c: FragC, _: private::Token) -> FragC {
        let ([a0, a1, a2, a3], [b0, b1]) = (self.registers, b.registers);
        let [c0, c1, c2, c3] = c.values;
        FragC {
            values: if E::SIGNED {
                mma_s8(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
            } else {
                mma_u8(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout puts the warp's 32 lanes' elements on every position of its tile once, and
    /// lane 5 (group 1, t 1) holds what the PTX ISA's figures show.
    #[test]
    fn the_layouts_cover_their_tiles_as_the_isa_draws_them() {
        let (mut a, mut b) = ([[0u8; 32]; 16], [[0u8; 8]; 32]);
        for lane in 0..32 {
            for i in 0..16 {
                let (r, c) = a_position(lane, i);
                a[r][c] += 1;
            }
            for i in 0..8 {
                let (k, n) = b_position(lane, i);
                b[k][n] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&n| n == 1));
        assert!(b.iter().flatten().all(|&n| n == 1));
        assert_eq!(
            [0, 3, 4, 8, 12, 15].map(|i| a_position(5, i)),
            [(1, 4), (1, 7), (9, 4), (1, 20), (9, 20), (9, 23)]
        );
        assert_eq!(
            [0, 3, 4, 7].map(|i| b_position(5, i)),
            [(4, 1), (7, 1), (20, 1), (23, 1)]
        );
    }

    /// Elements pack four to a register, the first in the low byte, and unpack as they were.
    #[test]
    fn elements_pack_low_byte_first() {
        let register = pack4::<i8>([-1, 2, -128, 127]);
        assert_eq!(register, 0x7f80_02ff);
        let registers = [register, pack4::<i8>([5, 6, 7, 8])];
        assert_eq!(unpack::<i8>(&registers, 2), -128);
        assert_eq!(unpack::<i8>(&registers, 7), 8);
        assert_eq!(unpack::<u8>(&registers, 0), 255);
    }
}
