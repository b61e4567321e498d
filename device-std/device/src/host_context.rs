//! What the device intrinsics do on the host: the simulated GPU thread of the calling OS thread,
//! and the hooks through which a runner of many simulated threads (the CPU emulator,
//! `oxide-emulator`) gives the intrinsics that need other threads (a barrier, a warp exchange)
//! their meaning.
//!
//! On the GPU none of this exists: the backend replaces each intrinsic by its instruction, so
//! these bodies are never compiled for the device.
//!
//! Without a runner, an OS thread is thread 0 of a grid of one block of one thread
//! ([`ThreadContext::SINGLE`]), or the thread [`with_thread_context`] names: `sync_threads()`
//! does nothing and a shuffle returns the lane's own value. A runner makes an OS thread one
//! thread of a real grid with [`install`]: the [`Installed`] value it keeps is the only way to
//! change that thread's indices afterwards, and [`with_thread_context`] refuses to run there, so
//! kernel code cannot change which GPU thread it is (which would let two threads hold the same
//! [`crate::ThreadIndex`]).
//!
//! Block-shared memory ([`crate::shared::SharedArray`]) is the runner's too: each block gets its
//! own copy from [`ThreadHost::block_shared`] (the emulator keeps a [`BlockShared`] per block);
//! without a runner, each OS thread has its own.

use std::alloc::{self, Layout};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::rc::Rc;

use crate::warp::WARP_SIZE;

/// Indices and dimensions of one simulated GPU thread, each as `[x, y, z]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadContext {
    /// `threadIdx`: this thread's position in its block.
    pub thread_idx: [u32; 3],
    /// `blockIdx`: this thread's block's position in the grid.
    pub block_idx: [u32; 3],
    /// `blockDim`: threads per block along each axis.
    pub block_dim: [u32; 3],
    /// `gridDim`: blocks per grid along each axis.
    pub grid_dim: [u32; 3],
}

impl ThreadContext {
    /// Thread 0 of a grid of one block of one thread: what a plain host call of a kernel sees.
    pub const SINGLE: ThreadContext = ThreadContext {
        thread_idx: [0; 3],
        block_idx: [0; 3],
        block_dim: [1; 3],
        grid_dim: [1; 3],
    };

    /// The thread's linear number in its block, x fastest:
    /// `(z * block_dim_y + y) * block_dim_x + x`. Warps are cut from this order.
    pub fn thread_in_block(&self) -> u32 {
        let [x, y, z] = self.thread_idx;
        (z * self.block_dim[1] + y) * self.block_dim[0] + x
    }

    /// The thread's lane in its warp (`%laneid`): [`thread_in_block`](Self::thread_in_block)
    /// modulo the warp size.
    pub fn lane(&self) -> u32 {
        self.thread_in_block() % WARP_SIZE
    }
}

impl Default for ThreadContext {
    fn default() -> Self {
        Self::SINGLE
    }
}

/// The values the lanes of a warp published in one exchange ([`ThreadHost::warp_exchange`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpValues {
    values: [u64; WARP_SIZE as usize],
    present: u32,
}

impl WarpValues {
    /// No lane has published yet.
    pub const EMPTY: WarpValues = WarpValues {
        values: [0; WARP_SIZE as usize],
        present: 0,
    };

    /// Records `value` as lane `lane`'s.
    ///
    /// # Panics
    /// When `lane` is not below [`WARP_SIZE`].
    pub fn publish(&mut self, lane: u32, value: u64) {
        self.values[lane as usize] = value;
        self.present |= 1 << lane;
    }

    /// Lane `lane`'s value, or `None` when it took no part in the exchange.
    pub fn get(&self, lane: u32) -> Option<u64> {
        (lane < WARP_SIZE && self.present & (1 << lane) != 0).then(|| self.values[lane as usize])
    }

    /// The lanes that took part, one bit per lane.
    pub fn present(&self) -> u32 {
        self.present
    }
}

/// What a runner of many simulated threads provides to the intrinsics of the threads it runs.
/// One value per OS thread, installed with [`install`]; its methods run on that OS thread.
pub trait ThreadHost {
    /// The host body of [`crate::thread::sync_threads`]: returns when every thread of the block
    /// has reached it. May unwind instead (the runner's way to stop a block that failed).
    fn sync_threads(&self, at: &'static core::panic::Location<'static>);

    /// The calling lane's part in a warp exchange (the host body of every shuffle): publishes
    /// `value`, waits until every lane of the warp named in `mask` that can still take part
    /// has published (with the same `mask`), and returns what the lanes published. The caller
    /// has checked that its own lane is in `mask`. May unwind like
    /// [`sync_threads`](Self::sync_threads).
    fn warp_exchange(&self, mask: u32, value: u64) -> WarpValues;

