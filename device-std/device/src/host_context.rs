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
//! The host bodies trust the context and the runner: a block collective writes the scratch
//! slot of its warp, a shared array's layout gives each thread of the block its own slots, and
//! shared memory is whatever pointer the runner returns. So no safe function gives a body
//! a context that is not a thread of a valid launch (each is checked,
//! [`ThreadContext::validate`]), and a runner is `unsafe` to write ([`ThreadHost`]) and to
//! install ([`install`], [`Installed::set_context`]): docs/safety.md, "Host bodies run only
//! in valid thread contexts".
//!
//! Block-shared memory ([`crate::shared::SharedArray`]) is the runner's too: each block gets its
//! own copy from [`ThreadHost::block_shared`] (the emulator keeps a [`BlockShared`] per block);
//! without a runner, each OS thread has its own.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::rc::Rc;

mod block_shared;
mod context;

pub use block_shared::{BlockShared, SHARED_GARBAGE};
pub use context::{
    InvalidContext, MAX_BLOCK, MAX_BLOCK_THREADS, MAX_GRID, ThreadContext, WARP_SIZE, check_shape,
};

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

/// What a block barrier synchronises: the CPU emulator lets the threads of a block pass a
/// barrier only when all of them arrive with the same one (docs/safety.md, "The emulator pairs
/// barriers by what they synchronise"), wherever they called it from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Barrier {
    /// [`crate::thread::sync_threads`] itself: it ends no phase that the types track.
    Plain,
    /// The end of a write phase of the block's slots at address `region` (its copy of a shared
    /// array, its dynamic shared memory, its window of an output, the block collectives'
    /// scratch): after it every thread may read every slot.
    EndOfWrite { region: usize },
    /// The end of a read phase of the slots at `region`: after it each thread may write its own.
    EndOfRead { region: usize },
    /// The start of a computed-slot step of the slots at `region` (ending the phase before it):
    /// after it each thread may write the slots `map` gives it
    /// ([`SlotMap`](crate::shared::SlotMap): stride, start, length, writers). The threads of a
    /// block pass it together only when all of them give the same map.
    BeginStep { region: usize, map: [usize; 4] },
}

impl Barrier {
    /// The slots whose phase the barrier ends, if it ends one.
    pub fn region(self) -> Option<usize> {
        match self {
            Barrier::Plain => None,
            Barrier::EndOfWrite { region }
            | Barrier::EndOfRead { region }
            | Barrier::BeginStep { region, .. } => Some(region),
        }
    }
}

