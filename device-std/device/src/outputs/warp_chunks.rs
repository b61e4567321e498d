//! [`WarpChunkRows<T, C>`]: a 2-D output written one row per warp, each lane in chunks of `C`
//! elements (CUDA's "a warp per row, each lane a `float4` of it": lane `l` stores the 16-byte
//! chunks `l, l + 32, ...` of the row).
//!
//! The chunks are those of the buffer, not of the row: chunk `j` is the buffer's elements
//! `j·C .. j·C + C`. A row's whole chunks are the ones inside it, and a buffer is 16-byte
//! aligned (`oxide_contract::SLICE_ALIGN`), so a chunk of 16 bytes is always one vector store,
//! whatever the row's pitch or the rectangle's origin; the elements of the row before its
//! first whole chunk and after its last (fewer than `C` at each end, none when the pitch and the
//! origin's column are multiples of `C`) are written one at a time, through
//! [`WarpChunkRow::for_each_partial`].

use core::marker::PhantomData;

use super::chunks::report_writes;
use super::rows::{Frame, grid_warp, rows_type};
use crate::warp::WARP_SIZE;

rows_type! {
    /// A 2-D output written one row per warp in chunks of `C` elements: warp `w` of the grid
    /// (the blocks in order, then the warps of each block, as [`WarpRows`](super::WarpRows))
    /// owns row `w` of the rectangle. The row's whole chunks (the buffer's `C`-element chunks
    /// inside it, see the module) are its lanes' in turn, lane `l` the `l`-th, `(l + 32)`-th,
    /// ...; each element of the row outside them is lane `col % 32`'s.
    ///
    /// The chunk size is part of the type, so every lane of a launch uses the same one; a lane
    /// never sees another lane's elements, with chunks or without.
    WarpChunkRows, const C
}

impl<T, const C: usize> WarpChunkRows<'_, T, C> {
    /// This warp's row, or `None` when the grid has more warps than the rectangle has rows.
    /// Whole warps get the same answer, so a branch on it is warp-uniform (as
    /// [`WarpRows::row_mut`](super::WarpRows::row_mut)).
    #[inline]
    pub fn row_mut(&mut self) -> Option<WarpChunkRow<'_, T, C>> {
        const { assert!(C > 0, "chunks have at least one element") };
        let row = grid_warp();
        (row < self.rows).then(|| {
            // SAFETY: `row < rows`; column 0 is at most the width, and `left + width <= pitch`,
            // so no step wraps even for an empty row.
            let first = unsafe { self.frame().index((row, 0)) };
            // The row is the buffer's elements `first .. first + width`, and `first + width`
            // is at most the buffer's length (the frame's invariants), so neither bound wraps.
            let (whole_from, whole_to) = (first.div_ceil(C), (first + self.width) / C);
            WarpChunkRow {
                ptr: self.ptr,
                first,
                width: self.width,
                row,
                whole: whole_from..whole_to.max(whole_from),
                _borrow: PhantomData,
            }
        })
    }
}