    /// The calling thread's block's copy of the block-shared static at address `key`, `size`
    /// bytes aligned to `align` (the host body of
    /// [`SharedArray::as_mut_ptr`](crate::shared::SharedArray::as_mut_ptr)): the same pointer
    /// for every thread of the block, a fresh copy for each block, valid until the block ends.
    /// A fresh copy holds [`SHARED_GARBAGE`] in every byte ([`BlockShared`] does all that).
    fn block_shared(&self, key: usize, size: usize, align: usize) -> *mut u8;

    /// Checks the calling thread's `access` against the others' since their last common
    /// barrier (the CPU emulator's race detector, docs/safety.md); `Err` says what races, and
    /// the thread then panics with it. The default checks nothing.
    fn check_access(&self, access: &MemoryAccess) -> Result<(), String> {
        let _ = access;
        Ok(())
    }
}

/// Which memory an access the race detector checks is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// A block-shared static, by the address of the static (each block has its own copy).
    Shared,
    /// A buffer of the launch (a kernel's output), by its address.
    Global,
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
}

/// One read or write of an element, as the race detector sees it: `unsafe` code's accesses
/// through `SharedArray::read`/`write` and `DisjointSlice::get_unchecked_mut`.
#[derive(Clone, Copy, Debug)]
pub struct MemoryAccess {
    pub memory: Memory,
    /// The static's or the buffer's address.
    pub region: usize,
    /// The element's index.
    pub index: usize,
    pub kind: AccessKind,
    /// Where the kernel's code made the access.
    pub location: &'static core::panic::Location<'static>,
}

/// The byte a fresh host copy of block-shared memory is filled with. On the GPU the memory is
/// uninitialised; here it is not zero, so that a kernel that reads what its block did not write
/// computes garbage: `0xFF` makes every `f32`/`f64` a NaN and every integer all ones.
pub const SHARED_GARBAGE: u8 = 0xFF;

/// The copies of the block-shared statics of one block (or of one OS thread without a runner),
/// made on first use and freed with the value (or by [`clear`](Self::clear)).
#[derive(Default)]
pub struct BlockShared {
    copies: HashMap<usize, (NonNull<u8>, Layout)>,
}

impl BlockShared {
    /// No copies yet.
    pub fn new() -> BlockShared {
        BlockShared::default()
    }

    /// The copy of the static at address `key` (`size` bytes, aligned to `align`), made and
    /// filled with [`SHARED_GARBAGE`] on first use. Valid until [`clear`](Self::clear) or drop.
    ///
    /// # Panics
    /// When `align` is not a power of two, when the size overflows, or when `key` was asked for
    /// before with another size or alignment (two statics never share an address unless they
    /// are zero-sized, which have no copy).
    pub fn get(&mut self, key: usize, size: usize, align: usize) -> *mut u8 {
        let layout = Layout::from_size_align(size, align).unwrap_or_else(|e| {
            panic!("block-shared memory of {size} bytes aligned to {align}: {e}")
        });
        if size == 0 {
            // Nothing to read or write: any aligned, non-null address will do.
            return std::ptr::without_provenance_mut(align);
        }
        let (copy, known) = *self.copies.entry(key).or_insert_with(|| {
            // SAFETY: `layout` has a non-zero size.
            let raw = unsafe { alloc::alloc(layout) };
            let Some(copy) = NonNull::new(raw) else {
                alloc::handle_alloc_error(layout)
            };
            // SAFETY: `copy` is valid for `size` bytes, just allocated.
            unsafe { copy.write_bytes(SHARED_GARBAGE, size) };
            (copy, layout)
        });
        assert_eq!(
            known, layout,
            "block-shared memory at {key:#x} asked for with two layouts"
        );
        copy.as_ptr()
    }

    /// Frees every copy (the block ended): the next [`get`](Self::get) makes a fresh one.
    pub fn clear(&mut self) {
        for (_, (copy, layout)) in self.copies.drain() {
            // SAFETY: allocated by `get` with this layout, and freed once (drained).
            unsafe { alloc::dealloc(copy.as_ptr(), layout) };
        }
    }
}

impl Drop for BlockShared {
    fn drop(&mut self) {
        self.clear();
    }
}

// SAFETY: a `BlockShared` owns its allocations (as a `Vec<Box<[u8]>>` would); the pointers it
// hands out are used under the contract of `SharedArray::as_mut_ptr`.
unsafe impl Send for BlockShared {}

thread_local! {
    static CONTEXT: Cell<ThreadContext> = const { Cell::new(ThreadContext::SINGLE) };
    static HOST: RefCell<Option<Rc<dyn ThreadHost>>> = const { RefCell::new(None) };
    /// Block-shared memory of a thread without a runner (a block of one thread).
    static OWN_SHARED: RefCell<BlockShared> = RefCell::default();
}

