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
    #[track_caller]
    #[inline]
    pub fn store(&mut self, acc: &FragC, i: usize, j: usize) {
        let (Some(r0), Some(c0)) = (i.checked_mul(16), j.checked_mul(8)) else {
            return;
        };
        if r0 >= WR || c0 >= WC {
            return;
        }
        for ((r, c), value) in FragC::positions().into_iter().zip(acc.values()) {
            // In the region (`r0 + 16 <= WR`, `c0 + 8 <= WC`), so no sum wraps.
            let (row, col) = (self.origin.0 + r0 + r, self.origin.1 + c0 + c);
            if row < self.frame.rows && col < self.frame.width {
                // SAFETY: in the rectangle (tested).
                let index = unsafe { self.frame.index((row, col)) };
                crate::race::global_write(self.ptr.addr(), index);
                // SAFETY: in the rectangle, so in the buffer; in this block's tile (injective
                // `O`, unwrapped origins) and this warp's region (one per warp of the block),
                // at a position this lane's fragment alone holds (`r0` and `c0` are multiples
                // of 8, so `(row mod 8, col mod 8)` is the fragment's, which names the lane).
                unsafe {
                    *crate::element::element_mut(self.ptr, index) = T::from_accumulator(value)
                };
            }
        }
    }
}