/// What a runner of many simulated threads provides to the intrinsics of the threads it runs.
/// One value per OS thread, installed with [`install`]; its methods run on that OS thread.
///
/// # Safety
/// The host bodies of the intrinsics build safe abstractions on what a runner does, so an
/// implementation promises, for every OS thread it is installed on:
/// - [`sync_threads`](Self::sync_threads) returns only when every thread of the calling
///   thread's block has called it with the same [`Barrier`] (or unwinds instead of
///   returning), and orders memory as `__syncthreads` does: what any thread of the block did
///   before the barrier happens before what every thread does after it. (The phases of
///   block-shared memory are race-free only so.)
/// - [`block_shared`](Self::block_shared) returns a pointer valid for reads and writes of
///   `size` bytes, aligned to `align`, initialised (with [`SHARED_GARBAGE`] when fresh), the
///   same for every thread of the calling thread's block and for no other block, and left
///   valid until every thread of the block has finished it.
/// - [`warp_exchange`](Self::warp_exchange) returns once the lanes it reports have published
///   for this exchange, and reports only values they published.
pub unsafe trait ThreadHost {
    /// The host body of [`crate::thread::sync_threads`] and of the barriers that end the
    /// phases of block-shared memory: returns when every thread of the block has reached a
    /// barrier, each with the same `barrier` (`at` is where the kernel called it, for
    /// messages). May unwind instead (the runner's way to stop a block that failed).
    fn sync_threads(&self, barrier: Barrier, at: &'static core::panic::Location<'static>);

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

/// `ctx`, or a panic naming `what` and why `ctx` is no thread of a valid launch.
#[track_caller]
fn checked(ctx: ThreadContext, what: &str) -> ThreadContext {
    if let Err(e) = ctx.validate() {
        panic!("{what}: {e} ({ctx:?})");
    }
    ctx
}

/// Makes the calling OS thread the simulated GPU thread `ctx` of `host`, until the returned
/// value is dropped. Only the holder of the [`Installed`] value can change the thread's
/// indices afterwards.
///
/// # Safety
/// The caller runs a launch with `host`: every OS thread it installs `host`'s runner on plays
/// threads of one grid, each block's threads at once, sharing what [`ThreadHost`] promises
/// per block, and over the whole launch no two of its OS threads are ever given the context
/// of the same GPU thread (here or by [`Installed::set_context`]): `ThreadIndex` is unique
/// only so, and `DisjointSlice` relies on it.
///
/// # Panics
/// When a runner is installed on this thread already, or `ctx` is not a thread of a valid
/// launch ([`ThreadContext::validate`]).
pub unsafe fn install(host: Rc<dyn ThreadHost>, ctx: ThreadContext) -> Installed {
    let ctx = checked(ctx, "oxide_device::host_context::install");
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
    ///
    /// # Safety
    /// As for [`install`]: `ctx` is a thread of the runner's launch that no other OS thread of
    /// the launch is ever given.
    ///
    /// # Panics
    /// When `ctx` is not a thread of a valid launch ([`ThreadContext::validate`]).
    pub unsafe fn set_context(&self, ctx: ThreadContext) {
        let ctx = checked(ctx, "oxide_device::host_context::Installed::set_context");
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
/// Before running `f`:
/// - when `ctx` is not a thread of a launch the GPU can run ([`ThreadContext::validate`]: a
///   thread index outside its block, a block outside its grid, a dimension of 0 or above the
///   hardware's, more than 1024 threads per block): the host bodies of device-std index
///   memory by these values;
/// - on a thread a runner has installed itself on ([`install`]): an emulated thread cannot
///   change which GPU thread it is (that would let two threads hold the same
///   [`crate::ThreadIndex`]).
#[track_caller]
pub fn with_thread_context(ctx: ThreadContext, f: impl FnOnce()) {
    assert!(
        !is_installed(),
        "with_thread_context called on a thread of oxide::emulate::run: an emulated GPU thread \
         cannot change its indices"
    );
    let ctx = checked(ctx, "with_thread_context");
    struct Restore(ThreadContext);
    impl Drop for Restore {
        fn drop(&mut self) {
            CONTEXT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CONTEXT.with(|c| c.replace(ctx)));
    f();
}

/// The host body of every block barrier ([`crate::thread::sync_threads`] and the ends of the
/// phases of shared memory): the runner's barrier, or nothing without a runner (one thread).
#[track_caller]
pub(crate) fn sync_threads(barrier: Barrier) {
    if let Some(host) = host() {
        host.sync_threads(barrier, core::panic::Location::caller());
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
        syncs: RefCell<Vec<Barrier>>,
        exchanges: Cell<u32>,
        shared: RefCell<BlockShared>,
    }

    // SAFETY: installed on one OS thread only, the only thread of its blocks that runs: its
    // barrier has nobody to wait for, its shared copies are that thread's alone, and its
    // exchange reports the caller's own value.
    unsafe impl ThreadHost for Counting {
        fn sync_threads(&self, barrier: Barrier, _at: &'static core::panic::Location<'static>) {
            self.syncs.borrow_mut().push(barrier);
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

    fn thread_33_of_64() -> ThreadContext {
        ThreadContext {
            thread_idx: [33, 0, 0],
            block_idx: [0; 3],
            block_dim: [64, 1, 1],
            grid_dim: [2, 1, 1],
        }
    }

    #[test]
    fn an_installed_runner_gets_the_calls_until_dropped() {
        let runner = Rc::new(Counting::default());
        let ctx = thread_33_of_64();
        assert!(!is_installed());
        // SAFETY: `Counting`'s promises hold on this one OS thread (above).
        let installed = unsafe { install(runner.clone(), ctx) };
        assert!(is_installed());
        assert_eq!(current(), ctx);
        crate::thread::sync_threads();
        assert_eq!(
            unsafe { crate::warp::shfl_sync_idx_i32(!0, -5, 1, 0x1f) },
            -5
        );
        assert_eq!(*runner.syncs.borrow(), [Barrier::Plain]);
        assert_eq!(runner.exchanges.get(), 1);
        let next = ThreadContext {
            block_idx: [1, 0, 0],
            ..ctx
        };
        // SAFETY: as above, the next block.
        unsafe { installed.set_context(next) };
        assert_eq!(current(), next);
        // Kernel code cannot change which thread it is.
        let refused = std::panic::catch_unwind(|| with_thread_context(ctx, || {}));
        assert!(refused.is_err());
        let twice = std::panic::catch_unwind(|| {
            // SAFETY: refused before anything is installed.
            unsafe { drop(install(Rc::new(Counting::default()), ctx)) }
        });
        assert!(twice.is_err());
        assert_eq!(current(), next);
        drop(installed);
        assert!(!is_installed());
        assert_eq!(current(), ThreadContext::SINGLE);
        crate::thread::sync_threads();
        assert_eq!(runner.syncs.borrow().len(), 1);
    }

    #[test]
    fn a_runner_is_given_valid_contexts_only() {
        let runner = Rc::new(Counting::default());
        let outside = ThreadContext {
            thread_idx: [64, 0, 0],
            ..thread_33_of_64()
        };
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: refused before anything is installed.
            unsafe { drop(install(runner.clone(), outside)) }
        }));
        assert!(refused.is_err());
        assert!(!is_installed());
        // SAFETY: as in `an_installed_runner_gets_the_calls_until_dropped`.
        let installed = unsafe { install(runner, thread_33_of_64()) };
        let past_the_grid = ThreadContext {
            block_idx: [2, 0, 0],
            ..thread_33_of_64()
        };
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: refused before the context changes.
            unsafe { installed.set_context(past_the_grid) }
        }));
        assert!(refused.is_err());
        assert_eq!(current(), thread_33_of_64());
    }