/// The calling OS thread's simulated GPU thread.
pub fn current() -> ThreadContext {
    CONTEXT.with(Cell::get)
}

/// Whether a runner has installed itself on the calling OS thread (false also while the
/// thread's locals are being destroyed).
pub fn is_installed() -> bool {
    HOST.try_with(|h| h.try_borrow().map_or(true, |h| h.is_some()))
        .unwrap_or(false)
}

fn host() -> Option<Rc<dyn ThreadHost>> {
    HOST.with(|h| h.borrow().clone())
}

/// Makes the calling OS thread the simulated GPU thread `ctx` of `host`, until the returned
/// value is dropped. Only the holder of the [`Installed`] value can change the thread's
/// indices afterwards.
///
/// # Panics
/// When a runner is installed on this thread already.
pub fn install(host: Rc<dyn ThreadHost>, ctx: ThreadContext) -> Installed {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        assert!(
            h.is_none(),
            "oxide_device::host_context::install: this OS thread already runs a simulated GPU \
             thread"
        );
        *h = Some(host);
    });
    let previous = CONTEXT.with(|c| c.replace(ctx));
    Installed {
        previous,
        _not_send: PhantomData,
    }
}

/// A runner installed on the calling OS thread ([`install`]); dropping it uninstalls the runner
/// and restores the thread's previous context. Neither `Send` nor `Sync`: it belongs to the
/// OS thread it was made on.
pub struct Installed {
    previous: ThreadContext,
    _not_send: PhantomData<*const ()>,
}

impl Installed {
    /// Makes the thread the simulated GPU thread `ctx` (the runner moves it to another block).
    pub fn set_context(&self, ctx: ThreadContext) {
        CONTEXT.with(|c| c.set(ctx));
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        // Also during unwinding or thread exit, so never panic on destroyed locals.
        let _ = HOST.try_with(|h| h.borrow_mut().take());
        let _ = CONTEXT.try_with(|c| c.set(self.previous));
    }
}

