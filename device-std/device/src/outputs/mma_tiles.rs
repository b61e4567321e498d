//! [`MmaTiles`]: a 2-D output written by tensor-core accumulators, each element by the lane
//! whose `mma` fragment holds it.

use core::marker::PhantomData;

use super::rows::{Frame, calling_block_tile_origin, rows_type};
use super::tile_order::{GridOrder, TileOrder};
use crate::mma::FragC;

rows_type! {
    /// A 2-D output written one `R × C` tile per block, as [`BlockTiles`](super::BlockTiles)
    /// (`O` maps blocks to tiles), and inside it one `WR × WC` region per warp: warp `w` of the
    /// block owns region `(w / (C / WC), w % (C / WC))`, and in it lane `l` the elements an
    /// `m16n8k16` accumulator fragment gives it: `(r, c)` with `r mod 8 = l / 4` and
    /// `(c mod 8) / 2 = l mod 4`. So a warp stores its accumulators where they are
    /// ([`MmaTile::store`]), with no shuffle and no shared-memory detour. Warps past the
    /// `(R / WR) · (C / WC)` regions own nothing.
    MmaTiles, const R, const C, const WR, const WC, type O: TileOrder = GridOrder
}

/// An element type the accumulators are stored as: `f32` itself, or rounded to `bf16`/`f16`.
pub trait FromAccumulator: Copy {
    /// The accumulator `value` as this type.
    fn from_accumulator(value: f32) -> Self;
}

impl FromAccumulator for f32 {
    #[inline]
    fn from_accumulator(value: f32) -> f32 {
        value
    }
}

impl FromAccumulator for crate::bf16 {
    #[inline]
    fn from_accumulator(value: f32) -> Self {
        crate::bf16::from_f32(value)
    }
}

impl FromAccumulator for crate::f16 {
    #[inline]
    fn from_accumulator(value: f32) -> Self {
        crate::f16::from_f32(value)
    }
}

impl<T, const R: usize, const C: usize, const WR: usize, const WC: usize, O: TileOrder>
    MmaTiles<'_, T, R, C, WR, WC, O>
{
    /// The `(row, col)` of the calling block's `R × C` tile in the output's rectangle under
    /// `O`, or `None` when the block has no tile: where a GEMM's block starts its rows of A and
    /// columns of B. The same in every thread of a block.
    #[inline]
    pub fn block_origin(&self) -> Option<(usize, usize)> {
        calling_block_tile_origin::<O, R, C>(self.rows, self.width)
    }

    /// This warp's region of its block's tile, or `None` when the block has no tile (see
    /// `BlockTiles::tile_mut`) or the warp no region. The same in every lane of a warp.
    #[inline]
    pub fn warp_region(&mut self) -> Option<MmaTile<'_, T, WR, WC>> {
        const {
            assert!(
                WR > 0
                    && WC > 0
                    && R >= WR
                    && C >= WC
                    && R.is_multiple_of(WR)
                    && C.is_multiple_of(WC),
                "a warp's region divides the block's tile"
            );
            assert!(
                WR.is_multiple_of(16) && WC.is_multiple_of(8),
                "a warp's region is whole 16 × 8 accumulator tiles"
            );
        };
        let (top, left) = calling_block_tile_origin::<O, R, C>(self.rows, self.width)?;
        let warp = crate::warp::warp_in_block() as usize;
        let across = C / WC;
        if warp >= (R / WR) * across {
            return None;
        }
        Some(MmaTile {
            ptr: self.ptr,
            frame: self.frame(),
            // Inside the block's tile, so `origin + (WR, WC)` fits (the tile's end did).
            origin: (top + (warp / across) * WR, left + (warp % across) * WC),
            _borrow: PhantomData,
        })
    }
}

