//! Read-only kernel inputs with a shape: [`Matrix`], a buffer read as a 2-D array whose shape
//! the host checked once, at the launch, so that each load tests the position only.
//!
//! A `&[T]` indexed as `a[row * ld + col]` tests the index against the length on every load
//! (a 64-bit compare and a trap, or a select with `get`), and still lets a position outside the
//! matrix read some other element of it (`col >= ld`). A [`Matrix`] knows its rows, columns and
//! pitch: `get(row, col)` is `row < rows && col < cols` and then a load that cannot fail, as
//! CUDA's `row < n && col < n ? a[row * ld + col] : 0`.

use core::marker::PhantomData;

use oxide_contract::{ParamAbi, SliceAccess};

/// A read-only matrix of `rows × cols` elements in a buffer of `len` elements, row `r` starting
/// at element `r · pitch`, which every thread of the launch reads: CUDA's `const T* a` indexed
/// as `a[row * ld + col]`, with its shape.
///
/// The host passes `MatrixShape::new(&buf, rows, cols)?` (or `::with_pitch`), which checks that
/// `cols <= pitch` and that the last row ends within the buffer (`(rows - 1) · pitch + cols <=
/// len` when `rows > 0`, without overflow: `oxide_contract::matrix_fits`). Every position
/// inside the matrix is then an element of the buffer, so [`get`](Self::get) and
/// [`row`](Self::row) test the position only.
///
/// Like a `&[T]` it is a shared borrow of its buffer for the launch (`'a`): it may alias other
/// read-only inputs, never an output (the host lends the buffer with `&`, an output with `&mut`).
/// It is not `Copy` (a kernel parameter that is `Copy` would be keyed as a value); helpers take
/// `&Matrix<T>`, and what [`get`](Self::get) returns borrows the buffer, not the `Matrix`.
///
/// Layout (the backend and the launcher rely on it, see docs/contracts.md): `#[repr(C)]`, the
/// data pointer, the element count, then the shape words `cols`, `pitch`, `rows`, each
/// pointer-sized; the marker is zero-sized.
#[repr(C)]
pub struct Matrix<'a, T> {
    ptr: *const T,
    len: usize,
    // The shape words, in the order of the launch's parameters (as the 2-D outputs' width,
    // pitch and rows), each its own field: the backend checks that a slice parameter's fields
    // are the pointer, the length and one pointer-sized word per shape word.
    cols: usize,
    pitch: usize,
    rows: usize,
    _marker: PhantomData<&'a [T]>,
}

impl<T> crate::param::sealed::Sealed for Matrix<'_, T> {}

/// A shared slice with three shape words: `cols`, `pitch`, `rows`.
impl<T> crate::KernelParam for Matrix<'_, T> {
    const ABI: ParamAbi = ParamAbi::Slice {
        access: SliceAccess::Shared,
        words: 3,
    };
}

impl<T> crate::param::MeasuredParam for Matrix<'_, T> {}

impl<'a, T: 'a> crate::ParamKey<'a> for fn(Matrix<'_, T>) {
    type Param = Matrix<'a, T>;
}

impl<'a, T> Matrix<'a, T> {
    /// Wraps the `rows × cols` matrix, rows `pitch` apart, in the `len` elements at `ptr`, for
    /// `'a`. Kernels never call this: their arguments are built by the launch. It exists for
    /// the host emulator and for tests.
    ///
    /// # Safety
    /// `ptr` is valid for reads of `len` elements of `T` for `'a`, which nothing writes
    /// meanwhile (but through interior mutability); `cols <= pitch` and, if `rows > 0`,
    /// `(rows - 1) · pitch + cols <= len` without overflow (`oxide_contract::matrix_fits`).
    #[inline]
    pub unsafe fn from_raw_parts(
        ptr: *const T,
        len: usize,
        cols: usize,
        pitch: usize,
        rows: usize,
    ) -> Self {
        Matrix {
            ptr,
            len,
            cols,
            pitch,
            rows,
            _marker: PhantomData,
        }
    }

    len_methods!("of the whole buffer (padding included)");

