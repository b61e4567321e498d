//! Two-dimensional outputs: a rectangle of `rows` rows and `width` columns in a buffer of
//! `len` elements seen as rows `pitch` elements apart, its first element at `(top, left)` of the
//! buffer, written by threads ([`DisjointRows`]), warps ([`WarpRows`]) or blocks
//! ([`BlockTiles`]). The launch's `oxide::host::Rows` gives the words and checked them: the
//! whole buffer (`Rows::new`, `Rows::with_pitch`: origin `(0, 0)`, every row, the columns up
//! to the width) or a rectangle of it (`Rows::rect`: the interior of a padded grid, a matrix
//! stored from `(1, 1)`).
//!
//! Each type has one ownership rule, computed from the thread's own position registers over
//! the rectangle's coordinates (row 0 is the rectangle's first row); the rule is a partition
//! of the rectangle whatever the grid's shape (threads outside the rule's plane, `z > 0`, own
//! nothing), and no element outside the rectangle (the border of a padded grid, a pitch's
//! padding) is anyone's. No two types can view one buffer in one launch (each kernel parameter
//! borrows its buffer mutably).
//!
//! The pointer is the buffer's own, 16-byte aligned as every slice's; the origin is added to
//! each element's index, so a rectangle may start at any element. None of these types loads or
//! stores more than one element at a time, so nothing here depends on the origin's alignment.

use core::marker::PhantomData;

use super::tile_order::{GridOrder, TileOrder};
use crate::thread;
use crate::warp::WARP_SIZE;

/// Where a 2-D output's rectangle lies in its buffer: rows `pitch` elements apart, the
/// rectangle's `rows × width` elements from `(top, left)`. `(top + rows) · pitch <= len` and
/// `left + width <= pitch` (its outputs' `from_raw_parts` contract), so `index` of a position
/// inside the rectangle cannot overflow and is in the buffer.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) width: usize,
    pub(super) pitch: usize,
    pub(super) rows: usize,
    pub(super) top: usize,
    pub(super) left: usize,
}

impl Frame {
    /// The buffer index of the rectangle's `(row, col)`.
    ///
    /// Its arithmetic is stated not to wrap (`nuw`), so LLVM keeps the element's address an
    /// in-bounds offset of the buffer's pointer when it splits the offset, and folds the null
    /// test of the element's `Option` (without the flags, the split dropped `inbounds` and a
    /// test and a branch per element stayed).
    ///
    /// # Safety
    /// `row < rows` and `col < width`: then no step wraps (the invariants above).
    #[inline]
    pub(super) unsafe fn index(&self, (row, col): (usize, usize)) -> usize {
        // SAFETY: inside the rectangle, every partial result is at most the index of an
        // element of the buffer (the caller's promise and the frame's invariants).
        unsafe {
            self.top
                .unchecked_add(row)
                .unchecked_mul(self.pitch)
                .unchecked_add(self.left)
                .unchecked_add(col)
        }
    }
}

