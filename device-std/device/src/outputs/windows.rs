//! [`BlockWindows<T, W>`]: an output (or in-place buffer) seen as windows of `W` consecutive
//! elements, window `b` owned by block `b`, whose threads read and write it in the phases of
//! block-shared memory: the whole window readable by all, then each thread's own slots
//! writable, a barrier between (CUDA's block-local in-place pass over global memory).

use core::marker::PhantomData;

use crate::shared::{SlotsRead, SlotsWrite};
use crate::thread;

/// A buffer of the launch cut into windows of `W` elements (the last may be shorter): block
/// `b` (its linear number in the grid, x fastest) owns window `b`, elements `b·W ..`, and no
/// other block touches them. [`window`](Self::window) starts its threads in a read phase:
/// every thread may read the whole window (it holds what the launch's buffer held);
/// [`SlotsRead::sync`] (a block barrier) turns it into a write phase in which thread `t` of a
/// block of `n` owns the window's slots `t`, `t + n`, ...; another `sync` makes it readable
/// again ("Shared memory is race-free" in docs/safety.md holds for it as for `DynShared`).
///
/// The launch passes a `&mut DeviceBuffer<T>` (`&mut [T]` to the emulator), as for a
/// `DisjointSlice<T>`, with the same layout and ABI (docs/contracts.md).
#[repr(C)]
pub struct BlockWindows<'a, T, const W: usize> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<&'a mut [T]>,
}

crate::param::output_param!(BlockWindows<'a, T, const W>, words 0, counted);

impl<'a, T: Send + Sync, const W: usize> BlockWindows<'a, T, W> {
    /// Wraps `len` elements at `ptr` for `'a`. Kernels never call this: their arguments are
    /// built by the launch. It exists for the host emulator and for tests.
    ///
    /// # Safety
    /// As [`crate::DisjointSlice::from_raw_parts`]: valid and initialised for `'a`, the same
    /// `ptr` and `len` in every thread, nothing else accessing the memory meanwhile; each
    /// thread calls [`window`](Self::window) on its own value.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        const { assert!(W > 0, "a window has at least one element") };
        BlockWindows {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    len_methods!("of the whole buffer");

    /// The calling block's window in its read phase, and where it starts in the buffer; `None`
    /// for a block past the buffer's end (the same for every thread of a block). Consumes the
    /// parameter: a thread has one view of its window, so all the threads of a block go
    /// through the same phases.
    #[inline]
    pub fn window(self) -> Option<(usize, SlotsRead<'a, T>)> {
        let block = thread::block_in_grid();
        let start = block.checked_mul(W)?;
        if start >= self.len {
            return None;
        }
        let len = W.min(self.len - start);
        // SAFETY: elements `start .. start + len` are in the buffer and belong to this block
        // alone (windows do not overlap, and the block's number is the same for all its
        // threads); each thread makes this one view (`self` is consumed), and the phases of
        // `SlotsRead`/`SlotsWrite` keep the block's threads from racing in it.
        Some((start, unsafe { SlotsRead::new(self.ptr.add(start), len) }))
    }
}

/// A write phase of a window, as [`BlockWindows::window`] leads to.
pub type WindowWrite<'a, T> = SlotsWrite<'a, T>;
