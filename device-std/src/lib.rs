//! `oxide`: what a kernel author uses to write SIMT GPU kernels in Rust, and the host runtime
//! that launches them.
//!
//! ```no_run
//! use oxide::prelude::*;
//!
//! #[kernel]
//! pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
//!     let i = thread::index_1d();
//!     if let Some(out) = c.get_mut(ThreadIndex::linear()) {
//!         *out = a[i] + b[i];
//!     }
//! }
//!
//! fn main() -> Result<(), oxide::host::Error> {
//!     let gpu = Gpu::new(0)?;
//!     let (a, b) = (gpu.htod(&[1.0f32, 2.0])?, gpu.htod(&[3.0f32, 4.0])?);
//!     let mut c = gpu.alloc_zeroed::<f32>(2)?;
//!     vecadd::launch(&gpu, LaunchConfig::for_num_elems(2, 256)?, &a, &b, &mut c)?;
//!     assert_eq!(gpu.dtoh(&c)?, [4.0, 6.0]);
//!     Ok(())
//! }
//! ```
//!
//! Kernels may be generic over types, closures from the host included
//! (`#[kernel] pub fn map<F: Fn(u32) -> u32 + Copy>(f: F, ...)`, launched as
//! `map::launch(&gpu, cfg, move |v| v * k, ...)`), and take options:
//! `#[kernel(strict_float)]`, `#[kernel(grid = "1d")]` (see [`kernel`] and docs/contracts.md).
//!
//! Device side: [`thread`] (indices and the intrinsics the backend replaces) and
//! [`DisjointSlice`] (the only safe way to write memory shared by the grid).
//! Host side: [`host`] (driver, buffers, launches) and [`emulate`] (the CPU emulator: a whole
//! grid on host threads: `vecadd::emulate(&cfg, &a, &b, &mut c)`). Everything a kernel calls
//! is plain Rust: no trait objects, formatting or allocation, and `#[inline]` so its MIR
//! crosses crates to the backend.

// `ThreadIndex` is neither `Send` nor `Sync` without a field that would change its MIR.
#![feature(negative_impls)]

use core::marker::PhantomData;

pub mod emulate;
pub mod host;
pub mod soft;
pub mod thread;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use oxide_macros::kernel;
pub use thread::ThreadIndex;

/// What a kernel file needs: `use oxide::prelude::*;`.
pub mod prelude {
    pub use crate::host::{DeviceBuffer, Gpu, LaunchConfig};
    pub use crate::thread::{self, ThreadIndex};
    pub use crate::{DisjointSlice, kernel};
}

/// An output slice shared by every thread of a launch, in which each thread may write only the
/// element at its own [`ThreadIndex`].
///
/// Two threads can never write one element through safe code: the only safe accessor,
/// [`get_mut`](Self::get_mut), takes a `ThreadIndex`, which user code cannot build, copy or
/// change, and which is unique to the calling thread over the whole grid. The value is not
/// `Clone`/`Copy` either, so a kernel has exactly one handle per output argument.
///
/// Layout (the backend and the launcher rely on it, see docs/contracts.md): `#[repr(C)]`, a data
/// pointer then an element count, both pointer-sized; the marker is zero-sized.
#[repr(C)]
pub struct DisjointSlice<T> {
    ptr: *mut T,
    len: usize,
    // Behaves as a unique borrow of `[T]` (invariant in `T`, neither `Send` nor `Sync`), without
    // a lifetime parameter so that kernels can write `DisjointSlice<f32>`.
    _marker: PhantomData<*mut [T]>,
}

impl<T> DisjointSlice<T> {
    /// Wraps `len` elements at `ptr`. Kernels never call this: their arguments are built by the
    /// launch. It exists for the host emulator and for tests.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` elements of `T` for as long as the value
    /// (and every reference it hands out) lives, and every thread that holds a `DisjointSlice`
    /// over the same memory must see the same `ptr` and `len` and a distinct
    /// [`ThreadIndex`]; nothing else may access the memory meanwhile.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        DisjointSlice {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Number of elements of the whole slice (not of this thread's share).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// This thread's element, or `None` when the thread lies past the end (the usual case for
    /// the last block of a grid: such a thread should simply do nothing).
    #[inline]
    pub fn get_mut(&mut self, idx: ThreadIndex) -> Option<&mut T> {
        let i = idx.get();
        if i < self.len {
            // SAFETY: `i < len`, and `idx` is this thread's own unique index, so no other thread
            // can reach element `i` through safe code; `&mut self` stops a second borrow here.
            Some(unsafe { &mut *self.ptr.add(i) })
        } else {
            None
        }
    }

    /// The element at `index`, with no bounds check and no proof of exclusivity.
    ///
    /// # Safety
    /// `index < self.len()`, and no other thread of the launch may read or write element `index`
    /// while the returned reference lives (data races are undefined behaviour).
    #[inline]
    pub unsafe fn get_unchecked_mut(&mut self, index: usize) -> &mut T {
        // SAFETY: forwarded to the caller.
        unsafe { &mut *self.ptr.add(index) }
    }
}

/// `__embedded_ptx!("__oxide_ptx_<crate>")`: the PTX the backend embedded in the crate that
/// expands it, as `Option<&'static CStr>`. Used by the `#[kernel]` launcher only.
///
/// This build has `--cfg oxide_backend`, so the symbol is a strong reference, defined by the
/// object file the backend adds to the crate (the PTX text and a NUL byte).
#[cfg(oxide_backend)]
#[doc(hidden)]
#[macro_export]
macro_rules! __embedded_ptx {
    ($sym:literal) => {{
        unsafe extern "C" {
            #[link_name = $sym]
            static PTX: [u8; 0];
        }
        // SAFETY: the backend defines the symbol as NUL-terminated, immutable PTX text.
        ::core::option::Option::Some(unsafe {
            ::core::ffi::CStr::from_ptr(::core::ptr::addr_of!(PTX).cast())
        })
    }};
}

/// `__embedded_ptx!("__oxide_ptx_<crate>")`: the PTX the backend embedded in the crate that
/// expands it, as `Option<&'static CStr>`. Used by the `#[kernel]` launcher only.
///
/// This build lacks `--cfg oxide_backend` (a plain `cargo build`): there is no PTX, so this is
/// `None`, nothing refers to the symbol, the crate links, and the launch returns
/// [`host::Error::NoPtx`].
#[cfg(not(oxide_backend))]
#[doc(hidden)]
#[macro_export]
macro_rules! __embedded_ptx {
    ($sym:literal) => {
        ::core::option::Option::<&'static ::core::ffi::CStr>::None
    };
}
