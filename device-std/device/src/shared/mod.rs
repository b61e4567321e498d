//! Block-shared memory (CUDA's `__shared__`).
//!
//! The safe form is a kernel parameter of type [`Shared<A>`](Shared) (`tile: Shared<[f32; 256]>`,
//! `tile: Shared<[[f32; 33]; 32]>`), which the launch does not pass, used in write and read phases
//! that the types track (see [`Shared`] and `phased.rs`); or, sized by the launch (CUDA's
//! `extern __shared__`), one [`DynShared<T>`](DynShared) parameter, whose length in elements
//! the launch passes.
//!
//! Under it is the unsafe primitive: a `static` of type [`SharedArray`]; every block of a launch has its own copy
//! of it, which all the threads of that block read and write through
//! [`SharedArray::as_mut_ptr`]:
//!
//! ```
//! use oxide_device::shared::SharedArray;
//! use oxide_device::thread::{self, sync_threads};
//!
//! static TILE: SharedArray<f32, 256> = SharedArray::new();
//!
//! /// Reverses each block's values (one per thread, at most 256 threads per block).
//! fn reverse_in_block(value: f32) -> f32 {
//!     let (t, n) = (thread::thread_idx_x() as usize, thread::block_dim_x() as usize);
//!     let tile = TILE.as_mut_ptr();
//!     assert!(n <= TILE.len());
//!     // SAFETY: each thread writes only element `t` of its block's copy; after the barrier
//!     // each reads element `n - 1 - t`, which its block wrote before the barrier.
//!     unsafe { tile.add(t).write(value) };
//!     sync_threads();
//!     unsafe { tile.add(n - 1 - t).read() }
//! }
//! # assert_eq!(reverse_in_block(2.5), 2.5);
//! ```
//!
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

use crate::host_context;

mod dynamic;
mod per_warp;
mod phased;
mod step;
mod warp_region;

pub use dynamic::{
    DYNAMIC_SHARED_ALIGN, DynShared, DynSharedRead, DynSharedWrite, DynamicSharedMemory, SlotsRead,
    SlotsWrite,
};
pub use per_warp::PerWarp;
pub use phased::{BlockPosition, Shared, SharedElem, SharedLayout, SharedRead, SharedWrite};
pub use step::{SharedStep, SlotMap};
pub use warp_region::{WarpRead, WarpRegions, WarpShared, WarpWrite};

/// `N` values of `T` in block-shared memory: declared as a `static`, one copy per block.
///
/// On the GPU, a `static` of this type is `.shared` memory (the backend reads the
/// `#[oxide_gpu::shared_memory]` mark): each block of a launch has its own copy, uninitialised when
/// the block starts, as CUDA's `__shared__` (the static's initializer, [`new`](Self::new), is
/// never run there). Under the CPU emulator, each emulated block gets a fresh copy too, filled
/// with a garbage pattern ([`host_context::SHARED_GARBAGE`]), so that a kernel that reads memory
/// its block has not written fails its tests; two emulations running at once have separate
/// copies. Called outside an emulation (a plain host call of a kernel's body, one simulated
/// thread), each OS thread has its own copy, for as long as it lives.
///
/// The only access is the raw pointer of [`as_mut_ptr`](Self::as_mut_ptr); what its reads and
/// writes must promise is written there.
#[oxide_gpu::shared_memory]
#[repr(transparent)]
pub struct SharedArray<T, const N: usize> {
    // Sized and aligned as the GPU's copy: the backend makes the `.shared` global from the
    // static's size and alignment. Never read or written on the host (each block's copy is the
    // runner's), so it stays uninitialised.
    _storage: UnsafeCell<MaybeUninit<[T; N]>>,
}

// SAFETY: a `SharedArray` holds no values itself: all access goes through `as_mut_ptr`, whose
// callers promise (with `unsafe`) that the threads of a block do not race. The values move
// between the block's threads, so they must be `Send`.
unsafe impl<T: Send, const N: usize> Sync for SharedArray<T, N> {}

