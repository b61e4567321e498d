//! [`MatrixShape`]: a buffer read as a matrix, what a launch or an emulation passes for a
//! kernel's read-only `Matrix<T>` input.

use crate::ShapeError;

/// A buffer lent shared and read as `rows × cols` elements, row `r` from element `r · pitch`:
/// pass `MatrixShape::new(&buf, rows, cols)?` to a launch (`&DeviceBuffer<T>`, `&DeviceView<T>`)
/// or to an emulation (`&[T]`) for a kernel's `Matrix<T>`. The shape is checked here, once, so
/// that the kernel's loads test their position only (`oxide_contract::matrix_fits`).
pub struct MatrixShape<B> {
    buf: B,
    rows: usize,
    cols: usize,
    pitch: usize,
    /// The columns, the pitch and the rows as the kernel's `u64` parameters, in the order of
    /// `Matrix::from_raw_parts`; they live here so that the parameter pointers stay valid for
    /// the launch.
    words: [u64; 3],
}

/// What a [`MatrixShape`] can hold: a buffer borrowed shared, a device buffer or view
/// (oxide-host implements it for `&DeviceBuffer<T>`, `&DeviceView<T>` and `&DeviceViewMut<T>`)
/// or a host slice. Only oxide's own storages are what a launch or an emulation takes (their
/// `LaunchArg`/`EmulatorArg` impls), so another implementation makes a `MatrixShape` nothing
/// can be launched with.
pub trait MatrixStorage {
    /// Number of elements.
    fn elements(&self) -> usize;
}

impl<T> MatrixStorage for &[T] {
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<B: MatrixStorage> MatrixShape<B> {
    /// `buf` as `rows` rows of `cols` elements, one after another (the pitch is `cols`). Fails
    /// with [`ShapeError::BadMatrix`] unless `rows · cols <= len`.
    pub fn new(buf: B, rows: usize, cols: usize) -> Result<Self, ShapeError> {
        Self::with_pitch(buf, rows, cols, cols)
    }

    /// `buf` as `rows` rows of `cols` elements, each starting `pitch` elements after the
    /// previous one (CUDA's leading dimension `ld`: a matrix in the top-left corner of a wider
    /// one, or pitched 2-D memory). Fails with [`ShapeError::BadMatrix`] unless
    /// `cols <= pitch` and, when `rows > 0`, `(rows - 1) · pitch + cols <= len`, each without
    /// overflow.
    pub fn with_pitch(buf: B, rows: usize, cols: usize, pitch: usize) -> Result<Self, ShapeError> {
        let len = buf.elements();
        if !oxide_contract::matrix_fits(len as u64, rows as u64, cols as u64, pitch as u64) {
            return Err(ShapeError::BadMatrix {
                len,
                rows,
                cols,
                pitch,
            });
        }
        Ok(MatrixShape {
            buf,
            rows,
            cols,
            pitch,
            words: [cols, pitch, rows].map(|w| w as u64),
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Elements per row.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Elements from the start of one row to the start of the next.
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// The buffer and the kernel's shape words (`cols`, `pitch`, `rows`), for the launchers.
    /// The buffer is borrowed shared, so nothing can resize it behind the checked words.
    #[doc(hidden)]
    pub fn parts(&self) -> (&B, &[u64; 3]) {
        (&self.buf, &self.words)
    }

    /// The buffer.
    pub fn into_inner(self) -> B {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_fits_its_buffer_or_is_refused() {
        let data = [0u8; 16];
        let m = MatrixShape::new(&data[..], 4, 4).unwrap();
        assert_eq!((m.rows(), m.cols(), m.pitch()), (4, 4, 4));
        assert_eq!(m.parts().1, &[4, 4, 4]);
        // Rows 6 apart: the last of 3 starts at 12 and its 4 columns end at 16, the length;
        // the pitch need not divide it.
        let m = MatrixShape::with_pitch(&data[..], 3, 4, 6).unwrap();
        assert_eq!(m.parts().1, &[4, 6, 3]);
        assert_eq!(m.into_inner().len(), 16);
        // Fewer rows than the buffer holds, and no rows at all, fit.
        assert!(MatrixShape::new(&data[..], 2, 5).is_ok());
        assert_eq!(MatrixShape::new(&[0u8; 0][..], 0, 5).unwrap().rows(), 0);
        let e = MatrixShape::new(&data[..], 3, 6).err().unwrap();
        assert_eq!(
            e,
            ShapeError::BadMatrix {
                len: 16,
                rows: 3,
                cols: 6,
                pitch: 6
            }
        );
        assert_eq!(
            e.to_string(),
            "a buffer of 16 elements cannot be read as a matrix of 3 rows of 6 elements, 6 \
             apart: the columns must be at most the pitch, and the last row must end within the \
             buffer ((rows - 1) * pitch + cols <= 16)"
        );
        // Columns past the pitch would read the next row's elements as this row's.
        assert!(MatrixShape::with_pitch(&data[..], 2, 5, 4).is_err());
        // One row past the end.
        assert!(MatrixShape::with_pitch(&data[..], 4, 4, 5).is_err());
        assert!(MatrixShape::new(&[0u8; 0][..], 1, 1).is_err());
    }

    /// The check is exact at the extremes: a product or a sum past `usize` is refused, never
    /// wrapped into a small end (a buffer of `usize::MAX` zero-sized elements).
    #[test]
    fn overflow_is_refused() {
        let huge = [(); usize::MAX];
        let max = usize::MAX;
        assert!(MatrixShape::with_pitch(&huge[..], 1 << 33, 1, 1 << 32).is_err());
        assert!(MatrixShape::with_pitch(&huge[..], 2, max, max).is_err());
        assert!(MatrixShape::with_pitch(&huge[..], 1, max, max).is_ok());
        assert!(MatrixShape::new(&huge[..], max, 1).is_ok());
        // 2^32 · 2^32 wraps to 0 in u64: refused.
        assert!(MatrixShape::new(&[0u8; 4][..], 1 << 32, 1 << 32).is_err());
    }
}
