//! [`Rows`]: a buffer seen as rows of one width, or a rectangle of them, what a launch or an
//! emulation passes for a kernel's 2-D output (`DisjointRows<T>`, `WarpRows<T>`,
//! `BlockTiles<T, R, C>`); [`Pairs`]: a buffer seen as pairs of elements a power of two apart,
//! for `DisjointPairs<T>`.

use core::ops::Range;

/// A shape its buffer cannot have: what [`Rows::new`], [`Rows::with_pitch`], [`Rows::rect`],
/// [`Pairs::new`] and [`crate::MatrixShape::with_pitch`] refuse (oxide-host's `Error::Shape`
/// holds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A width of 0 or above the pitch, or a pitch that does not divide the buffer's length.
    #[error(
        "a buffer of {len} elements cannot be seen as rows of {width} elements, {pitch} apart: \
         the width must be at least 1 and at most the pitch, which must divide the length"
    )]
    BadRows {
        /// The buffer's length.
        len: usize,
        /// The width asked for.
        width: usize,
        /// The pitch asked for (the width, for `Rows::new`).
        pitch: usize,
    },
    /// A rectangle that is empty or not within the rows it is cut from.
    #[error(
        "rows {}..{} and columns {}..{} are not a rectangle of an output of {} rows of {} \
         columns: a rectangle must have at least one row and one column, and end within the \
         output",
        rows.0, rows.1, cols.0, cols.1, within.0, within.1
    )]
    BadRect {
        /// The rows asked for, `(start, end)`.
        rows: (usize, usize),
        /// The columns asked for, `(start, end)`.
        cols: (usize, usize),
        /// The rows and the width of the output the rectangle was cut from.
        within: (usize, usize),
    },
    /// A matrix whose rows do not fit in its buffer, or whose rows overlap.
    #[error(
        "a buffer of {len} elements cannot be read as a matrix of {rows} rows of {cols} \
         elements, {pitch} apart: the columns must be at most the pitch, and the last row must \
         end within the buffer ((rows - 1) * pitch + cols <= {len})"
    )]
    BadMatrix {
        /// The buffer's length.
        len: usize,
        /// The rows asked for.
        rows: usize,
        /// The columns asked for.
        cols: usize,
        /// The pitch asked for (the columns, for `MatrixShape::new`).
        pitch: usize,
    },
    /// A distance that is not a power of two.
    #[error(
        "pairs of elements {distance} apart cannot partition a buffer: the distance of a \
         compare-exchange network's pairs must be a power of two (1, 2, 4, ...)"
    )]
    BadPairs {
        /// The distance asked for.
        distance: usize,
    },
}

/// The shape of a 2-D output as its launch passes it: what a `requires` condition reads as
/// `out.width()`, `out.pitch()`, `out.rows()` and `out.origin()` (the output's own accessors,
/// on the host), made from the words [`Rows`] checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowShape {
    width: usize,
    pitch: usize,
    rows: usize,
    origin: (usize, usize),
}

impl RowShape {
    /// The shape of the words `[width, pitch, rows, top, left]` (a [`Rows`]'s, in the order the
    /// kernel's parameters take them); the default shape for other words, which no row
    /// output's launch passes.
    pub fn from_words<W: Copy + TryInto<usize>>(words: &[W]) -> RowShape {
        let word = |w: W| w.try_into().unwrap_or(usize::MAX);
        match *words {
            [width, pitch, rows, top, left] => RowShape {
                width: word(width),
                pitch: word(pitch),
                rows: word(rows),
                origin: (word(top), word(left)),
            },
            _ => RowShape::default(),
        }
    }

    /// Elements per row of the output.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Elements from the start of one row of the buffer to the start of the next.
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// Rows of the output.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The `(row, col)` in the buffer of the output's first element.
    pub fn origin(&self) -> (usize, usize) {
        self.origin
    }
}

/// A buffer of `len` elements seen as `len / width` rows of `width`: pass
/// `Rows::new(&mut buf, width)?` to a launch (`&mut DeviceBuffer<T>`) or to an emulation
/// (`&mut [T]`) for a kernel's 2-D output; `.rect(rows, cols)?` lends only a rectangle of it.
/// The shape is the launch's: every thread of the kernel sees the same, which is what makes
/// the output's ownership rule a partition.
pub struct Rows<B> {
    buf: B,
    shape: RowShape,
    /// The width, the pitch, the rows and the origin's row and column as the kernel's `u64`
    /// parameters, in the order of the outputs' `from_raw_parts`; they live here so that the
    /// parameter pointers stay valid for the launch.
    words: [u64; 5],
}