/// One warp's row of a [`WarpChunkRows`] output, as seen by one lane. Like
/// [`WarpRow`](super::WarpRow) it holds nothing that differs between the lanes of the warp,
/// so the row, and any branch on it, stay warp-uniform.
pub struct WarpChunkRow<'s, T, const C: usize> {
    /// The buffer's first element (chunk `j` starts at `ptr + j·C`).
    ptr: *mut T,
    /// The buffer index of the row's first element.
    first: usize,
    width: usize,
    row: usize,
    /// The buffer's chunks that lie wholly in the row (empty when none does).
    whole: core::ops::Range<usize>,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T, const C: usize> WarpChunkRow<'_, T, C> {
    /// The row's index in the output's rectangle (add the output's `origin().0` for the
    /// buffer's).
    #[inline]
    pub fn row(&self) -> usize {
        self.row
    }

    /// Elements in the row.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// The lane's `k`-th whole chunk, `(col, &mut [T; C])` with `col` the rectangle column of
    /// its first element, if the row has it: the row's `(lane + 32k)`-th whole chunk.
    #[track_caller]
    #[inline]
    pub fn chunk_mut(&mut self, k: usize) -> Option<(usize, &mut [T; C])> {
        let lane = crate::warp::lane_id() as usize;
        let nth = k.checked_mul(WARP_SIZE as usize)?.checked_add(lane)?;
        let chunk = self.whole.start.checked_add(nth)?;
        (chunk < self.whole.end).then(|| self.lend_chunk(chunk))
    }

    /// Calls `f(col, &mut chunk)` for every whole chunk of this lane, in order.
    #[track_caller]
    #[inline]
    pub fn for_each_chunk(&mut self, mut f: impl FnMut(usize, &mut [T; C])) {
        // Checked: near `usize::MAX` (zero-sized elements) a wrapped sum would be a chunk of
        // another lane.
        let Some(mut chunk) = self
            .whole
            .start
            .checked_add(crate::warp::lane_id() as usize)
        else {
            return;
        };
        while chunk < self.whole.end {
            let (col, values) = self.lend_chunk(chunk);
            f(col, values);
            // `whole.end <= usize::MAX / C`, so a chunk below it plus 32 cannot wrap for
            // `C >= 2`; checked for `C = 1`.
            let Some(next) = chunk.checked_add(WARP_SIZE as usize) else {
                break;
            };
            chunk = next;
        }
    }

    /// Calls `f(col, &mut element)` for every element of this lane outside the row's whole
    /// chunks (those before the first and after the last; all of the row's when it holds no
    /// whole chunk): column `col` is lane `col % 32`'s.
    #[track_caller]
    #[inline]
    pub fn for_each_partial(&mut self, mut f: impl FnMut(usize, &mut T)) {
        let (head, tail) = if self.whole.is_empty() {
            (self.width, self.width)
        } else {
            (
                self.whole.start * C - self.first,
                self.whole.end * C - self.first,
            )
        };
        let lane = crate::warp::lane_id() as usize;
        for range in [0..head, tail..self.width] {
            let first = range
                .start
                .checked_add((lane + WARP_SIZE as usize - range.start % 32) % 32);
            let Some(mut col) = first else {
                continue;
            };
            while col < range.end {
                let index = self.first + col;
                report_writes::<T>(self.ptr, index, 1);
                // SAFETY: `col < width`, so the element is in this warp's row, outside its
                // whole chunks, and of this lane alone (`col ≡ lane mod 32`).
                f(col, unsafe { crate::element::element_mut(self.ptr, index) });
                let Some(next) = col.checked_add(WARP_SIZE as usize) else {
                    break;
                };
                col = next;
            }
        }
    }

    /// The buffer's chunk `chunk`, which lies in the row, as `(col, &mut [T; C])`.
    #[track_caller]
    #[inline]
    fn lend_chunk(&mut self, chunk: usize) -> (usize, &mut [T; C]) {
        // `chunk < whole.end <= (first + width) / C`: the product and the column do not wrap.
        let index = chunk * C;
        report_writes::<T>(self.ptr, index, C);
        // SAFETY: the chunk lies in the row (`whole` holds the row's whole chunks), which is in
        // the buffer and this warp's alone; of the warp's lanes, only this one is given it
        // (the `(lane + 32k)`-th whole chunk), and `&mut self` lends it once at a time.
        (index - self.first, unsafe {
            crate::element::element_mut(self.ptr.add(index).cast::<[T; C]>(), 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::each_thread;
    use crate::outputs::rows::tests::{Rect, check, write};

    /// Rectangles whose rows start at every residue modulo 4 (pitch 70, origin column 3), rows
    /// narrower than a chunk and a row with no whole chunk, and an aligned whole buffer.
    fn rects() -> [Rect; 4] {
        [
            Rect::whole(12 * 256, 256, 256),
            Rect {
                pitch: 70,
                rows: 9,
                width: 61,
                origin: (1, 3),
            },
            Rect {
                pitch: 70,
                rows: 10,
                width: 3,
                origin: (0, 1),
            },
            Rect {
                pitch: 5,
                rows: 12,
                width: 2,
                origin: (0, 3),
            },
        ]
    }

    #[test]
    fn lanes_own_whole_chunks_in_turn_and_partial_elements_by_column() {
        for rect in rects() {
            let mut data = vec![0u32; 12 * 256];
            let mut chunks = 0;
            // 3 blocks of 4 warps (one of 4 lanes): 12 warps for up to 12 rows.
            each_thread([3, 1, 1], [100, 1, 1], || {
                // SAFETY: the threads run one after another; the rectangle is in the buffer.
                let (ptr, len, width, pitch, rows) = rect.parts(&mut data);
                let mut out = unsafe {
                    WarpChunkRows::<u32, 4>::from_raw_parts(
                        ptr,
                        len,
                        width,
                        pitch,
                        rows,
                        rect.origin,
                    )
                };
                let Some(mut row) = out.row_mut() else {
                    return;
                };
                let r = row.row();
                row.for_each_chunk(|col, values| {
                    chunks += 1;
                    for (i, cell) in values.iter_mut().enumerate() {
                        write(cell, (r, col + i));
                    }
                });
                row.for_each_partial(|col, cell| write(cell, (r, col)));
                let lane = crate::warp::lane_id() as usize;
                let first = row.chunk_mut(0).map(|(col, _)| col);
                let expected = (rect.origin.0 + r) * rect.pitch + rect.origin.1;
                let expected = (expected.div_ceil(4) + lane) * 4 - expected;
                assert_eq!(first, (expected + 4 <= rect.width).then_some(expected));
            });
            // Every row's last warp of each block has lanes 0..4 only: the elements of the
            // other lanes (their chunks and their partial columns) stay 0.
            check(&data, rect, |(row, col)| {
                if row % 4 != 3 {
                    return true;
                }
                let start = (rect.origin.0 + row) * rect.pitch + rect.origin.1;
                let (from, to) = (start.div_ceil(4), (start + rect.width) / 4);
                let index = start + col;
                if from < to && (from * 4..to * 4).contains(&index) {
                    (index / 4 - from) % 32 < 4
                } else {
                    col % 32 < 4
                }
            });
            assert!(rect.width < 4 || chunks > 0, "{rect:?}");
        }
    }

    /// A chunk is `C` elements of the buffer at an index that is a multiple of `C`.
    #[test]
    fn whole_chunks_start_at_multiples_of_the_chunk_size() {
        let mut data = vec![0u32; 40 * 37];
        each_thread([1, 1, 1], [64, 1, 1], || {
            // SAFETY: as above; 40 rows of 37.
            let base = data.as_mut_ptr();
            let mut out = unsafe {
                WarpChunkRows::<u32, 4>::from_raw_parts(base, 40 * 37, 30, 37, 40, (0, 5))
            };
            let mut row = out.row_mut().unwrap();
            row.for_each_chunk(|_, values| {
                let index = (values.as_ptr() as usize - base as usize) / 4;
                assert_eq!(index % 4, 0);
            });
        });
    }
}
