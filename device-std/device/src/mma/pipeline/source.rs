//! [`Source`]: where a pipeline's fill copies one 16-byte chunk from, and whether that copy can
//! be one `cp.async`.
//!
//! Everything about the chunk that the copy needs is decided here, where the caller's indices
//! are, so that the copy itself is one instruction: the address, how many of the 8 elements
//! exist (the rest zero-filled), and whether the address is 16-byte aligned global memory.
//! For a [`Matrix`] the last test is of the matrix (its base, pitch and columns), the same for
//! every chunk of it, so the compiler makes it once per kernel and the chunk's own work is its
//! bounds test and address, as in CUTLASS's predicated tile iterators.

use core::marker::PhantomData;

use super::copies::is_global;
use crate::Matrix;
use crate::mma::{MmaInput, Vec8, from_bits};

/// Where a chunk comes from: 8 elements of a slice or of a matrix's row (fewer at its end, the
/// rest zero), or zeros.
///
/// Flags rather than an enum of cases: where a flag is the same for every chunk (a matrix's
/// alignment) the compiler tests it once, outside the loops, and the chunk's own work is its
/// position's test and address; an enum's cases came back through a jump table instead.
#[derive(Clone, Copy)]
pub struct Source<'a, E> {
    /// The chunk's first element where `inside`, else any address of the source.
    pub(super) first: *const E,
    /// Whether the chunk has elements: `first` is one.
    pub(super) inside: bool,
    /// Where `inside`: the elements from `first` to the end of its row or slice (at least 1).
    pub(super) left: usize,
    /// Whether the copy can be one `cp.async`: `first` is 16-byte aligned global memory, and
    /// the source has elements (so `first`, inside or not, is an address a copy of 0 bytes may
    /// name).
    pub(super) asynchronous: bool,
    /// Whether a chunk inside has all 8 elements (`left >= 8`): a `cp.async` of 16 bytes or of
    /// none, with no count of bytes to compute.
    pub(super) whole: bool,
    _source: PhantomData<&'a [E]>,
}

impl<'a, E> Source<'a, E> {
    /// Elements `start..start + 8` of `slice`; those past its end are zero.
    #[inline]
    pub fn chunk(slice: &'a [E], start: usize) -> Self {
        let base = slice.as_ptr();
        let inside = start < slice.len();
        // Past the end, the slice's base (a copy of 0 bytes still names an address).
        let first = if inside {
            base.wrapping_add(start)
        } else {
            base
        };
        // A slice is one allocation, in one window of the generic address space: its elements
        // are global where its base is (a test of the base, which the compiler hoists).
        let asynchronous =
            !slice.is_empty() && first.addr().is_multiple_of(16) && is_global(base.cast());
        Source {
            first,
            inside,
            left: slice.len().wrapping_sub(start),
            asynchronous,
            whole: false,
            _source: PhantomData,
        }
    }

    /// Elements `col..col + 8` of row `row` of `matrix`; those outside it (past its columns,
    /// or a row past its rows) are zero. Where the matrix's rows are 16-byte aligned global
    /// memory (its base aligned, its pitch a multiple of 16 bytes) and `col` a multiple of 8,
    /// this is one `cp.async`, for the chunks outside the matrix too; where its columns are a
    /// multiple of 8 as well, one with no count of bytes to compute.
    #[inline]
    pub fn matrix(matrix: &Matrix<'a, E>, row: usize, col: usize) -> Self {
        MatrixParts::of(matrix).chunk(row, col)
    }

    /// Eight zeros (a chunk outside the matrix, a padding chunk).
    #[inline]
    pub fn zeros() -> Self {
        Source {
            first: core::ptr::null(),
            inside: false,
            left: 0,
            asynchronous: false,
            whole: false,
            _source: PhantomData,
        }
    }

    /// Whether the copy is one `cp.async` of all 8 elements or of none: aligned global memory,
    /// a chunk wholly inside its source or wholly outside.
    #[inline]
    pub(super) fn is_whole(&self) -> bool {
        self.asynchronous && self.whole
    }

    /// How many of the 8 elements exist (0 to 8).
    #[inline]
    pub(super) fn available(&self) -> usize {
        if self.inside { self.left.min(8) } else { 0 }
    }
}