/// What [`Rows`] (`Pairs`, `Wave`) can hold: a device buffer (oxide-host implements it for
/// `&mut DeviceBuffer<T>`) or a host slice, borrowed mutably. Only oxide's own storages are
/// what a launch or an emulation takes (their `LaunchArg`/`EmulatorArg` impls), so another
/// implementation makes a `Rows` nothing can be launched with.
pub trait RowStorage {
    /// Number of elements.
    fn elements(&self) -> usize;
}

impl<T> RowStorage for &mut [T] {
    fn elements(&self) -> usize {
        self.len()
    }
}

/// The buffer and the shape words of a [`Rows`], [`Pairs`] or [`Wave`], for the launchers that
/// pass them (the words as the kernel's `u64` parameters, valid for as long as the value).
#[doc(hidden)]
pub trait ShapedStorage<B, const N: usize> {
    /// The buffer and the words.
    ///
    /// # Safety
    /// The caller does not replace or resize the storage through the `&mut B`: the words were
    /// checked against its length, and the outputs' rules rely on them.
    unsafe fn parts_mut(&mut self) -> (&mut B, &[u64; N]);
    /// The buffer.
    fn storage(&self) -> &B;
    /// The words.
    fn words(&self) -> &[u64; N];
}

macro_rules! shaped_storage {
    ($($shape:ident[$n:literal]),*) => {$(
        impl<B> ShapedStorage<B, $n> for $shape<B> {
            unsafe fn parts_mut(&mut self) -> (&mut B, &[u64; $n]) {
                (&mut self.buf, &self.words)
            }
            fn storage(&self) -> &B {
                &self.buf
            }
            fn words(&self) -> &[u64; $n] {
                &self.words
            }
        }
    )*};
}

shaped_storage!(Rows[5], Pairs[1], Wave[2]);

impl<B: RowStorage> Rows<B> {
    /// `buf` as rows of `width` elements. Fails with [`ShapeError::BadRows`] unless `width` is at
    /// least 1 and divides the buffer's length.
    pub fn new(buf: B, width: usize) -> Result<Self, ShapeError> {
        Self::with_pitch(buf, width, width)
    }

    /// `buf` as rows of `width` elements, each starting `pitch` elements after the previous one
    /// (CUDA's pitched 2-D memory: the columns from `width` to `pitch` are padding that the
    /// kernel's output does not write). Fails with [`ShapeError::BadRows`] unless
    /// `1 <= width <= pitch` and `pitch` divides the buffer's length.
    pub fn with_pitch(buf: B, width: usize, pitch: usize) -> Result<Self, ShapeError> {
        let len = buf.elements();
        if !oxide_contract::rows_fit(len as u64, width as u64, pitch as u64) {
            return Err(ShapeError::BadRows { len, width, pitch });
        }
        Ok(Self::shaped(buf, width, pitch, len / pitch, (0, 0)))
    }

    /// Only rows `rows` and columns `cols` of these rows (relative to them: a rectangle of a
    /// rectangle is one too), as the kernel's output: the interior of a padded grid is
    /// `Rows::new(&mut grid, w)?.rect(1..h - 1, 1..w - 1)?`. The kernel's output then has
    /// `rows.len()` rows of `cols.len()` elements, its positions the rectangle's (element
    /// `(0, 0)` is the rectangle's first, which `origin()` says where in the buffer), and no
    /// thread can write an element outside it. The rectangle may start at any element: the
    /// kernel gets the buffer's own (aligned) pointer and adds the origin. Fails with
    /// [`ShapeError::BadRect`] unless the rectangle has at least one row and one column and
    /// ends within these rows.
    pub fn rect(self, rows: Range<usize>, cols: Range<usize>) -> Result<Self, ShapeError> {
        let RowShape {
            width,
            pitch,
            rows: height,
            origin,
        } = self.shape;
        let fits = oxide_contract::rect_within(
            (height as u64, width as u64),
            rows.start as u64..rows.end as u64,
            cols.start as u64..cols.end as u64,
        );
        if !fits {
            return Err(ShapeError::BadRect {
                rows: (rows.start, rows.end),
                cols: (cols.start, cols.end),
                within: (height, width),
            });
        }
        // Within the rows already checked, so neither sum overflows.
        let origin = (origin.0 + rows.start, origin.1 + cols.start);
        Ok(Self::shaped(
            self.buf,
            cols.len(),
            pitch,
            rows.len(),
            origin,
        ))
    }

    /// The value for a shape that was checked: `rows × width` elements from `origin` of `buf`,
    /// rows `pitch` apart.
    fn shaped(buf: B, width: usize, pitch: usize, rows: usize, origin: (usize, usize)) -> Self {
        Rows {
            buf,
            shape: RowShape {
                width,
                pitch,
                rows,
                origin,
            },
            words: [width, pitch, rows, origin.0, origin.1].map(|w| w as u64),
        }
    }

