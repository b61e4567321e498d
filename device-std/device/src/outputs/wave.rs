//! [`WaveTiles<T, R, C>`]: an output computed by anti-diagonal wavefronts of `R × C` tiles, one
//! launch per wave (dynamic programming over a grid: each tile needs the tiles above and to its
//! left).

use core::marker::PhantomData;

use crate::thread;

/// A buffer of rows of `width` seen as `R × C` tiles, written one anti-diagonal wave per
/// launch: in the launch of wave `d` (the host's `oxide::host::Wave::new(&mut buf, width, d)?`),
/// block `b` (`block_idx_x`) owns tile `(d - b, b)` (tile row, tile column), whose elements its
/// threads own by residues as in [`BlockTiles`](crate::BlockTiles): thread `(tx, ty)` the
/// positions `(ty + i·block_dim_y, tx + j·block_dim_x)`. Every thread may read the tiles of
/// earlier waves (tile row + tile column `< d`), which no thread of this launch writes.
///
/// Layout: a pointer, a length, the row width and the wave (docs/contracts.md).
#[repr(C)]
pub struct WaveTiles<'a, T, const R: usize, const C: usize> {
    ptr: *mut T,
    len: usize,
    width: usize,
    wave: usize,
    _marker: PhantomData<&'a mut [T]>,
}

crate::param::output_param!(WaveTiles<'a, T, const R, const C>, words 2);

impl<'a, T: Copy, const R: usize, const C: usize> WaveTiles<'a, T, R, C> {
    /// Wraps `len` elements at `ptr` as rows of `width`, in the launch of wave `wave`. Kernels
    /// never call this: their arguments are built by the launch. It exists for the host
    /// emulator and for tests.
    ///
    /// # Safety
    /// As [`crate::DisjointSlice::from_raw_parts`], `width > 0` divides `len`; every thread
    /// sees the same `ptr`, `len`, `width` and `wave`.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, width: usize, wave: usize) -> Self {
        const { assert!(R > 0 && C > 0, "a tile has at least one element") };
        WaveTiles {
            ptr,
            len,
            width,
            wave,
            _marker: PhantomData,
        }
    }

    /// Elements per row.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.len / self.width
    }

    /// This launch's wave.
    #[inline]
    pub fn wave(&self) -> usize {
        self.wave
    }

    /// Element `(row, col)` if its tile is of an earlier wave (written by an earlier launch, so
    /// no thread of this one writes it), else `None` (in this wave, a later one, or outside).
    #[inline]
    pub fn earlier(&self, row: usize, col: usize) -> Option<T> {
        if row < self.rows() && col < self.width && row / R + col / C < self.wave {
            // SAFETY: in the buffer, in a tile no thread of this launch writes (the writable
            // tiles are those of wave `wave`), so the read races with nothing.
            Some(unsafe { self.ptr.add(row * self.width + col).read() })
        } else {
            None
        }
    }

    /// The calling thread's `(i, j)`-th element of its block's tile: `((row, col), &mut
    /// element)` at tile position `(ty + i·block_dim_y, tx + j·block_dim_x)`, or `None` when the
    /// block has no tile in this wave or the position is outside the tile or the buffer.
    ///
    /// In the CPU emulator the call counts as a write of the element for the race detector.
    #[track_caller]
    #[inline]
    pub fn own_mut(&mut self, own: (usize, usize)) -> Option<((usize, usize), &mut T)> {
        if thread::block_idx_y() != 0 || thread::block_idx_z() != 0 {
            return None;
        }
        let b = thread::block_idx_x() as usize;
        let tile_row = self.wave.checked_sub(b)?;
        let (r, c) = super::rows::tile_residue(own)?;
        // Checked: a tile whose origin or element does not fit in `usize` does not exist (a
        // wrapped one would be another block's).
        let row = tile_row.checked_mul(R)?.checked_add(r)?;
        let col = b.checked_mul(C)?.checked_add(c)?;
        if r < R && c < C && row < self.rows() && col < self.width {
            let index = row * self.width + col;
            crate::race::global_write(self.ptr.addr(), index);
            // SAFETY: in the buffer; in tile `(wave - b, b)`, which block `b` alone owns in this
            // launch (one tile per block: the wave fixes the row from the column), and at a
            // position of this thread's residues alone; `earlier` never reads this wave's tiles.
            Some(((row, col), unsafe {
                crate::element::element_mut(self.ptr, index)
            }))
        } else {
            None
        }
    }
}