impl<E: MmaInput> Source<'_, E> {
    /// The chunk's 8 elements read now, by this thread (zeros for those outside its source):
    /// one 16-byte load where a fill's copy of it would be one `cp.async` of all or none
    /// (aligned global memory, a chunk wholly inside or wholly outside), else element by
    /// element. For a tile read once into a shared array's `init`: the same tests as a fill's,
    /// made once a matrix rather than once an element. (A tile that can wait for its copies
    /// loads faster through a one-stage pipeline, all of them in flight at once: flash_attn's
    /// `Q`.)
    #[inline]
    pub fn read(&self) -> Vec8<E> {
        if self.is_whole() {
            if self.inside {
                // `whole` and `inside`: the 8 elements from `first` lie in the source, which `'a`
                // keeps borrowed; `asynchronous`: `first` is 16-byte aligned global memory.
                let words = load_chunk(self.first.expose_provenance());
                // Element `e` is the low or high half of word `e / 2` (little-endian, as memory
                // holds them).
                Vec8(core::array::from_fn(|e| {
                    from_bits((words[e / 2] >> (16 * (e % 2))) as u16)
                }))
            } else {
                Vec8([from_bits(0); 8])
            }
        } else {
            let available = self.available();
            Vec8(core::array::from_fn(|e| {
                if e < available {
                    // SAFETY: element `e < available` from `first`, inside the source.
                    unsafe { self.first.add(e).read() }
                } else {
                    from_bits(0)
                }
            }))
        }
    }
}

/// The 16 bytes at `address`, one load of read-only global memory (`ld.global.nc.v4.b32`, what
/// the matrices' element reads are): inline PTX, since LLVM splits a 16-byte load into two of 8
/// bytes. Only [`Source::read`] calls it, for a whole chunk inside an input it borrows, 16-byte
/// aligned global memory that nothing writes during the kernel.
#[oxide_gpu::ptx(
    template = "{ .reg .u64 %oxg; cvta.to.global.u64 %oxg, $4; ld.global.nc.v4.b32 {$0, $1, $2, $3}, [%oxg]; }",
    constraints = "=r,=r,=r,=r,l"
)]
#[inline(never)]
fn load_chunk(address: usize) -> [u32; 4] {
    // SAFETY: the caller's: 16 bytes of a borrowed input, 16-byte aligned.
    unsafe { core::ptr::with_exposed_provenance::<[u32; 4]>(address).read() }
}

/// What a source keeps of a [`Matrix`]: its base and shape (a `Matrix` is not `Copy`).
struct MatrixParts<'a, E> {
    base: *const E,
    rows: usize,
    cols: usize,
    pitch: usize,
    /// Whether the matrix's rows are 16-byte aligned global memory with elements: its base
    /// aligned, its pitch a multiple of 16 bytes.
    aligned_rows: bool,
    _source: PhantomData<&'a [E]>,
}

impl<'a, E> MatrixParts<'a, E> {
    #[inline]
    fn of(matrix: &Matrix<'a, E>) -> Self {
        let (base, size) = (matrix.as_ptr(), core::mem::size_of::<E>());
        // Each test is of the matrix alone: made once, outside the loops. Multiples of 16
        // bytes, tested modulo 2^64 (which 16 divides): no overflow to panic on in a debug
        // build.
        let aligned_rows = !matrix.is_empty()
            && base.addr().is_multiple_of(16)
            && matrix.pitch().wrapping_mul(size).is_multiple_of(16)
            && is_global(base.cast());
        MatrixParts {
            base,
            rows: matrix.rows(),
            cols: matrix.cols(),
            pitch: matrix.pitch(),
            aligned_rows,
            _source: PhantomData,
        }
    }

    /// A matrix of no elements: every chunk of it is zeros, copied plainly.
    #[inline]
    fn none() -> Self {
        MatrixParts {
            base: core::ptr::null(),
            rows: 0,
            cols: 0,
            pitch: 0,
            aligned_rows: false,
            _source: PhantomData,
        }
    }