    #[test]
    fn with_thread_context_refuses_a_thread_outside_its_block() {
        for bad in [
            ThreadContext {
                thread_idx: [3200, 0, 0],
                ..ThreadContext::SINGLE
            },
            ThreadContext {
                block_idx: [0, 1, 0],
                ..ThreadContext::SINGLE
            },
            ThreadContext {
                block_dim: [65536, 65536, 1],
                ..ThreadContext::SINGLE
            },
            ThreadContext {
                block_dim: [0, 1, 1],
                ..ThreadContext::SINGLE
            },
        ] {
            let mut ran = false;
            let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_thread_context(bad, || ran = true)
            }));
            let message = *refused.expect_err("refused").downcast::<String>().unwrap();
            assert!(
                message.starts_with("with_thread_context: not a thread of a valid launch"),
                "{message}"
            );
            assert!(!ran, "{bad:?} ran");
            assert_eq!(current(), ThreadContext::SINGLE);
        }
    }

    #[test]
    fn phase_ends_name_their_slots() {
        let runner = Rc::new(Counting::default());
        // SAFETY: as in `an_installed_runner_gets_the_calls_until_dropped`.
        let installed = unsafe { install(runner.clone(), ThreadContext::SINGLE) };
        let slots = [0u32; 4];
        let region = slots.as_ptr().cast_mut().cast::<u8>();
        crate::thread::end_write_phase(region);
        crate::thread::end_read_phase(region);
        crate::thread::sync_threads();
        drop(installed);
        let region = region.addr();
        assert_eq!(
            *runner.syncs.borrow(),
            [
                Barrier::EndOfWrite { region },
                Barrier::EndOfRead { region },
                Barrier::Plain
            ]
        );
        assert_eq!(Barrier::EndOfRead { region }.region(), Some(region));
        assert_eq!(Barrier::Plain.region(), None);
    }

    #[test]
    fn an_installed_runner_owns_block_shared_memory() {
        let own = block_shared(0x40, 4, 4);
        let runner = Rc::new(Counting::default());
        // SAFETY: as in `an_installed_runner_gets_the_calls_until_dropped`.
        let installed = unsafe { install(runner.clone(), ThreadContext::SINGLE) };
        let theirs = block_shared(0x40, 4, 4);
        assert_ne!(own, theirs);
        assert_eq!(runner.shared.borrow_mut().get(0x40, 4, 4), theirs);
        drop(installed);
        assert_eq!(block_shared(0x40, 4, 4), own);
    }
}
