//! Dynamic block-shared memory (CUDA's `extern __shared__`): one array per kernel whose length
//! the launch gives, used in the phases of [`Shared`](super::Shared).
//!
//! ```ignore
//! #[kernel]
//! pub fn block_reverse(values: &[f32], mut out: DisjointSlice<f32>, tile: DynShared<f32>) {
//!     let idx = ThreadIndex::linear();
//!     let mine = values.get(idx.get()).copied().unwrap_or(0.0);
//!     let tile = tile.init(|_slot| mine).sync();
//!     ...
//! }
//! // The launch gives the length in elements: `block_reverse::launch(&gpu, cfg, &v, &mut o, 256)`.
//! ```
//!
//! The rules are those of `Shared<[T; N]>` (docs/safety.md, "Shared memory is race-free") with
//! `N` the launch's length: thread `t` of a block of `n` threads owns slots `t`, `t + n`, ...;
//! the launch sets the launch's dynamic shared memory to exactly `len · size_of::<T>()` bytes,
//! so every slot below the length is the block's memory.

use core::marker::PhantomData;
use core::ops::Deref;

use super::phased::{BlockPosition, SharedElem};
use crate::{host_context, thread};

/// The block's dynamic shared memory: a `static` of this type is the start of the `extern
/// .shared` array whose size the launch gives (the backend reads the
/// `#[oxide_gpu::dynamic_shared_memory]` mark; aligned to 16 bytes). `#[kernel]` declares it
/// for a `DynShared<T>` parameter; nothing else should.
#[oxide_gpu::dynamic_shared_memory]
pub struct DynamicSharedMemory {
    // Not zero-sized, so that two of them have different addresses on the host, where the
    // address is the key of the block's copy.
    _key: u8,
}

impl DynamicSharedMemory {
    /// The value its `static` is declared with.
    #[inline]
    pub const fn new() -> Self {
        DynamicSharedMemory { _key: 0 }
    }
}

impl Default for DynamicSharedMemory {
    fn default() -> Self {
        Self::new()
    }
}

/// The alignment of the dynamic shared array on the GPU (`.align 16`), and of the host's copy.
pub const DYNAMIC_SHARED_ALIGN: usize = 16;

/// The address of the block's dynamic shared memory, `bytes` long. On the GPU the call is the
/// address of the `extern .shared` array (its first argument); on the host the runner's copy
/// for the block.
#[oxide_gpu::shared_address]
#[inline(never)]
fn dynamic_address(region: &'static DynamicSharedMemory, bytes: usize) -> *mut u8 {
    let key = core::ptr::from_ref(region).addr();
    host_context::block_shared(key, bytes.max(1), DYNAMIC_SHARED_ALIGN)
}

/// Keeps a view on the thread that made it (`!Send`, `!Sync`) and invariant in `T`.
type ThisThread<'k, T> = PhantomData<(&'k mut [T], *mut ())>;

/// A block-shared array of `len` elements sized by the launch, not written yet: the kernel
/// parameter `tile: DynShared<f32>` (the launch passes its length, in elements).
/// [`init`](Self::init) writes the slots this thread owns and starts the first write phase.
#[must_use = "a shared array is written with `init`"]
pub struct DynShared<'k, T: SharedElem> {
    base: *mut T,
    len: usize,
    _view: ThisThread<'k, T>,
}

/// The write phase of `len` slots that the threads of a block own by residues (thread `t` of
/// `n` owns `t`, `t + n`, ...): a dynamic shared array's, or a block's window of an output
/// (`BlockWindows`). This thread may read and write the slots it owns, and no others;
/// [`sync`](Self::sync) (a block barrier) ends the phase.
#[must_use = "a write phase ends with `sync`"]
pub struct SlotsWrite<'k, T: Send + Sync> {
    base: *mut T,
    len: usize,
    _view: ThisThread<'k, T>,
}

/// The read phase of such slots: every thread of the block may read every slot (it derefs to
/// `[T]`); [`sync`](Self::sync) (a block barrier) ends the phase.
pub struct SlotsRead<'k, T: Send + Sync> {
    base: *mut T,
    len: usize,
    _view: ThisThread<'k, T>,
}

/// The write phase of a [`DynShared`] array.
pub type DynSharedWrite<'k, T> = SlotsWrite<'k, T>;
/// The read phase of a [`DynShared`] array.
pub type DynSharedRead<'k, T> = SlotsRead<'k, T>;

/// The thread's linear number in its block and the block's thread count.
#[inline]
pub(crate) fn linear_in_block() -> (usize, usize) {
    let me = BlockPosition::current();
    let [x, y, z] = me.thread.map(|v| v as usize);
    let [bx, by, bz] = me.block.map(|v| v as usize);
    ((z * by + y) * bx + x, bx * by * bz)
}

