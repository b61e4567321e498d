//! [`LaunchArg`]: what the host passes for each kind of kernel parameter (the kinds are
//! `oxide::KernelParam`'s, declared beside their types in device-std).
//!
//! A launcher that `#[kernel]` writes takes, for a parameter of type `P`, any
//! `impl LaunchArg<fn(P)>`: the key is `fn(P)` because a function pointer type is where the
//! macro may write `P` with its elided lifetimes (`fn(&[f32])`, `fn(DisjointSlice<f32>)`).

use oxide_device::atomic::AtomicElem;
use oxide_device::outputs::{
    BlockSlots, BlockTiles, BlockWindows, DisjointChunks, DisjointPairs, DisjointRows, MmaTiles,
    TileOrder, WarpChunkRows, WarpRows, WarpSlots, WaveTiles,
};
use oxide_device::{DeviceData, DisjointSlice, Matrix};

use crate::launch::Launch;
use crate::memory::{DeviceMemory, DeviceMemoryMut};
use oxide_launch::{MatrixStorage, RowStorage, ShapedStorage};

use crate::{
    DeviceBuffer, DeviceView, DeviceViewMut, ForeignView, ForeignViewMut, MatrixShape, Pairs, Rows,
    Wave,
};

/// What a launch takes for a kernel parameter of type `P`, keyed `[T]` for `P = &[T]` and
/// `fn(P)` otherwise:
///
/// | kernel parameter | launch argument |
/// |---|---|
/// | `&[T]` | `&buf` of a `DeviceBuffer<T>`, `&view` of a `DeviceView<T>` or `DeviceViewMut<T>` |
/// | `Matrix<T>` | `MatrixShape::new(&buf, rows, cols)?` (`&buf` or `&view`, as for a `&[T]`) |
/// | `&[AtomicU32]` (any atomic) | `&mut buf` of a `DeviceBuffer<u32>` (a `DeviceViewMut<u32>`) |
/// | `DisjointSlice<T>`, `DisjointChunks<T, C>`, `BlockWindows<T, W>`, `BlockSlots<T>`, `WarpSlots<T>` | `&mut buf`, `&mut view_mut` |
/// | `DisjointRows<T>`, `WarpRows<T>`, `WarpChunkRows<T, C>`, `BlockTiles<T, R, C>` | `Rows::new(&mut buf, width)?`, a rectangle of it `.rect(rows, cols)?` |
/// | `DisjointPairs<T>` | `Pairs::new(&mut buf, distance)?` |
/// | `WaveTiles<T, R, C>` | `Wave::new(&mut buf, width, wave)?` |
/// | any other `T: Copy + DeviceData` | the value |
///
/// Foreign memory (a PyTorch tensor's, module `foreign`) goes by value: a `ForeignView<T>` where
/// `&buf` goes (and in a `MatrixShape`), a `ForeignViewMut<T>` where `&mut buf` goes (and in a
/// `Rows`, for the 2-D outputs), but for the pair and wave outputs (not yet).
///
/// Sealed (a supertrait no other crate can name): only oxide-host implements it, since what it
/// pushes is what the kernel's PTX reads.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for this kernel parameter (`{K}`)",
    label = "not what the launch takes for it",
    note = "a `&[T]` takes `&buf` (a `DeviceBuffer<T>` or `DeviceView<T>`); a `Matrix<T>` \
            `MatrixShape::new(&buf, rows, cols)?`; an output \
            (`DisjointSlice<T>`...) or an atomic slice takes `&mut buf`; a 2-D output \
            `Rows::new(&mut buf, width)?`; a value the value itself (see `oxide::host::LaunchArg`)"
)]
pub trait LaunchArg<K: ?Sized>: sealed::Sealed<K> {
    /// Appends this argument's parameters to `launch`; `self` stays borrowed until the launch
    /// is queued (the driver reads the parameters from where they are).
    #[doc(hidden)]
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>);

    /// The number of elements of a slice argument (what `same_len` and `covers` compare); 0
    /// for a value.
    #[doc(hidden)]
    fn elements(&self) -> usize;

    /// The shape words a shaped output passes after its pointer and length (a `Rows`'s width,
    /// pitch, rows and origin: what a `requires` condition reads as `out.width()`...); none for
    /// the others.
    #[doc(hidden)]
    fn words(&self) -> &[u64] {
        &[]
    }
}

