//! The emulator's side of the shaped outputs: what an emulation takes for a `DisjointRows<T>`,
//! `WarpRows<T>`, `WarpChunkRows<T, C>`, `BlockTiles<T, R, C>` (`Rows<&mut [T]>`), `DisjointPairs<T>` (`Pairs`) and
//! `WaveTiles<T, R, C>` (`Wave`), and how each thread makes its own view; and of the shaped
//! input `Matrix<T>` (`MatrixShape<&[T]>`).

use oxide_device::Matrix;
use oxide_device::outputs::{
    BlockTiles, DisjointPairs, DisjointRows, MmaTiles, TileOrder, WarpChunkRows, WarpRows,
    WaveTiles,
};
use oxide_launch::{MatrixShape, Pairs, Rows, ShapedStorage, Wave};

use crate::{EmulatorArg, RawSlice, Shared, ThreadArg};

/// What an emulation's threads share for a shaped output: the caller's slice and the words
/// that [`Rows::new`] (`Rows::rect`, `Pairs::new`, `Wave::new`) checked.
#[doc(hidden)]
pub struct ShapedSlice<'a, T, const N: usize> {
    slice: RawSlice<'a, T>,
    words: [usize; N],
}

/// The emulator's side of the shaped outputs: `Rows<&mut [T]>` (`Pairs`, `Wave`) for a
/// `DisjointRows<T>`...; each thread makes its own view from the shared slice and words.
/// `Shape[N](words)(arguments)`: the shape's `N` words by name, then the output's
/// `from_raw_parts` arguments after the pointer and the length, made of them.
macro_rules! shaped_emulator_arg {
    ($($shape:ident[$n:literal]$words:tt$args:tt => $($output:ident<T $(, const $c:ident)* $(, type $o:ident: $obound:path)?>: $bounds:tt),*;)*) => {$($(
        shaped_emulator_arg!(@one $shape[$n]$words$args $output<T $(, const $c)* $(, type $o: $obound)?>: $bounds);
    )*)*};
    (@one $shape:ident[$n:literal]($($word:ident),+)($($arg:expr),+) $output:ident<T $(, const $c:ident)* $(, type $o:ident: $obound:path)?>: [$($bound:ident),*]) => {
        impl<'a, T: Send $(+ $bound)* + 'a $(, const $c: usize)* $(, $o: $obound)?> crate::args::sealed::Sealed<'a, fn($output<'_, T $(, $c)* $(, $o)?>)> for $shape<&'a mut [T]> {}

        impl<'a, T: Send $(+ $bound)* + 'a $(, const $c: usize)* $(, $o: $obound)?>
            EmulatorArg<'a, fn($output<'_, T $(, $c)* $(, $o)?>)> for $shape<&'a mut [T]>
        {
            type Threads = ShapedSlice<'a, T, $n>;
            fn share(mut self) -> Self::Threads {
                // The words the launch would push, as the shape laid them out; each was a
                // `usize` widened to `u64`, so it converts back without loss.
                // SAFETY: the storage is not replaced or resized.
                let words = unsafe { self.parts_mut() }.1.map(|word| word as usize);
                ShapedSlice {
                    slice: RawSlice::new(self.into_inner()),
                    words,
                }
            }
        }

        // SAFETY: as for `DisjointSlice` (oxide-emulator's `ThreadArg` impls): the slice is
        // borrowed for the run, every thread sees the same pointer, length and words (which
        // the shape's constructors checked), and the threads that run at once have distinct
        // positions, so by the output's rule no two threads reach one element.
        unsafe impl<'a, T: Send $(+ $bound)* + 'a $(, const $c: usize)* $(, $o: $obound)?>
            ThreadArg<'a, fn($output<'_, T $(, $c)* $(, $o)?>)> for ShapedSlice<'a, T, $n>
        {
            unsafe fn param(&self) -> $output<'a, T $(, $c)* $(, $o)?> {
                let [$($word),+] = self.words;
                unsafe { $output::from_raw_parts(self.slice.ptr(), self.slice.len() $(, $arg)+) }
            }
            fn elements(&self) -> usize {
                self.slice.len()
            }
            fn words(&self) -> &[usize] {
                &self.words
            }
        }
    };
}

shaped_emulator_arg! {
    Rows[5](width, pitch, rows, top, left)(width, pitch, rows, (top, left))
        => DisjointRows<T>: [], WarpRows<T>: [], WarpChunkRows<T, const C>: [],
            BlockTiles<T, const R, const C, type O: TileOrder>: [],
            MmaTiles<T, const R, const C, const WR, const WC, type O: TileOrder>: [];
    Pairs[1](distance)(distance) => DisjointPairs<T>: [];
    Wave[2](width, wave)(width, wave) => WaveTiles<T, const R, const C>: [Copy];
}

/// What an emulation's threads share for a `Matrix<T>`: the caller's slice, read by every
/// thread, and the words (`cols`, `pitch`, `rows`) that [`MatrixShape::with_pitch`] checked.
#[doc(hidden)]
pub struct SharedMatrix<'a, T> {
    slice: Shared<'a, [T]>,
    words: [usize; 3],
}

impl<'a, T: Sync + 'a> crate::args::sealed::Sealed<'a, fn(Matrix<'_, T>)> for MatrixShape<&'a [T]> {}

/// `MatrixShape::new(&v[..], rows, cols)?` for a `Matrix<T>`: every thread reads the caller's
/// slice, as for a `&[T]`.
impl<'a, T: Sync + 'a> EmulatorArg<'a, fn(Matrix<'_, T>)> for MatrixShape<&'a [T]> {
    type Threads = SharedMatrix<'a, T>;
    fn share(self) -> Self::Threads {
        // Each word was a `usize` widened to `u64`: it converts back without loss.
        let words = self.parts().1.map(|word| word as usize);
        SharedMatrix {
            slice: Shared::new(self.into_inner()),
            words,
        }
    }
}

// SAFETY: every thread gets the caller's slice, borrowed shared for the run (of `Sync`
// elements: `Shared::new` asked), with its length and the words that `MatrixShape` checked
// against that length, which is `Matrix::from_raw_parts`'s contract.
unsafe impl<'a, T: 'a> ThreadArg<'a, fn(Matrix<'_, T>)> for SharedMatrix<'a, T> {
    unsafe fn param(&self) -> Matrix<'a, T> {
        let [cols, pitch, rows] = self.words;
        let slice = self.slice.get();
        unsafe { Matrix::from_raw_parts(slice.as_ptr(), slice.len(), cols, pitch, rows) }
    }
    fn elements(&self) -> usize {
        self.slice.get().len()
    }
}