impl<T, const N: usize> SharedArray<T, N> {
    /// The value a `static` is declared with: `static TILE: SharedArray<f32, 256> =
    /// SharedArray::new();`. It holds no values: each block's copy starts uninitialised.
    #[inline]
    pub const fn new() -> Self {
        SharedArray {
            _storage: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Number of elements of each block's copy.
    #[inline]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether the array has no elements.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// The first element of the calling thread's block's copy: valid for reads and writes of
    /// [`len`](Self::len) elements for as long as the block runs, and the same pointer for
    /// every thread of the block. `&'static self` because only a `static` is block-shared
    /// memory (a local `SharedArray` would be the thread's own on the GPU).
    ///
    /// The contents are uninitialised when the block starts. Reading or writing through the
    /// pointer is `unsafe`; the kernel promises, as in CUDA:
    ///
    /// - no two threads of the block write one element, and no thread reads an element that
    ///   another thread writes, without a [`sync_threads()`](crate::thread::sync_threads)
    ///   between the two accesses (every thread of the block reaching it);
    /// - no thread reads an element that no thread of its block has written in this block (a
    ///   block never sees another block's values, nor an earlier block's);
    /// - accesses stay within the `len()` elements, and the pointer is not used after the
    ///   block ends (the GPU reuses the memory for the next block).
    ///
    /// On the GPU the call is the address of the block's copy (the backend reads the
    /// `#[oxide_gpu::shared_address]` mark); this body is the host's, which asks the runner of the
    /// simulated thread for the block's copy.
    #[oxide_gpu::shared_address]
    #[inline(never)]
    pub fn as_mut_ptr(&'static self) -> *mut T {
        let key = core::ptr::from_ref(self).addr();
        host_context::block_shared(key, size_of::<Self>(), align_of::<Self>()).cast()
    }
}

impl<T: Copy, const N: usize> SharedArray<T, N> {
    /// Element `index` of the block's copy, read. In the CPU emulator the read is checked
    /// against the other threads' accesses since their last barrier (a race detector): a slot
    /// another thread wrote in the same phase, or one nobody of the block wrote, fails the
    /// launch with both threads and lines.
    ///
    /// # Safety
    /// No other thread of the block writes element `index` between the barriers around this
    /// read, and the block wrote it before.
    ///
    /// # Panics
    /// When `index >= N` (a trap on the GPU).
    #[track_caller]
    #[inline]
    pub unsafe fn read(&'static self, index: usize) -> T {
        assert!(index < N, "shared index out of bounds");
        crate::race::shared_read(self.key(), index);
        // SAFETY: in bounds; forwarded to the caller.
        unsafe { self.as_mut_ptr().add(index).read() }
    }

    /// Writes element `index` of the block's copy; checked in the emulator as [`read`](Self::read).
    ///
    /// # Safety
    /// No other thread of the block reads or writes element `index` between the barriers
    /// around this write.
    ///
    /// # Panics
    /// When `index >= N` (a trap on the GPU).
    #[track_caller]
    #[inline]
    pub unsafe fn write(&'static self, index: usize, value: T) {
        assert!(index < N, "shared index out of bounds");
        crate::race::shared_write(self.key(), index);
        // SAFETY: in bounds; forwarded to the caller.
        unsafe { self.as_mut_ptr().add(index).write(value) }
    }
}

impl<T, const N: usize> SharedArray<T, N> {
    /// What names the static to the race detector: its address.
    #[inline]
    fn key(&'static self) -> usize {
        core::ptr::from_ref(self).addr()
    }
}

impl<T, const N: usize> Default for SharedArray<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_context::SHARED_GARBAGE;

    static WORDS: SharedArray<u32, 16> = SharedArray::new();
    static BYTES: SharedArray<u8, 3> = SharedArray::new();
    static NOTHING: SharedArray<u64, 0> = SharedArray::new();

    #[test]
    fn the_static_is_the_size_of_the_gpu_copy() {
        assert_eq!(size_of::<SharedArray<u32, 16>>(), 64);
        assert_eq!(align_of::<SharedArray<u64, 2>>(), align_of::<u64>());
        assert_eq!((WORDS.len(), WORDS.is_empty()), (16, false));
        assert!(NOTHING.is_empty());
    }

    #[test]
    fn without_a_runner_each_os_thread_has_its_own_copy() {
        let words = WORDS.as_mut_ptr();
        assert!(words.is_aligned());
        assert_eq!(
            words,
            WORDS.as_mut_ptr(),
            "one copy per thread, not per call"
        );
        assert_ne!(
            words.cast::<u8>(),
            BYTES.as_mut_ptr(),
            "one copy per static"
        );
        let garbage = u32::from_ne_bytes([SHARED_GARBAGE; 4]);
        // SAFETY: this thread is the only one with this copy; 16 elements.
        unsafe {
            assert_eq!(
                words.read(),
                garbage,
                "a fresh copy holds the garbage pattern"
            );
            words.add(15).write(7);
        }
        let addr = words.addr();
        let (theirs, their_first) = std::thread::spawn(|| {
            let theirs = WORDS.as_mut_ptr();
            // SAFETY: as above, on this other thread.
            (theirs.addr(), unsafe { theirs.add(15).read() })
        })
        .join()
        .unwrap();
        assert_ne!(theirs, addr);
        assert_eq!(their_first, garbage);
        // SAFETY: as above.
        assert_eq!(unsafe { words.add(15).read() }, 7);
        assert!(NOTHING.as_mut_ptr().is_aligned());
    }
}