impl<'k, T: SharedElem> DynShared<'k, T> {
    /// The array's first element and length, for a view that consumes it (a pipeline's stages).
    #[inline]
    pub(crate) fn into_parts(self) -> (*mut T, usize) {
        (self.base, self.len)
    }

    /// The calling thread's view of its block's dynamic shared memory, `len` elements. What
    /// `#[kernel]` calls, once, at the start of the kernel.
    ///
    /// # Safety
    /// Called once per thread for `region` in a launch, by the function the launch entered,
    /// which set the launch's dynamic shared memory to `len · size_of::<T>()` bytes (at least),
    /// and `region` is used by nothing else.
    #[doc(hidden)]
    #[inline]
    pub unsafe fn claim(region: &'static DynamicSharedMemory, len: usize, _call: &'k ()) -> Self {
        const { assert!(align_of::<T>() <= DYNAMIC_SHARED_ALIGN) };
        // A length of zero-sized elements costs no memory, so no launch limit bounds it.
        const {
            assert!(
                size_of::<T>() > 0,
                "a dynamic shared array of zero-sized elements"
            )
        };
        let bytes = len.saturating_mul(size_of::<T>());
        DynShared {
            base: dynamic_address(region, bytes).cast(),
            len,
            _view: PhantomData,
        }
    }

    len_methods!("(the launch's length)");

    /// Writes every slot this thread owns (`t`, `t + n`, ... below the length) with
    /// `value(slot)`, and starts the first write phase.
    #[inline]
    pub fn init(self, mut value: impl FnMut(usize) -> T) -> SlotsWrite<'k, T> {
        let (t, n) = linear_in_block();
        for k in 0..self.len.div_ceil(n) {
            let slot = t + k * n;
            if slot < self.len {
                // SAFETY: `slot < len`, in the block's memory; slot `slot` is owned by thread
                // `slot % n`, this one, alone, and nobody reads before the barrier.
                unsafe { self.base.add(slot).write(value(slot)) };
            }
        }
        SlotsWrite {
            base: self.base,
            len: self.len,
            _view: PhantomData,
        }
    }

    /// [`init`](Self::init) with `value` in every slot.
    #[inline]
    pub fn fill(self, value: T) -> SlotsWrite<'k, T>
    where
        T: Copy,
    {
        self.init(|_| value)
    }
}

impl<'k, T: Send + Sync> SlotsRead<'k, T> {
    /// The read phase of `len` slots at `base`.
    ///
    /// # Safety
    /// The slots are valid for `'k`, every one initialised; every thread of the block gets the
    /// same `base` and `len`, makes this view once, and nothing else accesses the slots while
    /// the block runs.
    #[inline]
    pub(crate) unsafe fn new(base: *mut T, len: usize) -> Self {
        SlotsRead {
            base,
            len,
            _view: PhantomData,
        }
    }
}

impl<'k, T: Send + Sync> SlotsWrite<'k, T> {
    /// The thread's `k`-th slot (`t + k·n`), `(slot, &mut element)`, or `None` past the end.
    #[inline]
    pub fn own_mut(&mut self, k: usize) -> Option<(usize, &mut T)> {
        let (t, n) = linear_in_block();
        let slot = k.checked_mul(n)?.checked_add(t)?;
        // SAFETY: in the array, owned by this thread alone in a write phase; `&mut self` lends
        // one slot at a time.
        (slot < self.len).then(|| {
            (slot, unsafe {
                crate::element::element_mut(self.base, slot)
            })
        })
    }

    len_methods!("of the slots");

    /// Ends the write phase with a block barrier: what every thread wrote is visible to all.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> SlotsRead<'k, T> {
        thread::end_write_phase(self.base.cast());
        SlotsRead {
            base: self.base,
            len: self.len,
            _view: PhantomData,
        }
    }
}

impl<'k, T: Send + Sync> SlotsRead<'k, T> {
    /// Ends the read phase with a block barrier: each thread may write its own slots again.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> SlotsWrite<'k, T> {
        thread::end_read_phase(self.base.cast());
        SlotsWrite {
            base: self.base,
            len: self.len,
            _view: PhantomData,
        }
    }
}

impl<T: Send + Sync> Deref for SlotsRead<'_, T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `len` elements of the block's memory, every one written before the barrier
        // that began this phase (`init` reached every slot), nobody writes in a read phase
        // except through atomics, and the borrow ends with `self`, before the next barrier.
        unsafe { core::slice::from_raw_parts(self.base, self.len) }
    }
}