    /// The output's shape: its width and rows (the rectangle's, after [`Rows::rect`]), the
    /// buffer's pitch, and where in the buffer its first element is (`(0, 0)` but after
    /// [`Rows::rect`]).
    pub fn shape(&self) -> RowShape {
        self.shape
    }

    /// The buffer.
    pub fn into_inner(self) -> B {
        self.buf
    }
}

/// A buffer seen as the pairs `(lo, lo + distance)` of a compare-exchange network (bit
/// `distance` clear in `lo`): pass `Pairs::new(&mut buf, distance)?` to a launch or an
/// emulation for a kernel's `DisjointPairs<T>`. The distance is the launch's, the same for every
/// thread, which is what makes the pairs a partition. It travels in the kernel's parameters as
/// a row width does (docs/contracts.md).
pub struct Pairs<B> {
    buf: B,
    distance: usize,
    /// The distance as the kernel's `u64` parameter, valid for the launch.
    words: [u64; 1],
}

impl<B: RowStorage> Pairs<B> {
    /// `buf` as pairs `distance` apart. Fails with [`ShapeError::BadPairs`] unless `distance` is a
    /// power of two.
    pub fn new(buf: B, distance: usize) -> Result<Self, ShapeError> {
        if !oxide_contract::pairs_distance_fits(distance as u64) {
            return Err(ShapeError::BadPairs { distance });
        }
        Ok(Pairs {
            buf,
            distance,
            words: [distance as u64],
        })
    }

    /// How far apart the two elements of a pair are.
    pub fn distance(&self) -> usize {
        self.distance
    }

    /// The buffer.
    pub fn into_inner(self) -> B {
        self.buf
    }
}

/// A buffer of rows of `width` in the launch of wave `wave` of an anti-diagonal wavefront: pass
/// `Wave::new(&mut buf, width, d)?` for a kernel's `WaveTiles<T, R, C>`, one launch per wave
/// `d = 0, 1, ...` (tiles with tile row + tile column `= d`).
pub struct Wave<B> {
    buf: B,
    width: usize,
    wave: usize,
    /// The width and the wave as the kernel's `u64` parameters, valid for the launch.
    words: [u64; 2],
}

impl<B: RowStorage> Wave<B> {
    /// `buf` as rows of `width` in wave `wave`. Fails with [`ShapeError::BadRows`] unless `width` is
    /// at least 1 and divides the buffer's length.
    pub fn new(buf: B, width: usize, wave: usize) -> Result<Self, ShapeError> {
        let len = buf.elements();
        if !oxide_contract::rows_fit(len as u64, width as u64, width as u64) {
            return Err(ShapeError::BadRows {
                len,
                width,
                pitch: width,
            });
        }
        Ok(Wave {
            buf,
            width,
            wave,
            words: [width as u64, wave as u64],
        })
    }

