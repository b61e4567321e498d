//! `oxide-device`: the device API of oxide kernels, the code the backend compiles for the GPU.
//!
//! - [`thread`]: where a thread is in the grid (the index intrinsics, [`thread::sync_threads`])
//!   and [`ThreadIndex`], a thread's own linear index;
//! - [`DisjointSlice`]: the safe way to write memory shared by the grid, a thread's own
//!   element or its share of a grid-stride loop ([`DisjointSlice::grid_stride`]); and the other
//!   output shapes of [`outputs`]: chunks, rows per thread, per warp, tiles per block;
//! - [`Matrix`] ([`inputs`]): a read-only 2-D input whose shape the launch checked, so that a
//!   load tests its position only;
//! - [`DeviceData`]: what a kernel may take by value (no host references, pointers or
//!   interior mutability);
//! - [`warp`]: the thread's lane and shuffles between the lanes of a warp;
//! - [`math`]: fast approximate math (`__sinf`, `__expf`...); `f32::sin` and the other std
//!   methods are computed by libdevice (docs/math.md);
//! - [`shared`]: block-shared memory (CUDA's `__shared__`): safe arrays declared as kernel
//!   parameters ([`shared::Shared`]), written and read in phases the types track, and the unsafe
//!   primitive under them ([`shared::SharedArray`]);
//! - [`atomic`]: float atomics, atomics at block and system scope, fences at each scope;
//! - [`debug`]: the runtime of `oxide::printf!` and `oxide::device_assert!`;
//! - [`block`]: block-wide reductions, scans and votes (`cub::BlockReduce`, `__syncthreads_count`);
//! - [`soft`]: Rust operations the GPU has no exact instruction for, in Rust;
//! - [`host_context`]: what the intrinsics do on the host, where they read the simulated thread
//!   that a host runner (the CPU emulator, `oxide-emulator`) installs on each OS thread.
//!
//! Kernel authors use it through the `oxide` crate (`use oxide::prelude::*;`), which re-exports
//! it under the same paths. It depends only on oxide-contract (whose printf format the host side
//! of `vprintf` reads); everything a kernel calls is plain Rust with
//! no trait objects, formatting or allocation, `#[inline]` so that its MIR crosses crates to the
//! backend, except the intrinsics, which are `#[inline(never)]` so that the backend sees the
//! call and replaces it (their host bodies are never compiled for the GPU).

// `ThreadIndex` is neither `Send` nor `Sync` without a field that would change its MIR;
// `DeviceData` is an auto trait that references, pointers and `UnsafeCell` do not implement.
#![feature(negative_impls, auto_traits, with_negative_coherence)]
// `oxide::f16` converts to and from Rust's own (nightly) `f16`.
#![feature(f16)]
// The registry of docs/contracts.md: `#[oxide_gpu::…]` marks what the backend replaces, and
// diagnostic items name the functions it calls (as rustc names `core`'s).
#![feature(register_tool, rustc_attrs)]
#![register_tool(oxide_gpu)]
#![allow(internal_features)]

use core::marker::PhantomData;

/// `len()` and `is_empty()` of a view whose `len` field counts its elements (`$what` says of
/// what, in the docs). Used inside an `impl` block.
macro_rules! len_methods {
    ($what:literal) => {
        #[doc = concat!("Number of elements ", $what, ".")]
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }

        #[doc = concat!("Whether there are no elements ", $what, ".")]
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
    };
}

pub mod atomic;
pub mod block;
pub mod cache;
mod data;
pub mod debug;
pub mod descriptor;
mod element;
pub mod float16;
pub mod float8;
pub mod host_context;
pub mod inputs;
pub mod math;
pub mod mma;
pub mod outputs;
pub mod param;
mod race;
pub mod repr;
pub mod shared;
pub mod soft;
pub mod thread;
mod unroll;
pub mod warp;

