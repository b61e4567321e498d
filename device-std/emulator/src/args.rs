//! [`EmulatorArg`]: what an emulation takes for each kind of kernel parameter, and how each
//! emulated thread gets its own argument from it (the kinds are `oxide::KernelParam`'s).
//!
//! The `emulate` function `#[kernel]` writes takes, for a parameter of key `K`
//! (`oxide::ParamKey`: `[T]` for a `&[T]`, `fn(P)` for anything else), any
//! `impl EmulatorArg<'a, K>`; it [`share`](EmulatorArg::share)s each argument once, before the
//! run, and every emulated thread calls [`ThreadArg::param`] for its own parameter.

use oxide_device::atomic::AtomicElem;
use oxide_device::outputs::{BlockSlots, BlockWindows, DisjointChunks, WarpSlots};
use oxide_device::{DeviceData, DisjointSlice, ParamKey};

use crate::{RawSlice, Shared};

/// What an emulation takes for a kernel parameter of key `K`:
///
/// | kernel parameter | emulation argument |
/// |---|---|
/// | `&[T]` (`T: Sync`) | `&v` of a `Vec<T>`, a slice or an array |
/// | `Matrix<T>` (`T: Sync`) | `MatrixShape::new(&v[..], rows, cols)?` |
/// | `&[AtomicU32]` (any atomic) | `&mut v` of a `Vec<u32>`, a slice or an array |
/// | `DisjointSlice<T>`, `DisjointChunks<T, C>`, `BlockWindows<T, W>`, `BlockSlots<T>`, `WarpSlots<T>` (`T: Send`) | `&mut v` |
/// | `DisjointRows<T>`, `WarpRows<T>`, `WarpChunkRows<T, C>`, `BlockTiles<T, R, C>` | `Rows::new(&mut v[..], width)?` |
/// | `DisjointPairs<T>` | `Pairs::new(&mut v[..], distance)?` |
/// | `WaveTiles<T, R, C>` | `Wave::new(&mut v[..], width, wave)?` |
/// | any other `T: Copy + Sync + DeviceData` | the value |
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to this emulated kernel parameter (`{K}`)",
    label = "not what the emulator takes for it",
    note = "a `&[T]` takes `&v` (a `Vec<T>`, slice or array of `Sync` elements); a \
            `Matrix<T>` `MatrixShape::new(&v[..], rows, cols)?`; an output \
            (`DisjointSlice<T>`...) or an atomic slice takes `&mut v`; a 2-D output \
            `Rows::new(&mut v[..], width)?`; a value the value itself \
            (see `oxide::emulate::EmulatorArg`)"
)]
pub trait EmulatorArg<'a, K: ?Sized + ParamKey<'a>>: sealed::Sealed<'a, K> {
    /// What the emulated threads share: made once, before the run.
    type Threads: ThreadArg<'a, K>;

    /// Makes what the threads share, borrowing the argument for the run.
    fn share(self) -> Self::Threads;
}

pub(crate) mod sealed {
    /// Implemented beside each `EmulatorArg` impl, in this crate only (the module cannot be
    /// named elsewhere).
    pub trait Sealed<'a, K: ?Sized> {}
}

/// What the emulated threads of a run share for one parameter, each making its own argument.
///
/// # Safety
/// `param` may give each emulated thread its own view of the memory only as the parameter's
/// kind allows: an output's rule is sound only when every thread sees the same memory, length
/// and words, and the threads that run at once have distinct positions (`crate::run`'s
/// promise; see "Soundness" in the crate docs).
pub unsafe trait ThreadArg<'a, K: ?Sized + ParamKey<'a>>: Sync {
    /// The calling thread's argument.
    ///
    /// # Safety
    /// Called only by the threads of the run this value was shared for, inside `crate::run`.
    unsafe fn param(&self) -> K::Param;

    /// The number of elements of the slice every thread's argument covers (what `same_len`
    /// and `covers` compare, measured on what the threads get, so that no `AsRef` of the
    /// caller's can report another length); 0 for a value.
    fn elements(&self) -> usize;

    /// The shape words a shaped output's threads get (a `Rows`'s width, pitch, rows and
    /// origin: what a `requires` condition reads as `out.width()`...); none for the others.
    fn words(&self) -> &[usize] {
        &[]
    }
}

/// A value, copied to every thread.
#[doc(hidden)]
pub struct Value<T>(T);

impl<'a, T: DeviceData + Copy + Sync + 'a> crate::args::sealed::Sealed<'a, fn(T)> for T {}