    /// The buffer's first element, for the library's copies of whole chunks of rows
    /// (`Source::matrix`).
    #[inline]
    pub(crate) fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Elements per row.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Elements from the start of one row to the start of the next (the columns, unless the
    /// rows are padded).
    #[inline]
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// The element at `(row, col)`, or `None` outside the matrix (`row >= rows()` or
    /// `col >= cols()`; a column past `cols()` is `None` even where the pitch's padding holds
    /// an element).
    #[inline]
    pub fn get(&self, row: usize, col: usize) -> Option<&'a T> {
        if row < self.rows && col < self.cols {
            // SAFETY: `row <= rows - 1` and `col < cols`, so `row · pitch + col < (rows - 1) ·
            // pitch + cols <= len`, which the host checked without overflow when it built the
            // argument (`MatrixShape::with_pitch`, `oxide_contract::matrix_fits`): an element
            // of the buffer, computed without overflow, that the launch lends shared.
            // Unchecked arithmetic (`nuw`) for the same reason: LLVM then knows the address
            // does not wrap and folds the `Option`'s null test (`element_mut` in outputs).
            Some(unsafe {
                crate::element::element(self.ptr, row.unchecked_mul(self.pitch).unchecked_add(col))
            })
        } else {
            None
        }
    }

    /// The element at `(row, col)`, or `outside` where [`get`](Self::get) is `None`: CUDA's
    /// `row < rows && col < cols ? a[row * ld + col] : 0`. The same test and load as `get`,
    /// without a reference in between: the load is a predicated one where `get(..).copied()
    /// .unwrap_or(..)` left a test of the reference against null, and a branch, when LLVM had
    /// optimised the caller before it could see the buffer's pointer is not null (a closure of
    /// a shared phase's `init`, kernels/transpose).
    #[inline]
    pub fn get_or(&self, row: usize, col: usize, outside: T) -> T
    where
        T: Copy,
    {
        if row < self.rows && col < self.cols {
            // SAFETY: as in `get`.
            unsafe {
                *self
                    .ptr
                    .add(row.unchecked_mul(self.pitch).unchecked_add(col))
            }
        } else {
            outside
        }
    }

    /// Row `row`'s `cols()` elements (without the padding), or `None` past the last row.
    #[inline]
    pub fn row(&self, row: usize) -> Option<&'a [T]> {
        if row < self.rows {
            // SAFETY: as in `get`: the row's elements `row · pitch .. row · pitch + cols` end
            // at or before `(rows - 1) · pitch + cols <= len`, the host's check.
            Some(unsafe {
                core::slice::from_raw_parts(self.ptr.add(row.unchecked_mul(self.pitch)), self.cols)
            })
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 3 × 4 matrix in rows 6 apart over `0..16`: its last row ends at 16, with no padding
    /// after it.
    fn padded(data: &[u32]) -> Matrix<'_, u32> {
        assert!(oxide_contract::matrix_fits(data.len() as u64, 3, 4, 6));
        // SAFETY: `data` is borrowed for the matrix's life; the shape fits (checked above).
        unsafe { Matrix::from_raw_parts(data.as_ptr(), data.len(), 4, 6, 3) }
    }

    #[test]
    fn positions_inside_load_and_outside_are_none() {
        let data: Vec<u32> = (0..16).collect();
        let m = padded(&data);
        assert_eq!((m.rows(), m.cols(), m.pitch(), m.len()), (3, 4, 6, 16));
        for row in 0..3 {
            for col in 0..4 {
                assert_eq!(m.get(row, col).copied(), Some((row * 6 + col) as u32));
            }
        }
        // The padding (columns 4 and 5) and the positions past the rows are nobody's.
        for (row, col) in [
            (0, 4),
            (0, 5),
            (2, 4),
            (3, 0),
            (usize::MAX, 0),
            (0, usize::MAX),
        ] {
            assert_eq!(m.get(row, col), None, "({row}, {col})");
        }
    }

    #[test]
    fn get_or_is_get_with_a_default() {
        let data: Vec<u32> = (0..16).collect();
        let m = padded(&data);
        for row in [0, 1, 2, 3, usize::MAX] {
            for col in [0, 3, 4, 5, usize::MAX] {
                assert_eq!(
                    m.get_or(row, col, 99),
                    m.get(row, col).copied().unwrap_or(99),
                    "({row}, {col})"
                );
            }
        }
        assert_eq!(m.get_or(2, 3, 99), 15);
        assert_eq!(m.get_or(0, 4, 99), 99);
    }

    #[test]
    fn rows_are_their_columns_without_the_padding() {
        let data: Vec<u32> = (0..16).collect();
        let m = padded(&data);
        assert_eq!(m.row(0), Some(&[0, 1, 2, 3][..]));
        assert_eq!(m.row(2), Some(&[12, 13, 14, 15][..]));
        assert_eq!(m.row(3), None);
        // The elements outlive the view they were read through: they borrow the buffer.
        let first = padded(&data).get(0, 1);
        assert_eq!(first, Some(&1));
    }
}