macro_rules! rows_type {
    ($(#[$doc:meta])* $name:ident $(, const $c:ident)* $(, type $o:ident: $bound:path = $default:ty)?) => {
        $(#[$doc])*
        #[repr(C)]
        pub struct $name<'a, T $(, const $c: usize)* $(, $o: $bound = $default)?> {
            ptr: *mut T,
            len: usize,
            // The shape words, in the order of the launch's parameters (docs/contracts.md),
            // each its own field: the backend checks that a slice parameter's fields are the
            // pointer, the length and one pointer-sized word per shape word.
            width: usize,
            pitch: usize,
            rows: usize,
            top: usize,
            left: usize,
            _marker: PhantomData<(&'a mut [T], $(fn() -> $o)?)>,
        }

        crate::param::output_param!($name<'a, T $(, const $c)* $(, type $o: $bound)?>, words 5);

        impl<'a, T $(, const $c: usize)* $(, $o: $bound)?> $name<'a, T $(, $c)* $(, $o)?> {
            /// Wraps the `rows × width` rectangle from `(top, left)` of the `len` elements at
            /// `ptr`, seen as rows `pitch` apart, for `'a`. Kernels never call this: their
            /// arguments are built by the launch. It exists for the host emulator and for
            /// tests.
            ///
            /// # Safety
            /// As [`crate::DisjointSlice::from_raw_parts`] for the `len` elements; `width >= 1`,
            /// `left + width <= pitch` and `(top + rows) · pitch <= len`, each without overflow
            /// (the rectangle is inside the buffer); every thread sees the same values.
            #[inline]
            pub unsafe fn from_raw_parts(
                ptr: *mut T,
                len: usize,
                width: usize,
                pitch: usize,
                rows: usize,
                (top, left): (usize, usize),
            ) -> Self {
                $name { ptr, len, width, pitch, rows, top, left, _marker: PhantomData }
            }

            len_methods!("of the whole buffer");

            /// Elements per row of the output (of its rectangle).
            #[inline]
            pub fn width(&self) -> usize {
                self.width
            }

            /// Elements from the start of one row of the buffer to the start of the next (the
            /// width, unless the rows are padded or the output is a rectangle of them).
            #[inline]
            pub fn pitch(&self) -> usize {
                self.pitch
            }

            /// Number of rows of the output (of its rectangle).
            #[inline]
            pub fn rows(&self) -> usize {
                self.rows
            }

            /// The `(row, col)` in the whole buffer of the output's first element: `(0, 0)`
            /// unless the launch lent a rectangle (`Rows::rect`). The positions the output
            /// gives are the rectangle's; output element `(r, c)` is buffer element
            /// `(top + r, left + c)`, at index `(top + r) · pitch() + left + c`, which is where
            /// a stencil finds its input neighbours in a buffer of the same layout.
            #[inline]
            pub fn origin(&self) -> (usize, usize) {
                (self.top, self.left)
            }

            #[inline]
            fn frame(&self) -> Frame {
                Frame {
                    width: self.width,
                    pitch: self.pitch,
                    rows: self.rows,
                    top: self.top,
                    left: self.left,
                }
            }
        }
    };
}

pub(super) use rows_type;

rows_type! {
    /// A 2-D output written one element per thread: the thread at global `(x, y)` of a 2-D
    /// grid (`x = block_idx_x * block_dim_x + thread_idx_x`, the same for `y`) owns element
    /// `(row = y, col = x)` of the rectangle; threads with a `z` index other than 0 own nothing.
    DisjointRows
}

rows_type! {
    /// A 2-D output written one row per warp: warp `w` of the grid (the blocks in order, then
    /// the warps of each block) owns row `w` of the rectangle, and its lane `l` the columns
    /// `l, l + 32, ...` of it (CUDA's "one warp per row", as in a row softmax).
    WarpRows
}

rows_type! {
    /// A 2-D output written one `R × C` tile per block: block `(x, y)` owns the tile at rows
    /// `y·R ..`, columns `x·C ..` of the rectangle (blocks with `z > 0` own nothing), and inside
    /// it its thread `(tx, ty)` the elements `(ty + i·block_dim_y, tx + j·block_dim_x)`, as a
    /// block-shared `[[T; C]; R]` (a 32 × 8 block writing a 32 × 32 tile: four rows per thread).
    ///
    /// `O` is the block → tile map ([`TileOrder`]): [`GridOrder`] (the default) is the one
    /// above; `BlockTiles<T, R, C, RowMajor>` takes a 1-D grid, `Grouped<G>` a GEMM's grouped
    /// order, `Transposed` a grid with its axes swapped. Every block of the launch uses the
    /// same one (it is the parameter's type), and each is injective.
    BlockTiles, const R, const C, type O: TileOrder = GridOrder
}

/// The calling thread's global `(x, y)` in a grid whose `z` is 0, or `None` for a thread of
/// another `z`.
#[inline]
fn grid_xy() -> Option<(usize, usize)> {
    if thread::thread_idx_z() != 0 || thread::block_idx_z() != 0 {
        return None;
    }
    let x = thread::block_idx_x() as usize * thread::block_dim_x() as usize
        + thread::thread_idx_x() as usize;
    let y = thread::block_idx_y() as usize * thread::block_dim_y() as usize
        + thread::thread_idx_y() as usize;
    Some((x, y))
}

impl<T> DisjointRows<'_, T> {
    /// This thread's element, `((row, col), &mut element)` at `row = y`, `col = x` of its
    /// global position (in the rectangle: add [`origin`](Self::origin) for the buffer's), or
    /// `None` when that lies outside the rectangle (or the thread's `z` is not 0).
    #[track_caller]
    #[inline]
    pub fn at_thread(&mut self) -> Option<((usize, usize), &mut T)> {
        let (col, row) = grid_xy()?;
        if col < self.width && row < self.rows {
            // SAFETY: in the rectangle (tested above).
            let index = unsafe { self.frame().index((row, col)) };
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in the rectangle, so in bounds, and the thread at (x, y, 0) is the only
            // one with this position; `&mut self` lends the element once.
            Some(((row, col), unsafe {
                crate::element::element_mut(self.ptr, index)
            }))
        } else {
            None
        }
    }
}

/// The calling thread's warp's index in the grid: the blocks in order (x fastest), then the
/// warps of each block (`warp::warp_in_block()`). The same in every lane of a warp.
#[inline]
pub(super) fn grid_warp() -> usize {
    let threads = thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z();
    let warps_per_block = threads.div_ceil(WARP_SIZE) as usize;
    let block = (thread::block_idx_z() as usize * thread::grid_dim_y() as usize
        + thread::block_idx_y() as usize)
        * thread::grid_dim_x() as usize
        + thread::block_idx_x() as usize;
    block * warps_per_block + crate::warp::warp_in_block() as usize
}

impl<'a, T> WarpRows<'a, T> {
    /// This warp's row, or `None` when the grid has more warps than the rectangle has rows.
    ///
    /// Whole warps get the same answer (the row is a function of the block and of
    /// `warp::warp_in_block()`), so a branch on it is warp-uniform: warp collectives may follow
    /// `let Some(row) = out.row_mut() else { return };`.
    #[inline]
    pub fn row_mut(&mut self) -> Option<WarpRow<'_, T>> {
        let row = grid_warp();
        (row < self.rows).then(|| {
            // SAFETY: `row < rows`; column 0 is at most the width, and `left + width <= pitch`,
            // so no step wraps even for an empty row.
            let first = unsafe { self.frame().index((row, 0)) };
            WarpRow {
                // SAFETY (of the later accesses): row `row` of the rectangle belongs to this
                // warp alone, and a lane only reaches its own columns, below the width.
                start: unsafe { self.ptr.add(first) },
                first,
                width: self.width,
                row,
                _borrow: PhantomData,
            }
        })
    }
}

/// One warp's row of a [`WarpRows`] output, as seen by one lane: the lane writes the columns
/// `lane, lane + 32, ...`. It holds nothing that differs between the lanes of the warp (each
/// lane's columns come from `warp::lane_id()` where they are used), so that the row, and any
/// branch on it, stay warp-uniform.
pub struct WarpRow<'s, T> {
    start: *mut T,
    /// The index of the row's first element in the buffer (for the race detector, which knows
    /// an element by its buffer and index).
    first: usize,
    width: usize,
    row: usize,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T> WarpRow<'_, T> {
    /// Tells the emulator's race detector that this lane writes column `col`.
    #[track_caller]
    #[inline]
    fn report_write(&self, col: usize) {
        let base = self.start.wrapping_sub(self.first);
        crate::race::global_write(base.addr(), self.first + col);
    }

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

    /// The lane's `k`-th column, `(col, &mut element)` at `col = lane + 32k` of the rectangle,
    /// if the row has it.
    #[track_caller]
    #[inline]
    pub fn own_mut(&mut self, k: usize) -> Option<(usize, &mut T)> {
        let lane = crate::warp::lane_id() as usize;
        let col = k.checked_mul(WARP_SIZE as usize)?.checked_add(lane)?;
        if col >= self.width {
            return None;
        }
        self.report_write(col);
        // SAFETY: `col < width`, in this warp's row, and a column of this lane alone.
        Some((col, unsafe { crate::element::element_mut(self.start, col) }))
    }

    /// Calls `f(col, &mut element)` for every column of this lane, in order.
    #[track_caller]
    #[inline]
    pub fn for_each_own(&mut self, mut f: impl FnMut(usize, &mut T)) {
        let mut col = crate::warp::lane_id() as usize;
        while col < self.width {
            self.report_write(col);
            // SAFETY: as in `own_mut`.
            f(col, unsafe { crate::element::element_mut(self.start, col) });
            // Checked: in a row of more than `usize::MAX - 32` (zero-sized) elements the sum
            // would wrap to a column this lane already had; there is no next column then.
            let Some(next) = col.checked_add(WARP_SIZE as usize) else {
                break;
            };
            col = next;
        }
    }
}