    /// Elements per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The wave.
    pub fn wave(&self) -> usize {
        self.wave
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
    fn pairs_are_a_power_of_two_apart() {
        let mut data = [0u8; 12];
        assert_eq!(Pairs::new(&mut data[..], 4).unwrap().distance(), 4);
        assert_eq!(Pairs::new(&mut data[..], 16).unwrap().distance(), 16);
        for distance in [0, 3, 6] {
            let e = Pairs::new(&mut data[..], distance).err().unwrap();
            assert!(matches!(e, ShapeError::BadPairs { distance: d } if d == distance));
        }
    }

    #[test]
    fn the_width_must_divide_the_length() {
        let mut data = [0u8; 12];
        let rows = Rows::new(&mut data[..], 4).unwrap();
        assert_eq!((rows.shape().width(), rows.shape().rows()), (4, 3));
        for width in [0, 5, 13] {
            let e = Rows::new(&mut data[..], width).err().unwrap();
            assert_eq!(
                e.to_string(),
                format!(
                    "a buffer of 12 elements cannot be seen as rows of {width} elements, {width} \
                     apart: the width must be at least 1 and at most the pitch, which must divide \
                     the length"
                )
            );
        }
        let padded = Rows::with_pitch(&mut data[..], 5, 6).unwrap();
        assert_eq!(
            (
                padded.shape().width(),
                padded.shape().pitch(),
                padded.shape().rows()
            ),
            (5, 6, 2)
        );
        assert!(Rows::with_pitch(&mut data[..], 7, 6).is_err());
        assert!(Rows::with_pitch(&mut data[..], 4, 5).is_err());
        assert_eq!(Rows::new(&mut [0u8; 0][..], 3).unwrap().shape().rows(), 0);
    }

    #[test]
    #[expect(
        clippy::reversed_empty_ranges,
        reason = "a reversed range is one of the bad rectangles"
    )]
    fn rectangles_are_non_empty_and_inside_their_rows() {
        // A 10 x 12 grid in rows 16 apart: its interior, then the interior of that.
        let mut data = [0u8; 160];
        let interior = Rows::with_pitch(&mut data[..], 12, 16)
            .unwrap()
            .rect(1..9, 1..11)
            .unwrap();
        let shape = |r: &Rows<&mut [u8]>| {
            (
                r.shape().rows(),
                r.shape().width(),
                r.shape().pitch(),
                r.shape().origin(),
            )
        };
        assert_eq!(shape(&interior), (8, 10, 16, (1, 1)));
        let inner = interior.rect(2..3, 4..10).unwrap();
        assert_eq!(shape(&inner), (1, 6, 16, (3, 5)));
        // The kernel's words: width, pitch, rows, origin.
        assert_eq!(inner.words, [6, 16, 1, 3, 5]);
        assert_eq!(
            Rows::new(&mut data[..], 16).unwrap().words,
            [16, 16, 10, 0, 0]
        );
        for (rows, cols) in [
            (1..1, 1..11),
            (1..9, 5..5),
            (3..2, 1..11),
            (1..11, 1..11),
            (1..9, 0..13),
        ] {
            let e = Rows::with_pitch(&mut data[..], 12, 16)
                .unwrap()
                .rect(rows.clone(), cols.clone())
                .err()
                .unwrap();
            assert_eq!(
                e,
                ShapeError::BadRect {
                    rows: (rows.start, rows.end),
                    cols: (cols.start, cols.end),
                    within: (10, 12)
                }
            );
        }
        // Relative to the rectangle it is cut from, not to the buffer: 8 rows, not 10.
        let e = Rows::new(&mut data[..], 16)
            .unwrap()
            .rect(1..9, 1..15)
            .unwrap();
        assert!(e.rect(0..9, 0..1).is_err());
        let e = Rows::new(&mut data[..], 16)
            .unwrap()
            .rect(0..0, 0..16)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "rows 0..0 and columns 0..16 are not a rectangle of an output of 10 rows of 16 \
             columns: a rectangle must have at least one row and one column, and end within the \
             output"
        );
        assert!(
            Rows::new(&mut [0u8; 0][..], 3)
                .unwrap()
                .rect(0..1, 0..1)
                .is_err()
        );
    }

    /// The checks hold at the extremes (issue 18, hole 2, where the kernel's side wrapped): a
    /// buffer of `usize::MAX` zero-sized elements, the widest rows, pitches and distances.
    /// Nothing here multiplies, so nothing can wrap; each check is exactly its rule.
    #[test]
    fn the_checks_hold_at_the_extremes() {
        let mut huge = [(); usize::MAX];
        let max = usize::MAX;
        // usize::MAX = 3 · 5 · 17 · 257 · 641 · 65537 · 6700417: odd, a multiple of 5.
        for (width, pitch, ok) in [
            (max, max, true),
            (1, max, true),
            (3, 5, true),
            (5, 5, true),
            (1, 1, true),
            (2, 2, false),
            (max, 5, false),
            (1 << 63, 1 << 63, false),
            (0, max, false),
        ] {
            let rows = Rows::with_pitch(&mut huge[..], width, pitch);
            assert_eq!(rows.is_ok(), ok, "{width} / {pitch}");
            if let Ok(rows) = rows {
                assert_eq!(rows.shape().rows(), max / pitch);
            }
        }
        // The last element of the largest buffer alone, and all of it but the first row and
        // column: nothing adds past what the rows already hold.
        let rows = Rows::new(&mut huge[..], 5).unwrap();
        let last = rows.rect(max / 5 - 1..max / 5, 4..5).unwrap();
        assert_eq!(
            (
                last.shape().rows(),
                last.shape().width(),
                last.shape().origin()
            ),
            (1, 1, (max / 5 - 1, 4))
        );
        let rows = Rows::with_pitch(&mut huge[..], max, max).unwrap();
        let corner = rows.rect(0..1, 1..max).unwrap();
        assert_eq!(
            (corner.shape().width(), corner.shape().origin()),
            (max - 1, (0, 1))
        );
        let rows = Rows::new(&mut huge[..], 1).unwrap();
        assert!(rows.rect(1..max, 0..1).is_ok());
        let rows = Rows::new(&mut huge[..], 1).unwrap();
        assert!(rows.rect(0..max, 1..2).is_err());
        for (distance, ok) in [
            (1, true),
            (1 << 63, true),
            ((1 << 63) + 1, false),
            (max, false),
        ] {
            assert_eq!(
                Pairs::new(&mut huge[..], distance).is_ok(),
                ok,
                "{distance}"
            );
        }
        for (width, ok) in [(max, true), (1, true), (2, false), (0, false)] {
            for wave in [0, 1 << 63, max] {
                let w = Wave::new(&mut huge[..], width, wave);
                assert_eq!(w.is_ok(), ok, "{width}, wave {wave}");
            }
        }
    }
}
