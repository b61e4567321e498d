//! Two-dimensional outputs: a buffer of `len` elements seen as rows of `width`, each row
//! starting `pitch` elements after the previous one (`pitch >= width`: the columns from `width`
//! to `pitch` are padding that no thread writes; the launch's `oxide::host::Rows` gives both and
//! checks that the pitch divides the length), written by threads ([`DisjointRows`]), warps
//! ([`WarpRows`]) or blocks ([`BlockTiles`]).
//!
//! Each type has one ownership rule, computed from the thread's own position registers; the
//! rule is a partition of the elements whatever the grid's shape (threads outside the rule's
//! plane, `z > 0`, own nothing), and no two types can view one buffer in one launch (each
//! kernel parameter borrows its buffer mutably).

use core::marker::PhantomData;

use crate::thread;
use crate::warp::WARP_SIZE;

macro_rules! rows_type {
    ($(#[$doc:meta])* $name:ident $(, const $c:ident)*) => {
        $(#[$doc])*
        #[repr(C)]
        pub struct $name<'a, T $(, const $c: usize)*> {
            ptr: *mut T,
            len: usize,
            width: usize,
            pitch: usize,
            _marker: PhantomData<&'a mut [T]>,
        }

        crate::param::output_param!($name<'a, T $(, const $c)*>, words 2);

        impl<'a, T $(, const $c: usize)*> $name<'a, T $(, $c)*> {
            /// Wraps `len` elements at `ptr` as rows of `width` elements, `pitch` apart, for
            /// `'a`. Kernels never call this: their arguments are built by the launch. It exists
            /// for the host emulator and for tests.
            ///
            /// # Safety
            /// As [`crate::DisjointSlice::from_raw_parts`], `0 < width <= pitch` and `pitch`
            /// divides `len`; every thread sees the same `ptr`, `len`, `width` and `pitch`.
            #[inline]
            pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, width: usize, pitch: usize) -> Self {
                $name { ptr, len, width, pitch, _marker: PhantomData }
            }

            len_methods!("of the whole buffer");

            /// Elements per row.
            #[inline]
            pub fn width(&self) -> usize {
                self.width
            }

            /// Elements from the start of one row to the start of the next (the width, unless
            /// the rows are padded).
            #[inline]
            pub fn pitch(&self) -> usize {
                self.pitch
            }

            /// Number of rows.
            #[inline]
            pub fn rows(&self) -> usize {
                self.len / self.pitch
            }
        }
    };
}

rows_type! {
    /// A 2-D output written one element per thread: the thread at global `(x, y)` of a 2-D
    /// grid (`x = block_idx_x * block_dim_x + thread_idx_x`, the same for `y`) owns element
    /// `(row = y, col = x)`; threads with a `z` index other than 0 own nothing.
    DisjointRows
}

rows_type! {
    /// A 2-D output written one row per warp: warp `w` of the grid (the blocks in order, then
    /// the warps of each block) owns row `w`, and its lane `l` the columns `l, l + 32, ...` of
    /// it (CUDA's "one warp per row", as in a row softmax).
    WarpRows
}

rows_type! {
    /// A 2-D output written one `R × C` tile per block: block `(x, y)` owns the tile at rows
    /// `y·R ..`, columns `x·C ..` (blocks with `z > 0` own nothing), and inside it its thread
    /// `(tx, ty)` the elements `(ty + i·block_dim_y, tx + j·block_dim_x)`, as a block-shared
    /// `[[T; C]; R]` (a 32 × 8 block writing a 32 × 32 tile: four rows per thread).
    BlockTiles, const R, const C
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
    /// global position, or `None` when that lies outside the buffer (or the thread's `z` is not
    /// 0).
    #[track_caller]
    #[inline]
    pub fn at_thread(&mut self) -> Option<((usize, usize), &mut T)> {
        let (col, row) = grid_xy()?;
        if col < self.width && row < self.rows() {
            let index = row * self.pitch + col;
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in bounds, and the thread at (x, y, 0) is the only one with this
            // position; `&mut self` lends the element once.
            Some(((row, col), unsafe { &mut *self.ptr.add(index) }))
        } else {
            None
        }
    }
}

impl<'a, T> WarpRows<'a, T> {
    /// This warp's row, or `None` when the grid has more warps than the buffer has rows.
    ///
    /// Whole warps get the same answer (the row is a function of the block and of
    /// `warp::warp_in_block()`), so a branch on it is warp-uniform: warp collectives may follow
    /// `let Some(row) = out.row_mut() else { return };`.
    #[inline]
    pub fn row_mut(&mut self) -> Option<WarpRow<'_, T>> {
        let threads = thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z();
        let warps_per_block = threads.div_ceil(WARP_SIZE) as usize;
        let block = (thread::block_idx_z() as usize * thread::grid_dim_y() as usize
            + thread::block_idx_y() as usize)
            * thread::grid_dim_x() as usize
            + thread::block_idx_x() as usize;
        let row = block * warps_per_block + crate::warp::warp_in_block() as usize;
        (row < self.rows()).then(|| WarpRow {
            // SAFETY (of the later accesses): row `row` belongs to this warp alone, and a lane
            // only reaches its own columns.
            start: unsafe { self.ptr.add(row * self.pitch) },
            first: row * self.pitch,
            width: self.width,
            row,
            _borrow: PhantomData,
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

    /// The row's index in the buffer.
    #[inline]
    pub fn row(&self) -> usize {
        self.row
    }

    /// Elements in the row.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// The lane's `k`-th column, `(col, &mut element)` at `col = lane + 32k`, if the row has it.
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
        Some((col, unsafe { &mut *self.start.add(col) }))
    }

    /// Calls `f(col, &mut element)` for every column of this lane, in order.
    #[track_caller]
    #[inline]
    pub fn for_each_own(&mut self, mut f: impl FnMut(usize, &mut T)) {
        let mut col = crate::warp::lane_id() as usize;
        while col < self.width {
            self.report_write(col);
            // SAFETY: as in `own_mut`.
            f(col, unsafe { &mut *self.start.add(col) });
            // Checked: in a row of more than `usize::MAX - 32` (zero-sized) elements the sum
            // would wrap to a column this lane already had; there is no next column then.
            let Some(next) = col.checked_add(WARP_SIZE as usize) else {
                break;
            };
            col = next;
        }
    }
}

impl<T, const R: usize, const C: usize> BlockTiles<'_, T, R, C> {
    /// This block's tile, or `None` when it lies wholly outside the buffer (or the block's `z`
    /// is not 0), or its positions would not all have a `usize` index.
    #[inline]
    pub fn tile_mut(&mut self) -> Option<BlockTile<'_, T, R, C>> {
        if thread::block_idx_z() != 0 {
            return None;
        }
        // Checked, not `block · R`: with a huge `R` or `C` (`C = 2^63`) the product wraps in a
        // release build and block 2 would get block 0's tile (issue 18). And the tile's end
        // must fit too, so that `origin + position` cannot wrap in `own_mut` for any position
        // inside the tile. A tile that fails either is nobody's: one that starts past
        // `usize::MAX` is outside any buffer, and one that starts inside a buffer and ends past
        // `usize::MAX` needs zero-sized elements (a real buffer has fewer than 2^63 rows and
        // columns, so a tile starting inside it ends by 2^64). With a small constant `R` and
        // `C` all four checks fold away: a `u32` block index times a constant below 2^32, plus
        // that constant, cannot overflow.
        let top = (thread::block_idx_y() as usize).checked_mul(R)?;
        let left = (thread::block_idx_x() as usize).checked_mul(C)?;
        top.checked_add(R)?;
        left.checked_add(C)?;
        (top < self.rows() && left < self.width).then(|| BlockTile {
            ptr: self.ptr,
            width: self.width,
            pitch: self.pitch,
            rows: self.rows(),
            origin: (top, left),
            _borrow: PhantomData,
        })
    }
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
    width: usize,
    pitch: usize,
    rows: usize,
    /// The tile's first element, `(row, col)`: `origin.0 + R` and `origin.1 + C` fit in
    /// `usize` (`tile_mut` checked).
    origin: (usize, usize),
    _borrow: PhantomData<&'s mut [T]>,
}