impl<T, const R: usize, const C: usize, O: TileOrder> BlockTiles<'_, T, R, C, O> {
    /// This block's tile (the one `O` gives it), or `None` when it has none, or its tile lies
    /// wholly outside the rectangle, or its positions would not all have a `usize` index.
    #[inline]
    pub fn tile_mut(&mut self) -> Option<BlockTile<'_, T, R, C>> {
        // A tile of no rows or columns holds nothing (and would divide by zero below).
        if R == 0 || C == 0 {
            return None;
        }
        let (top, left) = calling_block_tile_origin::<O, R, C>(self.rows, self.width)?;
        Some(BlockTile {
            ptr: self.ptr,
            frame: self.frame(),
            origin: (top, left),
            _borrow: PhantomData,
        })
    }
}

/// The `(row, col)` of the first element of the calling block's `R × C` tile under the
/// block → tile map `O`, in a rectangle of `rows × width`: `None` when the block has no tile,
/// or its tile starts outside the rectangle, or the tile's end does not fit in `usize`.
#[inline]
pub(super) fn calling_block_tile_origin<O: TileOrder, const R: usize, const C: usize>(
    rows: usize,
    width: usize,
) -> Option<(usize, usize)> {
    let tiles = (rows.div_ceil(R), width.div_ceil(C));
    let (tile_row, tile_col) = super::tile_order::calling_block_tile::<O>(tiles)?;
    // Checked, not `block · R`: with a huge `R` or `C` (`C = 2^63`) the product wraps in a
    // release build and block 2 would get block 0's tile (issue 18). And the tile's end must
    // fit too, so that `origin + position` cannot wrap for any position inside the tile. A
    // tile that fails either is nobody's: one that starts past `usize::MAX` is outside any
    // buffer, and one that starts inside a buffer and ends past `usize::MAX` needs zero-sized
    // elements (a real buffer has fewer than 2^63 rows and columns, so a tile starting inside
    // it ends by 2^64). With a small constant `R` and `C` all four checks fold away: a `u32`
    // block index times a constant below 2^32, plus that constant, cannot overflow.
    let top = tile_row.checked_mul(R)?;
    let left = tile_col.checked_mul(C)?;
    top.checked_add(R)?;
    left.checked_add(C)?;
    (top < rows && left < width).then_some((top, left))
}

