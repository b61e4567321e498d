//! One writer per block or per warp: [`BlockSlots<T>`] (slot `b` is block `b`'s, written by its
//! first thread) and [`WarpSlots<T>`] (slot `w` is warp `w`'s of the grid, written by its lane
//! 0): CUDA's `if (threadIdx.x == 0) partial[blockIdx.x] = total;` and
//! `if (lane == 0) partial[warp] = total;`, without a slot per thread or an atomic.

use core::marker::PhantomData;

use crate::race;
use crate::thread;
use crate::warp::WARP_SIZE;

/// The calling thread's linear number in its block and its block's linear number in the grid.
#[inline]
fn thread_and_block() -> (usize, usize) {
    (thread::in_block().0 as usize, thread::block_in_grid())
}

macro_rules! slots {
    ($(#[$doc:meta])* $name:ident, $what:literal, $owner:expr) => {
        $(#[$doc])*
        ///
        /// The launch passes a `&mut DeviceBuffer<T>` (`&mut [T]` to the emulator), as for a
        /// `DisjointSlice<T>`, with the same layout and ABI (docs/contracts.md). Slots past the
        /// grid's are not written; a slot past the buffer's end is `None`.
        #[repr(C)]
        pub struct $name<'a, T> {
            ptr: *mut T,
            len: usize,
            // A unique borrow of `[T]` for `'a`; the raw pointer makes it neither `Send` nor
            // `Sync`.
            _marker: PhantomData<&'a mut [T]>,
        }

        crate::param::output_param!($name<'a, T>, words 0, counted);

        impl<'a, T> $name<'a, T> {
            /// Wraps `len` elements at `ptr` for `'a`. Kernels never call this: their arguments
            /// are built by the launch. It exists for the host emulator and for tests.
            ///
            /// # Safety
            /// As [`crate::DisjointSlice::from_raw_parts`]: valid for reads and writes for `'a`,
            /// the same `ptr` and `len` in every thread of the launch, nothing else accessing
            /// the memory meanwhile.
            #[inline]
            pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
                $name {
                    ptr,
                    len,
                    _marker: PhantomData,
                }
            }

            len_methods!("of the whole buffer");

            #[doc = concat!("The ", $what, "'s slot, in the one thread that owns it; `None` in every other thread, and \
                             when the slot is past the buffer's end.")]
            ///
            /// In the CPU emulator the call counts as a write of the slot for the race detector.
            #[track_caller]
            #[inline]
            pub fn slot_mut(&mut self) -> Option<&mut T> {
                let (in_block, block) = thread_and_block();
                let slot: usize = ($owner)(in_block, block)?;
                if slot >= self.len {
                    return None;
                }
                race::global_write(self.ptr.addr(), slot);
                // SAFETY: `slot < len`; the owner rule gives each slot to one thread of the
                // launch (see the type's documentation), and `&mut self` stops a second borrow
                // in that thread.
                Some(unsafe { crate::element::element_mut(self.ptr, slot) })
            }
        }
    };
}

slots!(
    /// An output with one slot per block: slot `b` (the block's linear number in the grid, x
    /// fastest) is written by the block's first thread (linear number 0 in the block), through
    /// [`slot_mut`](Self::slot_mut). Block numbers are distinct across the grid and a block
    /// has one first thread, so no two threads reach one slot.
    BlockSlots,
    "block",
    |in_block: usize, block: usize| (in_block == 0).then_some(block)
);

slots!(
    /// An output with one slot per warp of the grid: slot `b · w + k` for warp `k` (the
    /// thread's linear number in the block divided by 32) of block `b` (its linear number in
    /// the grid), with `w` warps per block (the block's threads divided by 32, rounded up), is
    /// written by that warp's lane 0, through [`slot_mut`](Self::slot_mut). Each warp of the
    /// grid has one number and one lane 0, so no two threads reach one slot.
    WarpSlots,
    "warp",
    |in_block: usize, block: usize| {
        let warps = (thread::in_block().1 as usize).div_ceil(WARP_SIZE as usize);
        let lane = in_block % WARP_SIZE as usize;
        (lane == 0)
            .then(|| block.checked_mul(warps)?.checked_add(in_block / WARP_SIZE as usize))
            .flatten()
    }
);