impl<T, const R: usize, const C: usize> BlockTile<'_, T, R, C> {
    /// The `(row, col)` of the tile's first element in the buffer.
    #[inline]
    pub fn origin(&self) -> (usize, usize) {
        self.origin
    }

    /// The thread's `(i, j)`-th element of the tile: `((row, col), &mut element)` at tile
    /// position `(ty + i·block_dim_y, tx + j·block_dim_x)`, if it is in the tile and the buffer.
    ///
    /// In the CPU emulator the call counts as a write of the element for the race detector.
    #[track_caller]
    #[inline]
    pub fn own_mut(&mut self, own: (usize, usize)) -> Option<((usize, usize), &mut T)> {
        let (r, c) = tile_residue(own)?;
        // Wrapping, as `r` and `c` are not tested yet (a debug build must not trap on a
        // position outside the tile); used only once `r < R` and `c < C`, when no sum wraps
        // (`origin + (R, C)` fits in `usize`).
        let (row, col) = (self.origin.0.wrapping_add(r), self.origin.1.wrapping_add(c));
        if r < R && c < C && row < self.rows && col < self.width {
            // `row · pitch + col < rows · pitch <= len`: no wrap either.
            let index = row * self.pitch + col;
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in the buffer, in this block's tile (tiles of distinct blocks are
            // disjoint: their origins and ends were computed without wrapping), and at a
            // position of this thread's residues alone (`r ≡ ty mod block_dim_y`, `c ≡ tx
            // mod block_dim_x`, `z = 0`).
            Some(((row, col), unsafe { &mut *self.ptr.add(index) }))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::each_thread;

    /// Every element written exactly once, with its own (row, col).
    fn check(data: &[u32], width: usize) {
        for (i, &v) in data.iter().enumerate() {
            assert_eq!(
                v,
                (i / width * 1000 + i % width) as u32 + 1,
                "element {i} of width {width}"
            );
        }
    }

    fn write(cell: &mut u32, (row, col): (usize, usize)) {
        assert_eq!(*cell, 0, "({row}, {col}) written twice");
        *cell = (row * 1000 + col) as u32 + 1;
    }

    #[test]
    fn threads_own_their_grid_position() {
        let (rows, width) = (20, 37);
        let mut data = vec![0u32; rows * width];
        // 3 x 3 blocks of 16 x 8: more threads than elements on both axes; a z of 2 owns nothing.
        each_thread([3, 3, 2], [16, 8, 1], || {
            // SAFETY: the threads run one after another; width divides the length.
            let mut out = unsafe {
                DisjointRows::from_raw_parts(data.as_mut_ptr(), rows * width, width, width)
            };
            if let Some((at, cell)) = out.at_thread() {
                write(cell, at);
            }
        });
        check(&data, width);
    }

    #[test]
    fn warps_own_rows_and_lanes_columns() {
        let (rows, width) = (10, 70);
        let mut data = vec![0u32; rows * width];
        // 3 blocks of 4 warps (one partial); the grid has 12 warps for 10 rows.
        each_thread([3, 1, 1], [100, 1, 1], || {
            // SAFETY: as above.
            let mut out =
                unsafe { WarpRows::from_raw_parts(data.as_mut_ptr(), rows * width, width, width) };
            if let Some(mut row) = out.row_mut() {
                let r = row.row();
                row.for_each_own(|col, cell| write(cell, (r, col)));
            }
        });
        // Block of 100 threads: warps 0..2 full, warp 3 of 4 lanes, whose other columns nobody
        // writes: rows 3 and 7 (the last warps of blocks 0 and 1) have only lanes 0..4.
        for (i, &v) in data.iter().enumerate() {
            let (row, col) = (i / width, i % width);
            let partial = row % 4 == 3;
            if partial && col % 32 >= 4 {
                assert_eq!(v, 0, "({row}, {col})");
            } else {
                assert_eq!(v, (row * 1000 + col) as u32 + 1, "({row}, {col})");
            }
        }
    }

    #[test]
    fn blocks_own_tiles_and_threads_their_residues() {
        let (rows, width) = (70, 45);
        let mut data = vec![0u32; rows * width];
        // Tiles of 32 x 32 by blocks of 32 x 8: four rows per thread; 2 x 3 tiles cover 45 x 70.
        each_thread([2, 3, 1], [32, 8, 1], || {
            // SAFETY: as above.
            let mut out = unsafe {
                BlockTiles::<u32, 32, 32>::from_raw_parts(
                    data.as_mut_ptr(),
                    rows * width,
                    width,
                    width,
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
        check(&data, width);
    }

    #[test]
    fn padded_rows_leave_the_padding_alone() {
        let (rows, width, pitch) = (9, 20, 24);
        let mut data = vec![0u32; rows * pitch];
        each_thread([2, 2, 1], [16, 8, 1], || {
            // SAFETY: the threads run one after another; the pitch divides the length.
            let mut out = unsafe {
                DisjointRows::from_raw_parts(data.as_mut_ptr(), rows * pitch, width, pitch)
            };
            if let Some((at, cell)) = out.at_thread() {
                write(cell, at);
            }
        });
        for (i, &v) in data.iter().enumerate() {
            let (row, col) = (i / pitch, i % pitch);
            let expected = if col < width {
                (row * 1000 + col) as u32 + 1
            } else {
                0
            };
            assert_eq!(v, expected, "({row}, {col})");
        }
    }
}
