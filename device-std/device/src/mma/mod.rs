//! Tensor cores, warp by warp: typed fragments and `mma.sync` (PTX's warp-level matrix
//! multiply-accumulate), safe.
//!
//! A warp multiplies a 16 × 16 tile of A by a 16 × 8 tile of B into a 16 × 8 tile of `f32`
//! accumulators (`m16n8k16`), each lane holding its share of each tile in registers: a
//! [`FragA`] (8 elements), a [`FragB`] (4) and a [`FragC`] (4 `f32`), laid out as the PTX ISA
//! draws them ("Matrix Fragments for mma.m16n8k16"). Element types are [`bf16`](crate::bf16)
//! and [`f16`](crate::f16) ([`MmaInput`]). The fragments' types say which operand each is, so a
//! B fragment cannot be passed as A, nor a `bf16` fragment with an `f16` one.
//!
//! ```ignore
//! let mut acc = FragC::zero();
//! for k in (0..K).step_by(16) {
//!     let a = FragA::from_fn(|r, c| a_tile(r, k + c));    // this lane's 8 elements of A
//!     let b = FragB::from_fn(|kk, n| b_tile(k + kk, n));   // and 4 of B
//!     acc = mma(&a, &b, acc);                              // mma.sync ... HMMA
//! }
//! acc.for_each(|(r, c), v| out(r, c, v));
//! ```
//!
//! What keeps it sound (docs/safety/synchronisation.md, "Tensor-core operations are warp
//! collectives of whole warps"; docs/tensor-cores.md):
//! - `mma.sync` and `ldmatrix` are warp collectives: every lane of the warp executes each
//!   together. The backend proves each call warp-uniform, as for the shuffles (a call under a
//!   condition on the lane, after some lanes returned, or in a loop whose trip count differs
//!   between lanes is a compile-time error), and every inline-PTX call is `convergent` in LLVM,
//!   so no optimisation moves one under such a condition.
//! - A warp must have all 32 lanes: a block whose thread count is not a multiple of 32 has a
//!   partial last warp, and each collective here panics there (a kernel failure on the GPU,
//!   naming the call) instead of running with lanes missing.
//! - Fragments hold values only: a lane builds its own ([`FragA::from_fn`], element access by
//!   `(row, col)`), and loads from shared memory ([`FragA::load`]) read a tile in its read phase
//!   ([`SharedRead`](crate::shared::SharedRead)), where nothing writes, at positions checked in
//!   bounds.
//!
//! On the CPU (plain calls and the emulator) `mma` gathers the warp's fragments and computes
//! each accumulator as `c + Σ a·b` with the sixteen products (exact in `f64`) summed in `f64`
//! and rounded to `f32` once. The tensor cores add in an order and precision of their own, so
//! the GPU's results may differ from the CPU's in the last bits of `f32` (docs/tensor-cores.md);
//! products and sums of small integers agree exactly.

use core::marker::PhantomData;

use crate::{bf16, f16, thread};

/// An `mma.sync` of four 32-bit A registers, two B registers and four `f32` accumulators (the
/// `m16n8k16` 16-bit shapes and `m16n8k8` `tf32`), as inline PTX whose body is the CPU's: the
/// closure-like tail computes the lane's result from `a: [u32; 4]`, `b: [u32; 2]`,
/// `c: [f32; 4]`.
macro_rules! mma_instruction {
    ($($name:ident: $template:literal, |$a:ident, $b:ident, $c:ident| $cpu:expr;)*) => {$(
        #[oxide_gpu::ptx(template = $template, constraints = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f")]
        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            a0: u32,
            a1: u32,
            a2: u32,
            a3: u32,
            b0: u32,
            b1: u32,
            c0: f32,
            c1: f32,
            c2: f32,
            c3: f32,
        ) -> [f32; 4] {
            let ($a, $b, $c) = ([a0, a1, a2, a3], [b0, b1], [c0, c1, c2, c3]);
            $cpu
        }
    )*};
}