pub(crate) mod sealed {
    /// Implemented beside each `LaunchArg` impl, in this crate only (the module cannot be named
    /// elsewhere): a `LaunchArg` of another crate could push any pointer for an output.
    pub trait Sealed<K: ?Sized> {}
}

/// A buffer seen as rows (pairs, a wave) for a launch: `Rows::new(&mut buf, width)?`.
impl<T> RowStorage for &mut DeviceBuffer<T> {
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<'a> Launch<'a> {
    /// Appends one kernel argument's parameters: what `#[kernel]`'s launchers call for each
    /// argument, in the kernel's order.
    pub fn push<K: ?Sized>(&mut self, arg: &'a mut impl LaunchArg<K>) -> &mut Self {
        arg.push(self);
        self
    }
}

impl<T: DeviceData + Copy> sealed::Sealed<fn(T)> for T {}

/// Plain device data, passed by value.
impl<T: DeviceData + Copy> LaunchArg<fn(T)> for T {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        // SAFETY: a value's bytes are its parameter (docs/contracts.md).
        unsafe { launch.push_value(self) };
    }
    fn elements(&self) -> usize {
        0
    }
}

/// `&[T]`, read by every thread: a buffer or a view, borrowed shared.
macro_rules! read_slice_arg {
    ($($host:ty),*) => {$(
        impl<T> sealed::Sealed<[T]> for &$host {}

        impl<T> LaunchArg<[T]> for &$host {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: a `&[T]`'s parameters are its buffer's pointer and length.
                unsafe { launch.push_slice(self.region(), &[]) };
            }
            fn elements(&self) -> usize {
                self.len()
            }
        }
    )*};
}

read_slice_arg!(DeviceBuffer<T>, DeviceView<'_, T>, DeviceViewMut<'_, T>);

/// `Matrix<T>`, read by every thread: a buffer or a view, borrowed shared as for a `&[T]` (so
/// it may alias other read-only arguments, never an output), with the shape words that
/// `MatrixShape::new` checked against its length.
macro_rules! matrix_arg {
    ($($host:ty),*) => {$(
        /// A buffer or view read as a matrix: `MatrixShape::new(&buf, rows, cols)?`.
        impl<T> MatrixStorage for &$host {
            fn elements(&self) -> usize {
                self.len()
            }
        }

        impl<T> sealed::Sealed<fn(Matrix<'_, T>)> for MatrixShape<&$host> {}

        impl<T> LaunchArg<fn(Matrix<'_, T>)> for MatrixShape<&$host> {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                let (buf, words) = self.parts();
                // SAFETY: a `Matrix`'s parameters are its buffer's pointer and length, read
                // (`region`, not `region_mut`: the launch orders it as a read), then the words
                // `MatrixShape::with_pitch` checked against that length.
                unsafe { launch.push_slice(buf.region(), words) };
            }
            fn elements(&self) -> usize {
                self.parts().0.len()
            }
        }
    )*};
}

matrix_arg!(DeviceBuffer<T>, DeviceView<'_, T>, DeviceViewMut<'_, T>);

/// `&[A]` of atomics: the plain values' buffer, borrowed mutably (every thread updates it, so
/// no other argument of the launch may alias it).
macro_rules! atomic_slice_arg {
    ($($host:ident),*) => {$(
        impl<A: AtomicElem> sealed::Sealed<[A]> for &mut $host<'_, A::Plain> {}

        impl<A: AtomicElem> LaunchArg<[A]> for &mut $host<'_, A::Plain> {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: a slice's parameters are its buffer's pointer and length; the buffer is
                // borrowed mutably, so no other argument aliases it.
                unsafe { launch.push_slice(self.region_mut(), &[]) };
            }
            fn elements(&self) -> usize {
                self.len()
            }
        }
    )*};
}