/// One warp's `WR × WC` region of an [`MmaTiles`] output, as seen by one lane.
pub struct MmaTile<'s, T, const WR: usize, const WC: usize> {
    ptr: *mut T,
    frame: Frame,
    /// The region's first element in the rectangle; `origin + (WR, WC)` fits in `usize`.
    origin: (usize, usize),
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T: FromAccumulator, const WR: usize, const WC: usize> MmaTile<'_, T, WR, WC> {
    /// The `(row, col)` of the region's first element in the output's rectangle.
    #[inline]
    pub fn origin(&self) -> (usize, usize) {
        self.origin
    }

    /// Stores the accumulators of the 16 × 8 tile `(i, j)` of the region (rows `16i..`,
    /// columns `8j..`): each lane its own four, at their positions; those outside the
    /// rectangle are left out. A tile outside the region (`16i ≥ WR` or `8j ≥ WC`) stores
    /// nothing.
    ///
    /// A lane's four are two pairs of neighbours in a row (columns `c` and `c + 1`, `c` even):
    /// a pair inside the rectangle is one store of both where the buffer's pairs are aligned
    /// (its base, pitch and left edge even in elements, a test of the output alone that the
    /// compiler makes once), as CUDA epilogues store a `__nv_bfloat162` or a `float2`.
    #[track_caller]
    #[inline]
    pub fn store(&mut self, acc: &FragC, i: usize, j: usize) {
        let (Some(r0), Some(c0)) = (i.checked_mul(16), j.checked_mul(8)) else {
            return;
        };
        if r0 >= WR || c0 >= WC {
            return;
        }
        let size = core::mem::size_of::<T>();
        let pairs_aligned = (size == 2 || size == 4)
            && self.ptr.addr().is_multiple_of(2 * size)
            && self.frame.pitch.is_multiple_of(2)
            && self.frame.left.is_multiple_of(2);
        let (positions, values) = (FragC::positions(), acc.values());
        for pair in crate::unroll(0..2) {
            let (r, c) = positions[2 * pair];
            // In the region (`r0 + 16 <= WR`, `c0 + 8 <= WC`), so no sum wraps; `c` is even
            // and its neighbour `c + 1` is the pair's second (the fragment's layout).
            let (row, col) = (self.origin.0 + r0 + r, self.origin.1 + c0 + c);
            let (first, second) = (values[2 * pair], values[2 * pair + 1]);
            if pairs_aligned && row < self.frame.rows && col + 1 < self.frame.width {
                // SAFETY: `(row, col)` and `(row, col + 1)` are in the rectangle (tested).
                let index = unsafe { self.frame.index((row, col)) };
                crate::race::global_write(self.ptr.addr(), index);
                crate::race::global_write(self.ptr.addr(), index + 1);
                let pair = [T::from_accumulator(first), T::from_accumulator(second)];
                // SAFETY: both elements in the rectangle, so in the buffer, and this lane's
                // alone (as `store_one`'s); `index` is even (`top + row` times an even pitch,
                // plus an even left edge and an even `col`), so the pair's address is a
                // multiple of its size from an aligned base.
                unsafe { store_pair(self.ptr.add(index), pair) };
            } else {
                self.store_one((row, col), first);
                self.store_one((row, col + 1), second);
            }
        }
    }

    /// Stores `value` at the rectangle's `(row, col)` if it is inside.
    #[track_caller]
    #[inline]
    fn store_one(&mut self, (row, col): (usize, usize), value: f32) {
        if row < self.frame.rows && col < self.frame.width {
            // SAFETY: in the rectangle (tested).
            let index = unsafe { self.frame.index((row, col)) };
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in the rectangle, so in the buffer; in this block's tile (injective
            // `O`, unwrapped origins) and this warp's region (one per warp of the block), at
            // a position this lane's fragment alone holds (the region's tiles start at
            // multiples of 8 rows and columns, so `(row mod 8, col mod 8)` is the fragment's,
            // which names the lane).
            unsafe { *crate::element::element_mut(self.ptr, index) = T::from_accumulator(value) };
        }
    }
}

/// Two neighbouring elements of 2 bytes, aligned as one 4-byte word.
#[repr(C, align(4))]
struct Pair2<T>([T; 2]);

/// Two neighbouring elements of 4 bytes, aligned as one 8-byte word.
#[repr(C, align(8))]
struct Pair4<T>([T; 2]);

/// Stores two elements of 2 or 4 bytes at `p` as one 4- or 8-byte store.
///
/// # Safety
/// `p` and `p + 1` are elements the caller may write, and `p` is aligned to twice their size.
#[inline]
unsafe fn store_pair<T: Copy>(p: *mut T, pair: [T; 2]) {
    // SAFETY: the caller's promises; each pair type is the two elements alone, aligned to
    // their joint size where that is 4 or 8 bytes.
    unsafe {
        if core::mem::size_of::<T>() == 2 {
            p.cast::<Pair2<T>>().write(Pair2(pair));
        } else {
            p.cast::<Pair4<T>>().write(Pair4(pair));
        }
    }
}