/// The methods of a lane's share of a 16 × 8 accumulator tile of `$value`s (the `m16n8k16`
/// layout, which the `m16n8k8` and `m16n8k32` shapes share): `$name { values: [$value; 4] }`.
macro_rules! accumulator_tile {
    ($name:ident, $value:ty, $zero:expr) => {
        impl $name {
            /// The accumulators of `values`, in the lane's order.
            #[inline]
            fn from_values(values: [$value; 4]) -> Self {
                $name { values }
            }

            /// Accumulators of zero.
            #[inline]
            pub fn zero() -> Self {
                $name { values: [$zero; 4] }
            }

            /// The lane's 4 accumulators, each `value(row, col)` at its position in the 16 × 8
            /// tile.
            #[inline]
            pub fn from_fn(mut value: impl FnMut(usize, usize) -> $value) -> Self {
                let lane = $crate::mma::lane();
                $name {
                    values: core::array::from_fn(|i| {
                        let (r, c) = $crate::mma::layout::c_position(lane, i);
                        value(r, c)
                    }),
                }
            }

            /// The `(row, col)` of the lane's accumulators in the tile, in order.
            #[inline]
            pub fn positions() -> [(usize, usize); 4] {
                let lane = $crate::mma::lane();
                core::array::from_fn(|i| $crate::mma::layout::c_position(lane, i))
            }

            /// The lane's accumulators, at `positions()`.
            #[inline]
            pub fn values(&self) -> [$value; 4] {
                self.values
            }

            /// Calls `f` with each accumulator's `(row, col)` and value.
            #[inline]
            pub fn for_each(&self, mut f: impl FnMut((usize, usize), $value)) {
                for (at, value) in Self::positions().into_iter().zip(self.values) {
                    f(at, value);
                }
            }

            /// Each accumulator replaced by `f((row, col), value)`: a scale, a bias, a mask, an
            /// activation on the tile.
            #[inline]
            pub fn map(self, mut f: impl FnMut((usize, usize), $value) -> $value) -> Self {
                let positions = Self::positions();
                $name {
                    values: core::array::from_fn(|i| f(positions[i], self.values[i])),
                }
            }
        }
    };
}

#[macro_use]
pub mod bytes;
pub mod fp64;
pub mod fp8;
mod host;
pub mod int8;
mod layout;
mod ldmatrix;
mod pipeline;
mod stmatrix;
mod swizzle;
pub mod tf32;

pub use ldmatrix::{ReadTile, TileRef, Vec8};
pub use pipeline::{Filled, Pipeline, Ready, Source, StageTile, StageTiles, Stages, TileSource};
pub use stmatrix::WarpStores;
pub use swizzle::{Swizzled, SwizzledRef, swizzled_chunk};

mod sealed {
    pub trait Sealed {}
}

/// An element type of the `m16n8k16` tensor-core operands: [`bf16`] or [`f16`].
///
/// It has no methods: the raw `mma.sync` (none of [`mma`]'s checks) must not be callable from
/// outside, and a type parameter `E: MmaInput` would offer its supertraits' methods too; the
/// library picks the instruction by [`IS_BF16`](Self::IS_BF16) instead.
pub trait MmaInput: Copy + sealed::Sealed + Send + Sync + 'static {
    /// `bf16` (else `f16`).
    #[doc(hidden)]
    const IS_BF16: bool;
}

impl sealed::Sealed for bf16 {}
impl MmaInput for bf16 {
    const IS_BF16: bool = true;
}
impl sealed::Sealed for f16 {}
impl MmaInput for f16 {
    const IS_BF16: bool = false;
}

/// The 16 bits of an element.
#[inline]
fn bits_of<E: MmaInput>(e: E) -> u16 {
    const { assert!(core::mem::size_of::<E>() == 2) };
    // SAFETY: `bf16` and `f16` are `#[repr(transparent)]` `u16`s.
    unsafe { core::mem::transmute_copy::<E, u16>(&e) }
}

/// The element of 16 bits.
#[inline]
fn from_bits<E: MmaInput>(bits: u16) -> E {
    const { assert!(core::mem::size_of::<E>() == 2) };
    // SAFETY: as above; every 16-bit pattern is a `bf16` and an `f16`.
    unsafe { core::mem::transmute_copy::<u16, E>(&bits) }
}

/// `cvt.rn.bf16x2.f32`: `lo` and `hi` rounded to bf16, `lo` in the low half.
#[oxide_gpu::ptx(template = "cvt.rn.bf16x2.f32 $0, $2, $1;", constraints = "=r,f,f")]
#[inline(never)]
fn cvt_bf16x2(lo: f32, hi: f32) -> u32 {
    u32::from(bf16::from_f32_const(lo).to_bits())
        | u32::from(bf16::from_f32_const(hi).to_bits()) << 16
}