pub use data::DeviceData;
pub use float8::{e4m3, e5m2};
pub use float16::{bf16, f16};
pub use inputs::Matrix;
pub use outputs::{
    BlockSlots, BlockTiles, BlockWindows, DisjointChunks, DisjointPairs, DisjointRows, MmaTiles,
    WarpChunkRows, WarpRows, WarpSlots, WaveTiles,
};
pub use param::{CountedParam, KernelParam, MeasuredParam, ParamKey};
pub use thread::ThreadIndex;
pub use unroll::{Unroll, unroll};

/// An output slice shared by every thread of a launch, in which each thread may write only the
/// element at its own [`ThreadIndex`].
///
/// Two threads can never write one element through safe code: the only safe accessor,
/// [`get_mut`](Self::get_mut), takes a `ThreadIndex`, which user code cannot build, copy or
/// change, and which is unique to the calling thread over the whole grid. The value is not
/// `Clone`/`Copy` either, so a kernel has exactly one handle per output argument.
///
/// `'a` is the launch: the slice borrows the launch's buffer for the call of the kernel only,
/// so a kernel cannot keep it anywhere that outlives its call (a `thread_local!`, a `static`).
/// Kernels write `DisjointSlice<f32>` (or `DisjointSlice<'_, f32>`): the elided lifetime of a
/// parameter is the call's.
///
/// Layout (the backend and the launcher rely on it, see docs/contracts.md): `#[repr(C)]`, a data
/// pointer then an element count, both pointer-sized; the marker is zero-sized.
#[repr(C)]
pub struct DisjointSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    // Behaves as a unique borrow of `[T]` for `'a` (invariant in `T`); the raw pointer makes it
    // neither `Send` nor `Sync`.
    _marker: PhantomData<&'a mut [T]>,
}

param::output_param!(DisjointSlice<'a, T>, words 0, counted);

impl<'a, T> DisjointSlice<'a, T> {
    /// Wraps `len` elements at `ptr` for `'a`. Kernels never call this: their arguments are
    /// built by the launch. It exists for the host emulator and for tests.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` elements of `T` for `'a`, and every
    /// thread that holds a `DisjointSlice` over the same memory must see the same `ptr` and
    /// `len` and a distinct [`ThreadIndex`]; nothing else may access the memory meanwhile.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        DisjointSlice {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    len_methods!("of the whole slice (not of this thread's share)");

    /// This thread's element, or `None` when the thread lies past the end (the usual case for
    /// the last block of a grid: such a thread should simply do nothing).
    ///
    /// In the CPU emulator the call counts as a write of the element for the race detector, so
    /// that an `unsafe` [`get_unchecked_mut`](Self::get_unchecked_mut) of another thread that
    /// reaches it is reported.
    #[track_caller]
    #[inline]
    pub fn get_mut(&mut self, idx: ThreadIndex) -> Option<&mut T> {
        let i = idx.get();
        if i < self.len {
            race::global_write(self.ptr.addr(), i);
            // SAFETY: `i < len`, and `idx` is this thread's own unique index, so no other thread
            // can reach element `i` through safe code; `&mut self` stops a second borrow here.
            Some(unsafe { element::element_mut(self.ptr, i) })
        } else {
            None
        }
    }

    /// The element at `index`, with no bounds check and no proof of exclusivity.
    ///
    /// # Safety
    /// `index < self.len()`, and no other thread of the launch may read or write element `index`
    /// while the returned reference lives (data races are undefined behaviour).
    ///
    /// In the CPU emulator the call counts as a write of the element, checked against the
    /// other threads' (a race detector): two threads of a launch writing one element fail it
    /// with both threads and lines.
    #[track_caller]
    #[inline]
    pub unsafe fn get_unchecked_mut(&mut self, index: usize) -> &mut T {
        race::global_write(self.ptr.addr(), index);
        // SAFETY: forwarded to the caller.
        unsafe { element::element_mut(self.ptr, index) }
    }
}