impl<'a, T: DeviceData + Copy + Sync + 'a> EmulatorArg<'a, fn(T)> for T {
    type Threads = Value<T>;
    fn share(self) -> Value<T> {
        Value(self)
    }
}

// SAFETY: every thread gets a copy of the one value.
unsafe impl<'a, T: DeviceData + Copy + Sync + 'a> ThreadArg<'a, fn(T)> for Value<T> {
    unsafe fn param(&self) -> T {
        self.0
    }
    fn elements(&self) -> usize {
        0
    }
}

/// `&[T]`: every thread reads the caller's slice.
impl<'a, T: Sync + 'a, S: AsRef<[T]> + ?Sized> crate::args::sealed::Sealed<'a, [T]> for &'a S {}

impl<'a, T: Sync + 'a, S: AsRef<[T]> + ?Sized> EmulatorArg<'a, [T]> for &'a S {
    type Threads = Shared<'a, [T]>;
    fn share(self) -> Self::Threads {
        Shared::new(self.as_ref())
    }
}

// SAFETY: a shared slice of `Sync` elements (`Shared::new` asked for it).
unsafe impl<'a, T: 'a> ThreadArg<'a, [T]> for Shared<'a, [T]> {
    unsafe fn param(&self) -> &'a [T] {
        self.get()
    }
    fn elements(&self) -> usize {
        self.get().len()
    }
}

/// `&[A]` of atomics: the caller's plain values, borrowed mutably for the run and shared by
/// the threads as atomics.
impl<'a, A: AtomicElem + 'a, S: AsMut<[A::Plain]> + AsRef<[A::Plain]> + ?Sized>
    crate::args::sealed::Sealed<'a, [A]> for &'a mut S
{
}

impl<'a, A: AtomicElem + 'a, S: AsMut<[A::Plain]> + AsRef<[A::Plain]> + ?Sized> EmulatorArg<'a, [A]>
    for &'a mut S
{
    type Threads = Shared<'a, [A]>;
    fn share(self) -> Self::Threads {
        let plain = self.as_mut();
        // SAFETY: an atomic has the size, alignment and bit validity of its plain value
        // (`AtomicElem`'s contract, as `AtomicU64::from_mut_slice`), and the `&mut` borrow of
        // the caller's slice is exclusive for `'a`, so it may be shared as atomics.
        let atomics =
            unsafe { core::slice::from_raw_parts(plain.as_mut_ptr().cast(), plain.len()) };
        Shared::new(atomics)
    }
}

/// The outputs whose parameters are the pointer and the length: the caller's slice, borrowed
/// mutably for the run; each thread makes its own view of it.
macro_rules! output_arg {
    ($($output:ident<T $(, const $c:ident)*>: [$($bound:ident),+];)*) => {$(
        impl<'a, T: $($bound +)* 'a, S: AsMut<[T]> + AsRef<[T]> + ?Sized $(, const $c: usize)*> crate::args::sealed::Sealed<'a, fn($output<'_, T $(, $c)*>)> for &'a mut S {}

        impl<'a, T: $($bound +)* 'a, S: AsMut<[T]> + AsRef<[T]> + ?Sized $(, const $c: usize)*>
            EmulatorArg<'a, fn($output<'_, T $(, $c)*>)> for &'a mut S
        {
            type Threads = RawSlice<'a, T>;
            fn share(self) -> Self::Threads {
                RawSlice::new(self.as_mut())
            }
        }

        // SAFETY: `RawSlice` borrows the caller's `&mut [T]` for `'a`, until `run` returns after
        // every emulated thread has ended, so the memory is valid and only the kernel touches
        // it; every thread gets the same pointer and length; `run` gives the threads that run
        // at once distinct positions, which they cannot change nor pass between OS threads, so
        // by the output's rule no two threads reach one element; the elements are `Send`.
        unsafe impl<'a, T: $($bound +)* 'a $(, const $c: usize)*> ThreadArg<'a, fn($output<'_, T $(, $c)*>)>
            for RawSlice<'a, T>
        {
            unsafe fn param(&self) -> $output<'a, T $(, $c)*> {
                unsafe { $output::from_raw_parts(RawSlice::ptr(self), RawSlice::len(self)) }
            }
            fn elements(&self) -> usize {
                RawSlice::len(self)
            }
        }
    )*};
}

// A block's threads read each other's windows, hence `Sync` for `BlockWindows`.
output_arg! {
    DisjointSlice<T>: [Send];
    DisjointChunks<T, const C>: [Send];
    BlockWindows<T, const W>: [Send, Sync];
    BlockSlots<T>: [Send];
    WarpSlots<T>: [Send];
}