/// Runs `f` as the simulated GPU thread `ctx` on the calling OS thread, then restores the
/// previous context (also when `f` panics). This runs one simulated thread at a time, with no
/// other thread to wait for: [`crate::thread::sync_threads`] does nothing and a shuffle returns
/// the lane's own value. The emulator's `run` runs a whole grid.
///
/// # Panics
/// On a thread a runner has installed itself on ([`install`]): an emulated thread cannot change
/// which GPU thread it is (that would let two threads hold the same [`crate::ThreadIndex`]).
pub fn with_thread_context(ctx: ThreadContext, f: impl FnOnce()) {
    assert!(
        !is_installed(),
        "with_thread_context called on a thread of oxide::emulate::run: an emulated GPU thread \
         cannot change its indices"
    );
    struct Restore(ThreadContext);
    impl Drop for Restore {
        fn drop(&mut self) {
            CONTEXT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CONTEXT.with(|c| c.replace(ctx)));
    f();
}

/// The host body of [`crate::thread::sync_threads`].
#[track_caller]
pub(crate) fn sync_threads() {
    if let Some(host) = host() {
        host.sync_threads(core::panic::Location::caller());
    }
}

/// The host body of the race detector's hook: a race the runner finds is a panic of the
/// calling thread, at the kernel's line.
#[track_caller]
pub(crate) fn check_access(memory: Memory, region: usize, index: usize, kind: AccessKind) {
    let Some(host) = host() else { return };
    let access = MemoryAccess {
        memory,
        region,
        index,
        kind,
        location: core::panic::Location::caller(),
    };
    if let Err(race) = host.check_access(&access) {
        panic!("{race}");
    }
}

/// The host body of a shuffle: the warp's values, or `None` without a runner (one thread).
pub(crate) fn warp_exchange(mask: u32, value: u64) -> Option<WarpValues> {
    host().map(|host| host.warp_exchange(mask, value))
}

/// The host body of [`crate::shared::SharedArray::as_mut_ptr`]: the runner's copy for the
/// block, or without a runner the OS thread's own.
pub(crate) fn block_shared(key: usize, size: usize, align: usize) -> *mut u8 {
    match host() {
        Some(host) => host.block_shared(key, size, align),
        None => OWN_SHARED.with(|own| own.borrow_mut().get(key, size, align)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runner of one thread that counts what the intrinsics asked of it.
    #[derive(Default)]
    struct Counting {
        syncs: Cell<u32>,
        exchanges: Cell<u32>,
        shared: RefCell<BlockShared>,
    }

    impl ThreadHost for Counting {
        fn sync_threads(&self, _at: &'static core::panic::Location<'static>) {
            self.syncs.set(self.syncs.get() + 1);
        }

        fn warp_exchange(&self, _mask: u32, value: u64) -> WarpValues {
            self.exchanges.set(self.exchanges.get() + 1);
            let mut values = WarpValues::EMPTY;
            values.publish(current().lane(), value);
            values
        }

        fn block_shared(&self, key: usize, size: usize, align: usize) -> *mut u8 {
            self.shared.borrow_mut().get(key, size, align)
        }
    }

    fn thread(x: u32, block_dim: [u32; 3]) -> ThreadContext {
        ThreadContext {
            thread_idx: [x % block_dim[0], x / block_dim[0], 0],
            block_idx: [0; 3],
            block_dim,
            grid_dim: [1; 3],
        }
    }

    #[test]
    fn lanes_follow_the_linear_order_in_the_block() {
        assert_eq!(ThreadContext::SINGLE.lane(), 0);
        let ctx = thread(8 * 5 + 3, [8, 8, 1]);
        assert_eq!(ctx.thread_idx, [3, 5, 0]);
        assert_eq!(ctx.thread_in_block(), 43);
        assert_eq!(ctx.lane(), 11);
        let ctx = ThreadContext {
            thread_idx: [1, 2, 3],
            block_dim: [4, 4, 4],
            ..ThreadContext::SINGLE
        };
        assert_eq!(ctx.thread_in_block(), (3 * 4 + 2) * 4 + 1);
        assert_eq!(ctx.lane(), 57 % 32);
    }

    #[test]
    fn warp_values_record_who_took_part() {
        let mut values = WarpValues::EMPTY;
        assert_eq!(values.get(0), None);
        values.publish(0, 7);
        values.publish(31, u64::MAX);
        assert_eq!(values.get(0), Some(7));
        assert_eq!(values.get(31), Some(u64::MAX));
        assert_eq!(values.get(1), None);
        assert_eq!(values.get(32), None);
        assert_eq!(values.present(), 1 | 1 << 31);
    }

    #[test]
    fn an_installed_runner_gets_the_calls_until_dropped() {
        let runner = Rc::new(Counting::default());
        let ctx = thread(33, [64, 1, 1]);
        assert!(!is_installed());
        let installed = install(runner.clone(), ctx);
        assert!(is_installed());
        assert_eq!(current(), ctx);
        crate::thread::sync_threads();
        assert_eq!(
            unsafe { crate::warp::shfl_sync_idx_i32(!0, -5, 1, 0x1f) },
            -5
        );
        assert_eq!((runner.syncs.get(), runner.exchanges.get()), (1, 1));
        let next = ThreadContext {
            block_idx: [1, 0, 0],
            ..ctx
        };
        installed.set_context(next);
        assert_eq!(current(), next);
        // Kernel code cannot change which thread it is.
        let refused = std::panic::catch_unwind(|| with_thread_context(ctx, || {}));
        assert!(refused.is_err());
        let twice = std::panic::catch_unwind(|| drop(install(Rc::new(Counting::default()), ctx)));
        assert!(twice.is_err());
        assert_eq!(current(), next);
        drop(installed);
        assert!(!is_installed());
        assert_eq!(current(), ThreadContext::SINGLE);
        crate::thread::sync_threads();
        assert_eq!(runner.syncs.get(), 1);
    }

    #[test]
    fn block_shared_copies_are_fresh_garbage_until_cleared() {
        let mut block = BlockShared::new();
        let a = block.get(0x1000, 24, 8);
        assert!(a.cast::<u64>().is_aligned());
        assert_eq!(block.get(0x1000, 24, 8), a, "one copy per key");
        let b = block.get(0x2000, 1, 1);
        assert_ne!(a, b);
        // SAFETY: `a` is 24 bytes, valid until `clear`.
        unsafe {
            assert!((0..24).all(|i| a.add(i).read() == SHARED_GARBAGE));
            a.write_bytes(0, 24);
        }
        block.clear();
        let again = block.get(0x1000, 24, 8);
        // SAFETY: as above, a fresh copy.
        assert!((0..24).all(|i| unsafe { again.add(i).read() } == SHARED_GARBAGE));
        assert!(block.get(0x3000, 0, 16).cast::<u128>().is_aligned());
        let two_layouts =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| block.get(0x1000, 16, 8)));
        assert!(two_layouts.is_err());
    }

    #[test]
    fn an_installed_runner_owns_block_shared_memory() {
        let own = block_shared(0x40, 4, 4);
        let runner = Rc::new(Counting::default());
        let installed = install(runner.clone(), ThreadContext::SINGLE);
        let theirs = block_shared(0x40, 4, 4);
        assert_ne!(own, theirs);
        assert_eq!(runner.shared.borrow_mut().get(0x40, 4, 4), theirs);
        drop(installed);
        assert_eq!(block_shared(0x40, 4, 4), own);
    }
}