/// The calling thread's `(i, j)`-th position in its block's tile, `(ty + i·block_dim_y, tx +
/// j·block_dim_x)`, or `None` for a thread of `z > 0` (which owns nothing) or on overflow: the
/// residues that [`BlockTile`] and `WaveTiles` give a thread.
#[inline]
pub(crate) fn tile_residue((i, j): (usize, usize)) -> Option<(usize, usize)> {
    if thread::thread_idx_z() != 0 {
        return None;
    }
    let r = i
        .checked_mul(thread::block_dim_y() as usize)?
        .checked_add(thread::thread_idx_y() as usize)?;
    let c = j
        .checked_mul(thread::block_dim_x() as usize)?
        .checked_add(thread::thread_idx_x() as usize)?;
    Some((r, c))
}

/// One block's tile of a [`BlockTiles`] output, as seen by one thread.
pub struct BlockTile<'s, T, const R: usize, const C: usize> {
    ptr: *mut T,
    frame: Frame,
    /// The tile's first element, `(row, col)` of the rectangle: `origin.0 + R` and
    /// `origin.1 + C` fit in `usize` (`tile_mut` checked).
    origin: (usize, usize),
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T, const R: usize, const C: usize> BlockTile<'_, T, R, C> {
    /// The `(row, col)` of the tile's first element in the output's rectangle (add the
    /// output's `origin()` for the buffer's).
    #[inline]
    pub fn origin(&self) -> (usize, usize) {
        self.origin
    }

    /// The thread's `(i, j)`-th element of the tile: `((row, col), &mut element)` at tile
    /// position `(ty + i·block_dim_y, tx + j·block_dim_x)`, `(row, col)` in the rectangle, if
    /// it is in the tile and the rectangle.
    ///
    /// In the CPU emulator the call counts as a write of the element for the race detector.
    #[track_caller]
    #[inline]
    pub fn own_mut(&mut self, own: (usize, usize)) -> Option<((usize, usize), &mut T)> {
        let (r, c) = tile_residue(own)?;
        if r >= R || c >= C {
            return None;
        }
        // SAFETY: `origin + (R, C)` fits in `usize` (`tile_mut` checked) and `(r, c) < (R, C)`.
        // Unchecked (`nuw`), so that the element's address stays a non-wrapping offset of the
        // buffer's pointer and its null test folds (`Frame::index`).
        let (row, col) = unsafe {
            (
                self.origin.0.unchecked_add(r),
                self.origin.1.unchecked_add(c),
            )
        };
        if row < self.frame.rows && col < self.frame.width {
            // SAFETY: in the rectangle (tested above).
            let index = unsafe { self.frame.index((row, col)) };
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in the rectangle, so in the buffer; in this block's tile (tiles of
            // distinct blocks are disjoint: their origins and ends were computed without
            // wrapping), and at a position of this thread's residues alone (`r ≡ ty mod
            // block_dim_y`, `c ≡ tx mod block_dim_x`, `z = 0`).
            Some(((row, col), unsafe {
                crate::element::element_mut(self.ptr, index)
            }))
        } else {
            None
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::outputs::each_thread;

    /// What a thread writes at `(row, col)` of the output, never 0.
    pub(in crate::outputs) fn mark((row, col): (usize, usize)) -> u32 {
        (row * 1000 + col) as u32 + 1
    }

    pub(in crate::outputs) fn write(cell: &mut u32, at: (usize, usize)) {
        assert_eq!(*cell, 0, "{at:?} written twice");
        *cell = mark(at);
    }

    /// A rectangle of a buffer of rows `pitch` apart: `rows × width` from `origin`.
    #[derive(Clone, Copy, Debug)]
    pub(in crate::outputs) struct Rect {
        pub(in crate::outputs) pitch: usize,
        pub(in crate::outputs) rows: usize,
        pub(in crate::outputs) width: usize,
        pub(in crate::outputs) origin: (usize, usize),
    }

    impl Rect {
        /// The whole buffer of `len` elements, rows of `width` `pitch` apart.
        pub(in crate::outputs) fn whole(len: usize, width: usize, pitch: usize) -> Self {
            Rect {
                pitch,
                rows: len / pitch,
                width,
                origin: (0, 0),
            }
        }

        /// The output's `(row, col)` at buffer index `i`, if the rectangle has it.
        fn position(&self, i: usize) -> Option<(usize, usize)> {
            let (row, col) = (i / self.pitch, i % self.pitch);
            let (r, c) = (
                row.checked_sub(self.origin.0)?,
                col.checked_sub(self.origin.1)?,
            );
            (r < self.rows && c < self.width).then_some((r, c))
        }

        /// `from_raw_parts`'s arguments for the rectangle in `data`, but the origin.
        pub(in crate::outputs) fn parts(
            &self,
            data: &mut [u32],
        ) -> (*mut u32, usize, usize, usize, usize) {
            (
                data.as_mut_ptr(),
                data.len(),
                self.width,
                self.pitch,
                self.rows,
            )
        }
    }

    /// Every element of the rectangle written once with its own position in the rectangle
    /// (`written(position)` says which ones a partial shape writes), everything else 0.
    pub(in crate::outputs) fn check(
        data: &[u32],
        rect: Rect,
        written: impl Fn((usize, usize)) -> bool,
    ) {
        for (i, &v) in data.iter().enumerate() {
            let expected = rect.position(i).filter(|&at| written(at)).map_or(0, mark);
            assert_eq!(v, expected, "element {i} of {rect:?}");
        }
    }

    /// The interior of a 12 × 24 buffer of rows of 20 (a padded grid's rows 1..11, columns
    /// 1..19) and the whole of it.
    fn rects() -> [Rect; 2] {
        [
            Rect::whole(12 * 24, 20, 24),
            Rect {
                pitch: 24,
                rows: 10,
                width: 18,
                origin: (1, 1),
            },
        ]
    }

    #[test]
    fn threads_own_their_grid_position() {
        for rect in rects() {
            let mut data = vec![0u32; 12 * 24];
            // 2 x 2 blocks of 16 x 8: more threads than elements on both axes; a z of 2 owns
            // nothing.
            each_thread([2, 2, 2], [16, 8, 1], || {
                // SAFETY: the threads run one after another; the rectangle is in the buffer.
                let (ptr, len, width, pitch, rows) = rect.parts(&mut data);
                let mut out = unsafe {
                    DisjointRows::from_raw_parts(ptr, len, width, pitch, rows, rect.origin)
                };
                assert_eq!(out.origin(), rect.origin);
                if let Some((at, cell)) = out.at_thread() {
                    write(cell, at);
                }
            });
            check(&data, rect, |_| true);
        }
    }

    #[test]
    fn warps_own_rows_and_lanes_columns() {
        let rect = Rect {
            pitch: 80,
            rows: 8,
            width: 70,
            origin: (2, 10),
        };
        for rect in [Rect::whole(10 * 70, 70, 70), rect] {
            let mut data = vec![0u32; 10 * 80];
            // 3 blocks of 4 warps (one partial); the grid has 12 warps for 10 or 8 rows.
            each_thread([3, 1, 1], [100, 1, 1], || {
                // SAFETY: as above.
                let (ptr, len, width, pitch, rows) = rect.parts(&mut data);
                let mut out =
                    unsafe { WarpRows::from_raw_parts(ptr, len, width, pitch, rows, rect.origin) };
                if let Some(mut row) = out.row_mut() {
                    let r = row.row();
                    row.for_each_own(|col, cell| write(cell, (r, col)));
                }
            });
            // Block of 100 threads: warps 0..2 full, warp 3 of 4 lanes, whose other columns
            // nobody writes: rows 3 and 7 (the last warps of blocks 0 and 1) have only lanes
            // 0..4.
            check(&data, rect, |(row, col)| row % 4 != 3 || col % 32 < 4);
        }
    }

    #[test]
    fn blocks_own_tiles_and_threads_their_residues() {
        let rect = Rect {
            pitch: 50,
            rows: 66,
            width: 41,
            origin: (3, 7),
        };
        for rect in [Rect::whole(70 * 45, 45, 45), rect] {
            let mut data = vec![0u32; 70 * 50];
            // Tiles of 32 x 32 by blocks of 32 x 8: four rows per thread; 2 x 3 tiles cover
            // 45 x 70.
            each_thread([2, 3, 1], [32, 8, 1], || {
                // SAFETY: as above.
                let (ptr, len, width, pitch, rows) = rect.parts(&mut data);
                let mut out = unsafe {
                    BlockTiles::<u32, 32, 32>::from_raw_parts(
                        ptr,
                        len,
                        width,
                        pitch,
                        rows,
                        rect.origin,
                    )
                };
                if let Some(mut tile) = out.tile_mut() {
                    for i in 0..4 {
                        if let Some((at, cell)) = tile.own_mut((i, 0)) {
                            write(cell, at);
                        }
                    }
                    assert!(tile.own_mut((4, 0)).is_none());
                }
            });
            check(&data, rect, |_| true);
        }
    }

    #[test]
    fn padded_rows_leave_the_padding_alone() {
        let rect = Rect::whole(9 * 24, 20, 24);
        let mut data = vec![0u32; 9 * 24];
        each_thread([2, 2, 1], [16, 8, 1], || {
            // SAFETY: the threads run one after another; the pitch divides the length.
            let (ptr, len, width, pitch, rows) = rect.parts(&mut data);
            let mut out =
                unsafe { DisjointRows::from_raw_parts(ptr, len, width, pitch, rows, (0, 0)) };
            if let Some((at, cell)) = out.at_thread() {
                write(cell, at);
            }
        });
        check(&data, rect, |_| true);
    }
}