/// `cvt.rn.f16x2.f32`: `lo` and `hi` rounded to f16, `lo` in the low half.
#[oxide_gpu::ptx(template = "cvt.rn.f16x2.f32 $0, $2, $1;", constraints = "=r,f,f")]
#[inline(never)]
fn cvt_f16x2(lo: f32, hi: f32) -> u32 {
    u32::from(f16::from_f32_const(lo).to_bits())
        | u32::from(f16::from_f32_const(hi).to_bits()) << 16
}

/// Two accumulators rounded to `E` and packed as one register, the first in the low half.
#[inline]
fn pack_rounded<E: MmaInput>(lo: f32, hi: f32) -> u32 {
    if E::IS_BF16 {
        cvt_bf16x2(lo, hi)
    } else {
        cvt_f16x2(lo, hi)
    }
}

/// The warp's `mma.sync` for `E`.
#[inline]
fn mma_m16n8k16<E: MmaInput>(
    [a0, a1, a2, a3]: [u32; 4],
    [b0, b1]: [u32; 2],
    [c0, c1, c2, c3]: [f32; 4],
) -> [f32; 4] {
    if E::IS_BF16 {
        mma_bf16(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
    } else {
        mma_f16(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
    }
}

mma_instruction! {
    mma_bf16: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        |a, b, c| host::mma_m16n8k16(a, b, c, |bits| bf16::from_bits(bits).to_f32());
    mma_f16: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        |a, b, c| host::mma_m16n8k16(a, b, c, |bits| f16::from_bits(bits).to_f32());
}

/// Panics unless the block is whole warps: `mma.sync` and `ldmatrix` need all 32 lanes.
#[track_caller]
#[inline]
pub(crate) fn require_whole_warps() {
    let threads = thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z();
    assert!(
        threads.is_multiple_of(crate::warp::WARP_SIZE),
        "a tensor-core operation needs whole warps: launch blocks of a multiple of 32 threads"
    );
}

/// The calling lane.
#[inline]
fn lane() -> u32 {
    crate::warp::lane_id()
}

/// Two 16-bit elements in one register, the first in the low half (PTX's order).
#[inline]
fn pack<E: MmaInput>(lo: E, hi: E) -> u32 {
    u32::from(bits_of(lo)) | u32::from(bits_of(hi)) << 16
}

/// Element `i` of registers holding two 16-bit elements each.
#[inline]
fn unpack<E: MmaInput>(registers: &[u32], i: usize) -> E {
    from_bits((registers[i / 2] >> (16 * (i % 2))) as u16)
}

/// The calling lane's share of a 16 × 16 A operand (row-major): 8 elements, in PTX's
/// `m16n8k16` layout. `Default` is all zeros.
#[derive(Clone, Copy)]
pub struct FragA<E: MmaInput> {
    registers: [u32; 4],
    _element: PhantomData<E>,
}

/// The calling lane's share of a 16 × 8 B operand (`k` rows, `n` columns; PTX's `.col`
/// operand): 4 elements. `Default` is all zeros.
#[derive(Clone, Copy)]
pub struct FragB<E: MmaInput> {
    registers: [u32; 2],
    _element: PhantomData<E>,
}

/// The calling lane's share of a 16 × 8 tile of `f32` accumulators: 4 values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FragC {
    values: [f32; 4],
}

impl<E: MmaInput> Default for FragA<E> {
    #[inline]
    fn default() -> Self {
        FragA {
            registers: [0; 4],
            _element: PhantomData,
        }
    }
}

impl<E: MmaInput> Default for FragB<E> {
    #[inline]
    fn default() -> Self {
        FragB {
            registers: [0; 2],
            _element: PhantomData,
        }
    }
}

impl Default for FragC {
    #[inline]
    fn default() -> Self {
        FragC::zero()
    }
}

impl<E: MmaInput> FragA<E> {
    /// The lane's 8 elements, each `element(row, col)` at its position in the 16 × 16 tile
    /// ([`positions`](Self::positions)).
    #[inline]
    pub fn from_fn(mut element: impl FnMut(usize, usize) -> E) -> Self {
        let lane = lane();
        let mut at = |i| {
            let (r, c) = layout::a_position(lane, i);
            element(r, c)
        };
        FragA {
            registers: [
                pack(at(0), at(1)),
                pack(at(2), at(3)),
                pack(at(4), at(5)),
                pack(at(6), at(7)),
            ],
            _element: PhantomData,
        }
    }

    /// The `(row, col)` of the lane's elements in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 8] {
        let lane = lane();
        core::array::from_fn(|i| layout::a_position(lane, i))
    }

    /// The lane's element `i` (0..8), at `positions()[i]`.
    #[inline]
    pub fn get(&self, i: usize) -> E {
        unpack(&self.registers, i)
    }
}