/// A buffer as a view-like type with a lifetime, so that one macro covers both.
type Buffer<'b, T> = DeviceBuffer<T>;

atomic_slice_arg!(Buffer, DeviceViewMut);

/// The outputs whose parameters are the pointer and the length only: the buffer or a mutable
/// view, borrowed mutably.
macro_rules! output_arg {
    ($($output:ident<T $(, const $c:ident)*>),*) => {$(
        impl<T $(, const $c: usize)*> sealed::Sealed<fn($output<'_, T $(, $c)*>)>
            for &mut DeviceBuffer<T> {}

        impl<T $(, const $c: usize)*> sealed::Sealed<fn($output<'_, T $(, $c)*>)>
            for &mut DeviceViewMut<'_, T> {}

        impl<T $(, const $c: usize)*> LaunchArg<fn($output<'_, T $(, $c)*>)>
            for &mut DeviceBuffer<T>
        {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: a slice's parameters are its buffer's pointer and length; the buffer is
                // borrowed mutably, so no other argument aliases it.
                unsafe { launch.push_slice(self.region_mut(), &[]) };
            }
            fn elements(&self) -> usize {
                self.len()
            }
        }

        impl<T $(, const $c: usize)*> LaunchArg<fn($output<'_, T $(, $c)*>)>
            for &mut DeviceViewMut<'_, T>
        {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: a slice's parameters are its buffer's pointer and length; the buffer is
                // borrowed mutably, so no other argument aliases it.
                unsafe { launch.push_slice(self.region_mut(), &[]) };
            }
            fn elements(&self) -> usize {
                self.len()
            }
        }
    )*};
}

output_arg!(
    DisjointSlice<T>,
    DisjointChunks<T, const C>,
    BlockWindows<T, const W>,
    BlockSlots<T>,
    WarpSlots<T>
);

/// The outputs with shape words after the pointer and the length: the host type that checked
/// the words (`Rows::new`, `Pairs::new`, `Wave::new`) holds them and the buffer.
macro_rules! shaped_output_arg {
    ($($shape:ident => $($output:ident<T $(, const $c:ident)* $(, type $o:ident: $bound:path)?>),*;)*) => {$($(
        impl<T $(, const $c: usize)* $(, $o: $bound)?> sealed::Sealed<fn($output<'_, T $(, $c)* $(, $o)?>)>
            for $shape<&mut DeviceBuffer<T>> {}

        impl<T $(, const $c: usize)* $(, $o: $bound)?> LaunchArg<fn($output<'_, T $(, $c)* $(, $o)?>)>
            for $shape<&mut DeviceBuffer<T>>
        {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: the buffer is only read here (its region), not replaced or resized.
                let (buf, words) = unsafe { self.parts_mut() };
                // SAFETY: the buffer's pointer and length, then the words its shape's `new` checked.
                unsafe { launch.push_slice(buf.region_mut(), words) };
            }
            fn elements(&self) -> usize {
                self.storage().len()
            }
            fn words(&self) -> &[u64] {
                ShapedStorage::words(self)
            }
        }
    )*)*};
}

shaped_output_arg! {
    Rows => DisjointRows<T>, WarpRows<T>, WarpChunkRows<T, const C>,
        BlockTiles<T, const R, const C, type O: TileOrder>,
        MmaTiles<T, const R, const C, const WR, const WC, type O: TileOrder>;
    Pairs => DisjointPairs<T>;
    Wave => WaveTiles<T, const R, const C>;
}

/// `&[T]`: foreign memory lent read-only, passed by value (module `foreign`).
impl<T> sealed::Sealed<[T]> for ForeignView<'_, T> {}

impl<T> LaunchArg<[T]> for ForeignView<'_, T> {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        // SAFETY: a `&[T]`'s parameters are its memory's pointer and length.
        unsafe { launch.push_slice(self.region(), &[]) };
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

/// Foreign memory read as a matrix: `MatrixShape::new(view, rows, cols)?`.
impl<T> MatrixStorage for ForeignView<'_, T> {
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<T> sealed::Sealed<fn(Matrix<'_, T>)> for MatrixShape<ForeignView<'_, T>> {}

impl<T> LaunchArg<fn(Matrix<'_, T>)> for MatrixShape<ForeignView<'_, T>> {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        let (view, words) = self.parts();
        // SAFETY: as for a buffer's `MatrixShape`: the memory's pointer and length, read, then
        // the words `MatrixShape::with_pitch` checked against that length.
        unsafe { launch.push_slice(view.region(), words) };
    }
    fn elements(&self) -> usize {
        self.parts().0.len()
    }
}

impl<A: AtomicElem> sealed::Sealed<[A]> for ForeignViewMut<'_, A::Plain> {}

/// `&[A]` of atomics: foreign memory lent writable, passed by value.
impl<A: AtomicElem> LaunchArg<[A]> for ForeignViewMut<'_, A::Plain> {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        // SAFETY: a slice's parameters are its memory's pointer and length; the view is lent
        // writable, so no other argument aliases it (`ForeignViewMut::new`'s contract).
        unsafe { launch.push_slice(self.region_mut(), &[]) };
    }
    fn elements(&self) -> usize {
        self.len()
    }
}

/// The outputs whose parameters are the pointer and the length only, on foreign memory lent
/// writable, passed by value.
macro_rules! foreign_output_arg {
    ($($output:ident<T $(, const $c:ident)*>),*) => {$(
        impl<T $(, const $c: usize)*> sealed::Sealed<fn($output<'_, T $(, $c)*>)>
            for ForeignViewMut<'_, T> {}

        impl<T $(, const $c: usize)*> LaunchArg<fn($output<'_, T $(, $c)*>)>
            for ForeignViewMut<'_, T>
        {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: a slice's parameters are its memory's pointer and length; the view is
                // lent writable, so no other argument aliases it (`ForeignViewMut::new`'s
                // contract).
                unsafe { launch.push_slice(self.region_mut(), &[]) };
            }
            fn elements(&self) -> usize {
                self.len()
            }
        }
    )*};
}

foreign_output_arg!(
    DisjointSlice<T>,
    DisjointChunks<T, const C>,
    BlockWindows<T, const W>,
    BlockSlots<T>,
    WarpSlots<T>
);

/// Foreign memory lent writable, seen as rows for a 2-D output: `Rows::new(view, width)?`.
impl<T> RowStorage for ForeignViewMut<'_, T> {
    fn elements(&self) -> usize {
        self.len()
    }
}

/// The 2-D outputs on foreign memory lent writable: the view, by value, in the `Rows` that
/// checked the shape words against its length.
macro_rules! foreign_rows_output_arg {
    ($($output:ident<T $(, const $c:ident)* $(, type $o:ident: $bound:path)?>),*) => {$(
        impl<T $(, const $c: usize)* $(, $o: $bound)?> sealed::Sealed<fn($output<'_, T $(, $c)* $(, $o)?>)>
            for Rows<ForeignViewMut<'_, T>> {}

        impl<T $(, const $c: usize)* $(, $o: $bound)?> LaunchArg<fn($output<'_, T $(, $c)* $(, $o)?>)>
            for Rows<ForeignViewMut<'_, T>>
        {
            fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
                // SAFETY: the view is only read here (its region), not replaced.
                let (view, words) = unsafe { self.parts_mut() };
                // SAFETY: the memory's pointer and length, then the words `Rows::new` checked
                // against that length; the view is lent writable, so no other argument aliases
                // it (`ForeignViewMut::new`'s contract).
                unsafe { launch.push_slice(view.region_mut(), words) };
            }
            fn elements(&self) -> usize {
                self.storage().len()
            }
        }
    )*};
}

foreign_rows_output_arg!(
    DisjointRows<T>,
    WarpRows<T>,
    WarpChunkRows<T, const C>,
    BlockTiles<T, const R, const C, type O: TileOrder>,
    MmaTiles<T, const R, const C, const WR, const WC, type O: TileOrder>
);
