//! The fragments of the `m16n8k32` shapes, whose operands are bytes: `i8`/`u8`
//! ([`int8`](super::int8), `i32` accumulators) and `e4m3`/`e5m2` ([`fp8`](super::fp8), `f32`
//! accumulators). Both read the same registers the same way (the PTX ISA's "Matrix Fragments
//! for mma.m16n8k32", whose layouts do not depend on the byte's type; a lane's `group` is
//! `lane / 4`, its `t` is `lane % 4`): A's element `i` at row `group + 8 · ((i / 4) % 2)`,
//! column `4t + i % 4 + 16 · (i / 8)`; B's element `i` at `k = 4t + i % 4 + 16 · (i / 4)`,
//! `n = group`. So one [`FragA`] and one [`FragB`] serve them, and the element types pick the
//! instruction and the accumulators ([`ByteProduct`]: the same type, or `i8`·`u8`,
//! `e4m3`·`e5m2` either way).

use super::{Operands, lane, operands_sealed, private};

pub(super) mod sealed {
    pub trait Sealed {}
}

/// An element type of the `m16n8k32` operands: `i8`, `u8` (`i32` accumulators), `e4m3` or
/// `e5m2` (`f32` accumulators). Which A and B types multiply is [`ByteProduct`].
pub trait ByteInput: Copy + sealed::Sealed + Send + Sync + 'static {}

/// A's element type (`Self`) and B's (`B`) of an `m16n8k32` `mma`: the same type, or the
/// integer types mixed (`i8`·`u8`, `u8`·`i8`: `s32` results of the signed and unsigned bytes) or
/// the fp8 types mixed (`e4m3`·`e5m2`, `e5m2`·`e4m3`), as `mma.sync` takes them. Integer and
/// float bytes do not mix (no instruction does).
///
/// Like [`MmaInput`](super::MmaInput), nothing of it is callable from outside: its multiply
/// needs the library's token.
pub trait ByteProduct<B: ByteInput>: ByteInput {
    /// The accumulators: [`int8::FragC`](super::int8::FragC) or [`FragC`](super::FragC).
    type Accumulators;
    /// The warp's `mma.sync` of these registers, without [`mma`](super::mma)'s checks.
    #[doc(hidden)]
    fn multiply(
        a: [u32; 4],
        b: [u32; 2],
        c: Self::Accumulators,
        _: private::Token,
    ) -> Self::Accumulators;
}

/// `ByteInput` for each `$element`.
macro_rules! byte_inputs {
    ($($element:ty),*) => {$(
        impl super::bytes::sealed::Sealed for $element {}
        impl super::bytes::ByteInput for $element {}
    )*};
}

/// `ByteProduct` for each pair `$a · $b`, its multiply the instruction `$instruction` (of the
/// four A registers, two B registers and four accumulators) into `$accumulators` (a struct
/// whose `values` field is the four accumulators).
macro_rules! byte_products {
    ($($a:ty, $b:ty => $instruction:ident, $accumulators:ty;)*) => {$(
        impl super::bytes::ByteProduct<$b> for $a {
            type Accumulators = $accumulators;

            #[inline]
            fn multiply(
                [a0, a1, a2, a3]: [u32; 4],
                [b0, b1]: [u32; 2],
                c: $accumulators,
                _: super::private::Token,
            ) -> $accumulators {
                let [c0, c1, c2, c3] = c.values;
                <$accumulators>::from_values($instruction(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3))
            }
        }
    )*};
}

/// The byte of an element.
#[inline]
fn byte_of<E: ByteInput>(e: E) -> u8 {
    const { assert!(core::mem::size_of::<E>() == 1) };
    // SAFETY: every `ByteInput` is one byte (`i8`, `u8`, or a `#[repr(transparent)]` `u8`),
    // and every byte is each of them.
    unsafe { core::mem::transmute_copy::<E, u8>(&e) }
}

/// The element of a byte.
#[inline]
fn from_byte<E: ByteInput>(byte: u8) -> E {
    const { assert!(core::mem::size_of::<E>() == 1) };
    // SAFETY: as above.
    unsafe { core::mem::transmute_copy::<u8, E>(&byte) }
}

/// Four elements in one register, the first in the low byte (PTX's order).
#[inline]
fn pack4<E: ByteInput>(elements: [E; 4]) -> u32 {
    u32::from_le_bytes(elements.map(byte_of))
}

/// Element `i` of registers holding four elements each.
#[inline]
fn unpack<E: ByteInput>(registers: &[u32], i: usize) -> E {
    from_byte(registers[i / 4].to_le_bytes()[i % 4])
}

/// The calling lane's share of a 16 × 32 A operand (row-major): 16 elements. `Default` is all
/// zero bytes.
#[derive(Clone, Copy)]
pub struct FragA<E: ByteInput> {
    registers: [u32; 4],
    _element: core::marker::PhantomData<E>,
}

/// The calling lane's share of a 32 × 8 B operand (`k` rows, `n` columns): 8 elements.
/// `Default` is all zero bytes.
#[derive(Clone, Copy)]
pub struct FragB<E: ByteInput> {
    registers: [u32; 2],
    _element: core::marker::PhantomData<E>,
}

impl<E: ByteInput> Default for FragA<E> {
    #[inline]
    fn default() -> Self {
        FragA {
            registers: [0; 4],
            _element: core::marker::PhantomData,
        }
    }
}

impl<E: ByteInput> Default for FragB<E> {
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

impl<E: ByteInput> FragA<E> {
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

impl<E: ByteInput> FragB<E> {
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

impl<E: ByteInput> operands_sealed::Sealed for FragA<E> {}

impl<EA: ByteProduct<EB>, EB: ByteInput> Operands<FragB<EB>> for FragA<EA> {
    type C = EA::Accumulators;

    #[inline]
    fn multiply(
        &self,
        b: &FragB<EB>,
        c: EA::Accumulators,
        token: private::Token,
    ) -> EA::Accumulators {
        EA::multiply(self.registers, b.registers, c, token)
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
