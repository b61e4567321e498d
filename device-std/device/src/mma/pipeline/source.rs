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
        let (base, size) = (matrix.as_ptr(), core::mem::size_of::<E>());
        let inside = row < matrix.rows() && col < matrix.cols();
        let first = if inside {
            // SAFETY: `row < rows` and `col < cols`: an element of the buffer, its offset
            // computed without overflow (the host's check of the shape; `Matrix::get`).
            base.wrapping_add(unsafe { row.unchecked_mul(matrix.pitch()).unchecked_add(col) })
        } else {
            base
        };
        // Each test but the column's is of the matrix alone: made once, outside the loops.
        let aligned_rows = !matrix.is_empty()
            && base.addr().is_multiple_of(16)
            && (matrix.pitch() * size).is_multiple_of(16)
            && is_global(base.cast());
        Source {
            first,
            inside,
            left: matrix.cols().wrapping_sub(col),
            asynchronous: aligned_rows && (col * size).is_multiple_of(16),
            // Rows of whole chunks: a chunk that starts at a multiple of 8 inside ends inside.
            whole: (matrix.cols() * size).is_multiple_of(16) && (col * size).is_multiple_of(16),
            _source: PhantomData,
        }
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

    /// How many of the 8 elements exist (0 to 8).
    #[inline]
    pub(super) fn available(&self) -> usize {
        if self.inside { self.left.min(8) } else { 0 }
    }
}