    /// [`Source::matrix`] of this matrix.
    #[inline]
    fn chunk(&self, row: usize, col: usize) -> Source<'a, E> {
        let size = core::mem::size_of::<E>();
        let inside = row < self.rows && col < self.cols;
        let first = if inside {
            // SAFETY: `row < rows` and `col < cols`: an element of the buffer, its offset
            // computed without overflow (the host's check of the shape; `Matrix::get`).
            self.base
                .wrapping_add(unsafe { row.unchecked_mul(self.pitch).unchecked_add(col) })
        } else {
            self.base
        };
        Source {
            first,
            inside,
            left: self.cols.wrapping_sub(col),
            asynchronous: self.aligned_rows && col.wrapping_mul(size).is_multiple_of(16),
            // Rows of whole chunks: a chunk that starts at a multiple of 8 inside ends inside.
            whole: self.cols.wrapping_mul(size).is_multiple_of(16)
                && col.wrapping_mul(size).is_multiple_of(16),
            _source: PhantomData,
        }
    }
}

/// Where a whole stage tile comes from: the tile of a [`Matrix`] whose top-left element is
/// `(row, col)` (rows `row..`, columns `col..`, as many as the stage tile has; those outside
/// the matrix zero), or zeros. What [`Pipeline::fill_tiles`](super::Pipeline::fill_tiles)
/// takes, one a tile.
///
/// Naming the tile rather than each chunk lets a fill test the tile once: where it lies wholly
/// inside a matrix whose rows are 16-byte aligned global memory, at a column that is a
/// multiple of 8, each of the thread's chunks is one `cp.async` from the tile's first element
/// plus the chunk's offset, with no test of its own (CUTLASS's predicated iterators, with the
/// predicates of a tile inside all true). A tile at the matrix's edge is copied chunk by chunk
/// as [`Source::matrix`] would.
pub struct TileSource<'a, E> {
    matrix: MatrixParts<'a, E>,
    row: usize,
    col: usize,
    /// The element at `(row, col)` where the tile is whole (any address otherwise): each
    /// chunk's address is this plus an offset that is the same in every fill.
    first: *const E,
}

// Copies whatever `E` is (the derive would ask `E: Copy`): the parts are a pointer and numbers.
impl<E> Clone for MatrixParts<'_, E> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for MatrixParts<'_, E> {}
impl<E> Clone for TileSource<'_, E> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for TileSource<'_, E> {}

impl<'a, E> TileSource<'a, E> {
    /// The tile of `matrix` from `(row, col)`.
    #[inline]
    pub fn matrix(matrix: &Matrix<'a, E>, row: usize, col: usize) -> Self {
        let matrix = MatrixParts::of(matrix);
        let offset = row.wrapping_mul(matrix.pitch).wrapping_add(col);
        TileSource {
            matrix,
            row,
            col,
            first: matrix.base.wrapping_add(offset),
        }
    }

    /// A tile of zeros (past the last step of a loop, a padding tile).
    #[inline]
    pub fn zeros() -> Self {
        TileSource {
            matrix: MatrixParts::none(),
            row: 0,
            col: 0,
            first: core::ptr::null(),
        }
    }

    /// Whether a tile of `rows` rows of `chunks` chunks from here lies wholly inside the
    /// matrix, whose rows are 16-byte aligned global memory, from a column at a chunk's
    /// boundary: every chunk of it then one `cp.async` of 16 bytes from [`first_of`].
    ///
    /// [`first_of`]: Self::first_of
    #[inline]
    pub(super) fn is_whole(&self, rows: usize, chunks: usize) -> bool {
        let m = &self.matrix;
        let size = core::mem::size_of::<E>();
        m.aligned_rows
            && self.col.wrapping_mul(size).is_multiple_of(16)
            && self.row <= m.rows
            && m.rows - self.row >= rows
            && self.col <= m.cols
            && (m.cols - self.col) / 8 >= chunks
    }

    /// The first element of the tile's chunk `(row, chunk)`: in the matrix where
    /// [`is_whole`](Self::is_whole) held for a tile that has the chunk.
    #[inline]
    pub(super) fn first_of(&self, row: usize, chunk: usize) -> *const E {
        let offset = row.wrapping_mul(self.matrix.pitch).wrapping_add(8 * chunk);
        self.first.wrapping_add(offset)
    }

    /// How many elements `rows` rows of the matrix span: from a chunk to the one `rows` rows
    /// below it.
    #[inline]
    pub(super) fn rows_stride(&self, rows: usize) -> usize {
        rows.wrapping_mul(self.matrix.pitch)
    }