impl<E: MmaInput> FragA<E> {
    /// The 16 × 16 A tile made of two 16 × 8 accumulator tiles side by side (`left` its
    /// columns 0..8, `right` 8..16), each value rounded to `E` (`cvt.rn.bf16x2.f32`): an
    /// accumulator's layout is the A operand's, so no lane exchanges anything. Attention's
    /// `P = softmax(S)` feeds `P·V` this way.
    #[inline]
    pub fn from_accumulators(left: &FragC, right: &FragC) -> Self {
        let ([l0, l1, l2, l3], [r0, r1, r2, r3]) = (left.values, right.values);
        FragA {
            registers: [
                pack_rounded::<E>(l0, l1),
                pack_rounded::<E>(l2, l3),
                pack_rounded::<E>(r0, r1),
                pack_rounded::<E>(r2, r3),
            ],
            _element: PhantomData,
        }
    }
}

impl<E: MmaInput> FragB<E> {
    /// The lane's 4 elements, each `element(k, n)` at its position in the 16 × 8 tile
    /// ([`positions`](Self::positions)).
    #[inline]
    pub fn from_fn(mut element: impl FnMut(usize, usize) -> E) -> Self {
        let lane = lane();
        let mut at = |i| {
            let (k, n) = layout::b_position(lane, i);
            element(k, n)
        };
        FragB {
            registers: [pack(at(0), at(1)), pack(at(2), at(3))],
            _element: PhantomData,
        }
    }

    /// The `(k, n)` of the lane's elements in the tile, in order.
    #[inline]
    pub fn positions() -> [(usize, usize); 4] {
        let lane = lane();
        core::array::from_fn(|i| layout::b_position(lane, i))
    }

    /// The lane's element `i` (0..4), at `positions()[i]`.
    #[inline]
    pub fn get(&self, i: usize) -> E {
        unpack(&self.registers, i)
    }
}

accumulator_tile!(FragC, f32, 0.0);

/// `a · b + c` for the warp's tiles, as the fragments' types say: `m16n8k16` for [`FragA`] of
/// `bf16` or `f16` (`mma.sync.aligned.m16n8k16.row.col`, `f32` accumulation), `m16n8k8` for
/// [`tf32::FragA`], `m16n8k32` for [`int8::FragA`] of `i8`/`u8` (`i32` accumulation, wrapping)
/// and [`fp8::FragA`] of `e4m3`/`e5m2`, `m8n8k4` for [`fp64::FragA`]. A warp collective, which every lane of the
/// warp calls together with its fragments.
///
/// # Panics
/// In a block whose thread count is not a multiple of 32 (its last warp lacks lanes).
#[track_caller]
#[inline]
pub fn mma<A: Operands<B>, B>(a: &A, b: &B, c: A::C) -> A::C {
    crate::warp::collective::warp_collective();
    require_whole_warps();
    a.multiply(b, c, private::Token)
}

mod private {
    /// What only this crate can make: the proof that [`Operands::multiply`](super::Operands)
    /// is called from [`mma`](super::mma), after its checks (the raw `mma.sync` must not be
    /// callable from outside).
    pub struct Token;
}

/// An A fragment and a B fragment it multiplies, and their accumulators: one pair per
/// `mma.sync` shape and types ([`FragA`]·[`FragB`] of one 16-bit type, [`tf32::FragA`],
/// [`int8::FragA`] (also [`fp8::FragA`]) with a B of the same byte type or, for `i8`·`u8` and
/// `e4m3`·`e5m2` either way, of the other, [`fp64::FragA`]). Sealed; [`mma`] is its one use.
pub trait Operands<B>: operands_sealed::Sealed {
    /// The accumulators.
    type C;
    /// The warp's `mma.sync`, without [`mma`]'s checks.
    #[doc(hidden)]
    fn multiply(&self, b: &B, c: Self::C, _: private::Token) -> Self::C;
}

mod operands_sealed {
    pub trait Sealed {}
}

impl<E: MmaInput> operands_sealed::Sealed for FragA<E> {}

impl<E: MmaInput> Operands<FragB<E>> for FragA<E> {
    type C = FragC;

    #[inline]
    fn multiply(&self, b: &FragB<E>, c: FragC, _: private::Token) -> FragC {
        FragC {
            values: mma_m16n8k16::<E>(self.registers, b.registers, c.values),
        }
    }
}