    /// The tile's chunk `(row, chunk)` as a chunk's [`Source`] (zeros past the matrix, or where
    /// its position overflows).
    #[inline]
    pub(super) fn chunk(&self, row: usize, chunk: usize) -> Source<'a, E> {
        match (self.row.checked_add(row), self.col.checked_add(8 * chunk)) {
            (Some(r), Some(c)) => self.matrix.chunk(r, c),
            _ => self.matrix.chunk(usize::MAX, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16;
    use crate::mma::Vec8;

    /// 64 elements at a 16-byte aligned address.
    fn aligned() -> Vec<Vec8<bf16>> {
        vec![Vec8([bf16::ZERO; 8]); 8]
    }

    /// The `rows × cols` matrix, rows `pitch` apart, over `data`'s elements.
    fn matrix(data: &[Vec8<bf16>], rows: usize, cols: usize, pitch: usize) -> Matrix<'_, bf16> {
        let len = data.len() * 8;
        assert!(oxide_contract::matrix_fits(
            len as u64,
            rows as u64,
            cols as u64,
            pitch as u64
        ));
        // SAFETY: `data` is borrowed for the matrix's life; the shape fits (checked above).
        unsafe { Matrix::from_raw_parts(data.as_ptr().cast(), len, cols, pitch, rows) }
    }

    /// `(inside, available, asynchronous, whole, offset of first from the base)`.
    fn summary(s: Source<'_, bf16>, base: *const bf16) -> (bool, usize, bool, bool, usize) {
        let offset = (s.first.addr() - base.addr()) / 2;
        (s.inside, s.available(), s.asynchronous, s.whole, offset)
    }

    #[test]
    fn a_matrix_of_whole_chunks_is_copied_whole_or_not_at_all() {
        let data = aligned();
        let m = matrix(&data, 4, 16, 16);
        let base = m.as_ptr();
        let at = |row, col| summary(Source::matrix(&m, row, col), base);
        assert_eq!(at(0, 0), (true, 8, true, true, 0));
        assert_eq!(at(3, 8), (true, 8, true, true, 56));
        // Outside: no elements, the base named (a copy that reads nothing).
        assert_eq!(at(4, 0), (false, 0, true, true, 0));
        assert_eq!(at(0, 16), (false, 0, true, true, 0));
        // A column off the grid of chunks: plain stores of zeros (and no overflow).
        assert_eq!(at(usize::MAX, usize::MAX), (false, 0, false, false, 0));
        // A column off the chunk grid: plain loads, as many elements as the row has.
        assert_eq!(at(1, 11), (true, 5, false, false, 27));
    }

    #[test]
    fn a_padded_matrix_copies_its_last_chunk_in_part() {
        let data = aligned();
        // 12 columns in rows of 16: aligned rows, a last chunk of 4.
        let m = matrix(&data, 4, 12, 16);
        let base = m.as_ptr();
        let at = |row, col| summary(Source::matrix(&m, row, col), base);
        assert_eq!(at(2, 0), (true, 8, true, false, 32));
        assert_eq!(at(2, 8), (true, 4, true, false, 40));
        assert_eq!(at(2, 16), (false, 0, true, false, 0));
        // Rows of 12 elements (24 bytes) apart are not all aligned: plain copies throughout.
        let m = matrix(&data, 5, 12, 12);
        let s = Source::matrix(&m, 1, 8);
        assert_eq!(summary(s, m.as_ptr()), (true, 4, false, false, 20));
    }

    #[test]
    fn an_empty_matrix_or_a_misaligned_base_is_copied_plainly() {
        let data = aligned();
        let empty = matrix(&data[..0], 0, 0, 0);
        assert_eq!(
            summary(Source::matrix(&empty, 0, 0), empty.as_ptr()),
            (false, 0, false, true, 0)
        );
        // SAFETY: 63 elements from the second, inside `data`; the 7 × 8 shape fits in them.
        let odd =
            unsafe { Matrix::from_raw_parts(data.as_ptr().cast::<bf16>().add(1), 63, 8, 8, 7) };
        let s = Source::matrix(&odd, 0, 0);
        assert!(s.inside && !s.asynchronous);
    }

    /// `read` gives the chunk's elements and zeros past its source, whole or in part.
    #[test]
    fn a_chunk_reads_as_its_elements_and_zeros() {
        let mut data = aligned();
        for (i, chunk) in data.iter_mut().enumerate() {
            chunk.0 = core::array::from_fn(|e| bf16::from_f32((8 * i + e) as f32));
        }
        let values = |s: Source<'_, bf16>| s.read().0.map(|e| e.to_f32() as usize);
        let m = matrix(&data, 4, 16, 16);
        assert_eq!(
            values(Source::matrix(&m, 3, 8)),
            core::array::from_fn(|e| 56 + e)
        );
        assert_eq!(values(Source::matrix(&m, 4, 0)), [0; 8]);
        // Rows of 12 of 16: the last chunk in part, the rest zeros.
        let m = matrix(&data, 4, 12, 16);
        let want: [usize; 8] = core::array::from_fn(|e| if e < 4 { 40 + e } else { 0 });
        assert_eq!(values(Source::matrix(&m, 2, 8)), want);
        // Rows 12 apart (not aligned): element by element.
        let m = matrix(&data, 5, 12, 12);
        assert_eq!(
            values(Source::matrix(&m, 1, 0)),
            core::array::from_fn(|e| 12 + e)
        );
        assert_eq!(values(Source::zeros()), [0; 8]);
    }

    #[test]
    fn a_slice_chunk_is_its_elements_up_to_the_end() {
        let data = aligned();
        // SAFETY: the 64 bf16 of `data`, borrowed with it.
        let all: &[bf16] = unsafe { core::slice::from_raw_parts(data.as_ptr().cast(), 64) };
        let slice = &all[..20];
        let base = slice.as_ptr();
        let at = |start| summary(Source::chunk(slice, start), base);
        assert_eq!(at(8), (true, 8, true, false, 8));
        assert_eq!(at(16), (true, 4, true, false, 16));
        assert_eq!(at(20), (false, 0, true, false, 0));
        assert_eq!(at(3), (true, 8, false, false, 3));
        assert_eq!(at(usize::MAX), (false, 0, true, false, 0));
        let zeros = Source::<bf16>::zeros();
        assert!(!zeros.inside && !zeros.asynchronous && zeros.available() == 0);
    }

    /// A tile is whole where all its rows and chunks lie inside an aligned matrix from a
    /// chunk's boundary, and nowhere else; its chunks' addresses are the matrix's elements.
    #[test]
    fn a_tile_is_whole_only_wholly_inside() {
        let data = aligned();
        // 4 rows of 16 columns (two chunks a row), pitch 16.
        let m = matrix(&data, 4, 16, 16);
        let base = m.as_ptr();
        let whole =
            |row, col, rows, chunks| TileSource::matrix(&m, row, col).is_whole(rows, chunks);
        assert!(whole(0, 0, 4, 2));
        assert!(whole(2, 8, 2, 1));
        assert!(!whole(1, 0, 4, 2), "a row past the matrix");
        assert!(!whole(0, 8, 4, 2), "a chunk past the columns");
        assert!(!whole(0, 4, 1, 1), "a column inside a chunk");
        assert!(!whole(usize::MAX, 0, 1, 1));
        assert!(!whole(0, usize::MAX - 7, 1, 1));
        assert!(!TileSource::<bf16>::zeros().is_whole(1, 1));
        let t = TileSource::matrix(&m, 1, 8);
        assert_eq!(t.first_of(0, 0).addr() - base.addr(), 2 * (16 + 8));
        assert_eq!(t.first_of(2, 0).addr() - base.addr(), 2 * (3 * 16 + 8));
        // A padded matrix (12 columns of 16): its second chunk is not whole.
        let padded = matrix(&data, 4, 12, 16);
        assert!(TileSource::matrix(&padded, 0, 0).is_whole(4, 1));
        assert!(!TileSource::matrix(&padded, 0, 0).is_whole(4, 2));
    }

    /// At the edge a tile's chunks are the chunk sources of their positions, zeros where the
    /// position overflows.
    #[test]
    fn an_edge_tile_is_copied_as_its_chunks() {
        let data = aligned();
        let m = matrix(&data, 4, 12, 16);
        let base = m.as_ptr();
        let t = TileSource::matrix(&m, 2, 0);
        for (row, chunk) in [(0, 0), (0, 1), (1, 1), (2, 0), (3, 2)] {
            assert_eq!(
                summary(t.chunk(row, chunk), base),
                summary(Source::matrix(&m, 2 + row, 8 * chunk), base),
                "({row}, {chunk})"
            );
        }
        let far = TileSource::matrix(&m, usize::MAX, 0);
        assert_eq!(summary(far.chunk(1, 0), base), (false, 0, true, false, 0));
    }
}
