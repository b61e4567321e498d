//! The CPU emulator of the thread model: runs a kernel over a whole grid on the host, every GPU
//! thread of a block being a real OS thread. It is the oracle for differential testing: the
//! kernel is ordinary Rust, so the code the backend compiles to PTX is the very code run here.
//!
//! ```
//! use oxide_device::{DisjointSlice, ThreadIndex, thread};
//! use oxide_emulator::{LaunchConfig, RawSlice, run};
//!
//! let (a, b, mut c) = ([1.0f32, 2.0, 3.0], [10.0f32, 20.0, 30.0], [0.0f32; 3]);
//! // Two blocks of two threads; the last thread finds no element.
//! let cfg = LaunchConfig::for_num_elems(3, 2).unwrap();
//! let out = RawSlice::new(&mut c);
//! run("vecadd", &cfg, || {
//!     // SAFETY: see "Soundness" below; `#[kernel]`'s `emulate` writes the same.
//!     let mut c = unsafe { DisjointSlice::from_raw_parts(out.ptr(), out.len()) };
//!     let i = thread::index_1d();
//!     if let Some(out) = c.get_mut(ThreadIndex::linear()) {
//!         *out = a[i] + b[i];
//!     }
//! })?;
//! drop(out);
//! assert_eq!(c, [11.0, 22.0, 33.0]);
//! # Ok::<(), oxide_emulator::KernelFailure>(())
//! ```
//!
//! Kernel authors use it through `oxide::emulate`: `#[kernel]` generates
//! `<kernel>::emulate(&cfg, args...)` (`&[T]` stays `&[T]`, a
//! `DisjointSlice<T>` becomes `&mut [T]`, other arguments are passed by value), which calls
//! [`run`]. What `run` does:
//!
//! - It validates the launch as the GPU launch does ([`LaunchConfig::validate`]) and returns
//!   [`FailureKind::LaunchShape`] or [`FailureKind::SharedMemory`] instead of panicking.
//! - It spawns one OS thread per thread of a block (`std::thread::scope`); OS thread `t` plays
//!   thread `t` of every block. Blocks run one after another, in launch order (x fastest, then y,
//!   then z): a block starts when every thread of the previous one has finished. So the results
//!   of a race-free kernel are deterministic.
//! - Each OS thread's [`ThreadContext`] (what the `oxide_device::thread` functions read) says
//!   which GPU thread it is: `run` installs itself on each of its OS threads
//!   (`oxide_device::host_context::install`). `sync_threads()` is a real barrier over the
//!   block's threads (a `Mutex` and a `Condvar`), and orders memory like `__syncthreads`. The
//!   threads pass a barrier only if all of them arrive with the same identity: a plain
//!   `sync_threads()`, or the end of a given phase of a given shared array (the `sync` of
//!   `Shared`, `DynShared`, `BlockWindows`; the block collectives' scratch), wherever it was
//!   called from; otherwise the launch fails with [`FailureKind::BarrierMismatch`]
//!   (docs/safety.md, "The emulator pairs barriers by what they synchronise").
//! - A warp is 32 threads of a block with consecutive linear numbers (x fastest); a shuffle
//!   (`oxide_device::warp`) is a real exchange between the OS threads of the warp: each lane
//!   publishes its value, waits until every lane of the shuffle's mask that exists and has not
//!   returned from the kernel has published (as on sm_70 and later, returned lanes are not
//!   waited for), and reads the lane it asked for. Reading a lane that takes no part panics (an
//!   undefined value on the GPU).
//! - Block-shared memory (`oxide_device::shared::SharedArray` statics): each block gets its own
//!   copy, made when a thread of the block first asks for it, filled with
//!   `oxide_device::host_context::SHARED_GARBAGE` (the GPU leaves it uninitialised; garbage
//!   makes a kernel that reads what its block did not write fail), and freed when the block
//!   ends. The copies belong to the launch, so two emulations running at once (tests on
//!   parallel threads) never share one.
//! - A kernel panic (an index out of bounds, an `unwrap` of `None`, ...) fails the launch with
//!   [`FailureKind::Panicked`], naming the block and the thread: the block's threads that wait at
//!   `sync_threads()` or in a shuffle, or reach one later, unwind instead of waiting forever, the other threads
//!   finish, and no later block runs. The panic prints nothing (the emulator's panic hook, set
//!   once per process, records the location and defers to the previous hook on every thread
//!   that is not an emulated one); the error carries the message.
//! - `sync_threads()` that not every thread of the block reaches (some returned from the kernel
//!   while others wait) is undefined behaviour on the GPU, and here fails the launch with
//!   [`FailureKind::BarrierDivergence`] instead of hanging; so does a shuffle that a lane of
//!   its mask never reaches while it waits elsewhere (at `sync_threads()`, or at a shuffle with
//!   another mask): [`FailureKind::WarpDivergence`].
//!
//! What it cannot catch: a thread that never returns (an endless loop, or spinning on a flag
//! that another thread never sets) hangs the launch as it would hang the GPU; `panic = "abort"`
//! aborts the process. Dynamic shared memory (`shared_mem_bytes`) is not emulated.
//!
//! # Soundness of `DisjointSlice` under emulation
//!
//! The generated `emulate` gives every emulated thread its own `DisjointSlice<T>` over the one
//! `&mut [T]` it borrowed (`DisjointSlice::from_raw_parts(ptr, len)` through a [`RawSlice`]).
//! That meets the contract of [`DisjointSlice::from_raw_parts`]:
//!
//! 1. *Valid memory, no other access.* `ptr` and `len` come from a `&'a mut [T]` that `emulate`
//!    holds for the whole call of [`run`], and `run` returns only after `std::thread::scope` has
//!    joined every thread; each per-thread `DisjointSlice` lives inside one call of the kernel
//!    on one of those threads: the kernel takes it as `DisjointSlice<'_, T>`, a borrow for its
//!    call, so it cannot keep it anywhere that outlives the call (a `thread_local!`, whose
//!    destructor would run after `std::thread::scope` returned). So the memory is valid and
//!    nothing outside the kernel touches it while any of them lives.
//! 2. *Same `ptr` and `len` everywhere*: all are built from the same `RawSlice`.
//! 3. *No element reachable from two OS threads through safe code.* Safe code writes an
//!    element only through `get_mut(idx)`, element `idx.get()`, and a `ThreadIndex` comes only
//!    from `ThreadIndex::linear()`, computed from the calling OS thread's context. OS thread `t`
//!    of `run` only ever has the contexts of GPU threads `(b, t)`, `b` over the blocks: `run`
//!    sets them and a kernel cannot change them ([`with_thread_context`] panics on an emulated
//!    thread). A `ThreadIndex` is not `Send`, so it never leaves the OS thread that made it (nor
//!    does a `DisjointSlice`), and the kernel only runs on `run`'s OS threads, which are new for
//!    each `run`. `linear` is injective over a validated grid (its thread count fits in
//!    `usize`), so the sets of indices that two OS threads can ever hold are disjoint, whether an
//!    index was made in the current block or kept (in a thread-local, say) from an earlier one.
//! 4. *Sending elements.* Elements are written, and their old values dropped, on other OS
//!    threads than the caller's, so `emulate` requires `T: Send` of a `DisjointSlice<T>`
//!    argument ([`RawSlice::new`]); every thread reads `&[T]` arguments and copies by-value
//!    ones, so those require `T: Sync` ([`Shared::new`]).
//!
//! `DisjointSlice::get_unchecked_mut` is `unsafe`: what a kernel does with it is the kernel
//! author's obligation, on the GPU and here alike.
//!
//! [`DisjointSlice::from_raw_parts`]: oxide_device::DisjointSlice::from_raw_parts

use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::{Arc, Once};
use std::thread;

use oxide_contract::panic_message;
use oxide_device::host_context::{self, Barrier, ThreadHost, WarpValues};
pub use oxide_device::host_context::{ThreadContext, with_thread_context};

mod args;
mod block;
mod descriptor;
mod race;
mod shaped;

pub use args::{EmulatorArg, ThreadArg};
use block::{Arrival, Block, Failure, Outcome, Unwound};
#[doc(hidden)]
pub use descriptor::SharedDescriptor;
/// The launch shapes and failures, oxide-launch's (the GPU launcher shares them).
pub use oxide_launch::config as launch;
pub use oxide_launch::{
    FailureKind, KernelFailure, LaunchConfig, LaunchConfigError, LaunchShapeError, MatrixShape,
    Pairs, Rows, Wave,
};
#[doc(hidden)]
pub use shaped::{ShapedSlice, SharedMatrix};

thread_local! {
    /// Where the last kernel panic on this (emulated) thread happened; set by the panic hook.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// What an OS thread of [`run`] is to the device intrinsics: thread `thread` (linear number in
/// the block) of the block being run.
struct Worker {
    block: Arc<Block>,
    thread: u32,
    /// Per region of block-shared slots (by address): how many of its phases this thread has
    /// ended in the current block. Part of what the thread's barriers say they synchronise.
    phases_ended: RefCell<HashMap<usize, u64>>,
}

impl Worker {
    /// The thread starts another block: its regions are new.
    fn start_block(&self) {
        self.phases_ended.borrow_mut().clear();
    }
}

// SAFETY: every OS thread of one `run` gets a `Worker` of the same `Block`: `Block::sync`
// returns only when every thread of the block has arrived with one `Arrival` (the barrier and,
// for a phase's end, how many phases of its slots the thread has ended), or unwinds, and its
// `Mutex` orders memory; `Block::shared` is one `BlockShared` per block, cleared only when
// every thread has finished the block (`Block::finish`); `Block::warp_exchange` reports the
// values the lanes published for one exchange.
unsafe impl ThreadHost for Worker {
    fn sync_threads(&self, barrier: Barrier, at: &'static std::panic::Location<'static>) {
        let phase = barrier.region().map_or(0, |region| {
            let mut ended = self.phases_ended.borrow_mut();
            let count = ended.entry(region).or_default();
            *count += 1;
            *count
        });
        self.block.sync(self.thread, Arrival { barrier, phase }, at);
    }

    fn warp_exchange(&self, mask: u32, value: u64) -> WarpValues {
        self.block.warp_exchange(self.thread, mask, value)
    }

    fn block_shared(&self, key: usize, size: usize, align: usize) -> *mut u8 {
        self.block.shared(key, size, align)
    }

    fn check_access(&self, access: &host_context::MemoryAccess) -> Result<(), String> {
        let ctx = host_context::current();
        self.block
            .check_access(self.thread, ctx.block_idx, ctx.block_dim, access)
    }
}

/// Runs `kernel` as every thread of the grid `cfg` (see the [module docs](self)), and returns
/// the first failure. `name` names the kernel in the failure.
///
/// `kernel` is one GPU thread's work: it reads its indices through `oxide_device::thread` and
/// may call `sync_threads()`, the shuffles of `oxide_device::warp` and block-shared memory
/// (`oxide_device::shared`). The `emulate` function that `#[kernel]` generates
/// calls this with a closure that builds the thread's arguments and calls the kernel.
pub fn run(
    name: &'static str,
    cfg: &LaunchConfig,
    kernel: impl Fn() + Sync,
) -> Result<(), KernelFailure> {
    let fail = |kind| KernelFailure { kernel: name, kind };
    cfg.validate().map_err(|e| fail(e.into()))?;
    install_panic_hook();
    let shape = Shape {
        block_dim: [cfg.block.0, cfg.block.1, cfg.block.2],
        grid_dim: [cfg.grid.0, cfg.grid.1, cfg.grid.2],
    };
    // At most 1024, as validated.
    let threads = shape.block_dim.iter().product::<u32>();
    let block = Arc::new(Block::new(threads));
    let kernel: &(dyn Fn() + Sync) = &kernel;

    let spawned = thread::scope(|scope| {
        for thread in 0..threads {
            let own = Arc::clone(&block);
            let worker = move || run_thread(own, thread, shape, kernel);
            if let Err(e) = thread::Builder::new().spawn_scoped(scope, worker) {
                // The threads started so far see `Aborted` and return without running.
                block.start(false);
                return Err(e);
            }
        }
        block.start(true);
        Ok(())
    });
    if let Err(source) = spawned {
        return Err(fail(FailureKind::Spawn { threads, source }));
    }
    match block.lock().failure.take() {
        None => Ok(()),
        Some(failure) => Err(fail(failure.into_kind(shape.block_dim))),
    }
}

#[derive(Clone, Copy)]
struct Shape {
    block_dim: [u32; 3],
    grid_dim: [u32; 3],
}

/// `[x, y, z]` of linear number `n` in a box of `dim`, x fastest.
pub(crate) fn unlinear(n: u64, dim: [u32; 3]) -> [u32; 3] {
    let (dx, dy) = (u64::from(dim[0]), u64::from(dim[1]));
    // Each coordinate is below its dimension, a u32.
    [(n % dx) as u32, (n / dx % dy) as u32, (n / dx / dy) as u32]
}

/// OS thread `thread` of [`run`]: plays thread `thread` of every block, in launch order.
fn run_thread(block: Arc<Block>, thread: u32, shape: Shape, kernel: &(dyn Fn() + Sync)) {
    if !block.wait_for_start() {
        return;
    }
    let thread_idx = unlinear(u64::from(thread), shape.block_dim);
    let context = |block_idx| ThreadContext {
        thread_idx,
        block_idx,
        block_dim: shape.block_dim,
        grid_dim: shape.grid_dim,
    };
    let worker = Rc::new(Worker {
        block: Arc::clone(&block),
        thread,
        phases_ended: RefCell::default(),
    });
    // SAFETY: `run` validated the launch, and OS thread `thread` plays thread `thread` of
    // every block (here and below), no other OS thread that one; every OS thread of this
    // `run` has a `Worker` of one `Block`, which runs the block's threads together.
    let installed = unsafe { host_context::install(worker.clone(), context([0; 3])) };
    let blocks: u64 = shape.grid_dim.iter().map(|&d| u64::from(d)).product();
    for b in 0..blocks {
        let block_idx = unlinear(b, shape.grid_dim);
        // SAFETY: as for `install`, block `b` of the grid.
        unsafe { installed.set_context(context(block_idx)) };
        worker.start_block();
        PANIC_LOCATION.with(|l| l.borrow_mut().take());
        let outcome = match panic::catch_unwind(AssertUnwindSafe(kernel)) {
            Ok(()) => Outcome::Returned,
            Err(payload) if payload.is::<Unwound>() => Outcome::Unwound,
            Err(payload) => {
                let message = panic_message(payload.as_ref());
                // A payload's destructor may panic too; that must not escape the thread.
                if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
                    std::mem::forget(again);
                }
                Outcome::Panicked(Failure::Panicked {
                    block: block_idx,
                    thread,
                    message,
                    location: PANIC_LOCATION.with(|l| l.borrow_mut().take()),
                })
            }
        };
        if block.finish(thread, block_idx, outcome) {
            break;
        }
    }
    drop(installed);
}

/// Installs, once per process, a panic hook that records the location of a panic on an
/// emulated thread (for [`FailureKind::Panicked`]) instead of printing it, and calls the hook
/// it replaced for a panic on any other thread.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if host_context::is_installed() {
                let location = info.location().map(ToString::to_string);
                let _ = PANIC_LOCATION.try_with(|l| {
                    if let Ok(mut l) = l.try_borrow_mut() {
                        *l = location;
                    }
                });
            } else {
                previous(info);
            }
        }));
    });
}

/// A shared kernel argument (`&[T]`, or a by-value `T`) of an emulated kernel, read by every
/// emulated thread. Used by the `emulate` function `#[kernel]` generates; `Sync` whatever `T`
/// is, so that the error for a `T` that is not `Sync` comes from [`Shared::new`], at the
/// argument.
#[doc(hidden)]
pub struct Shared<'a, T: ?Sized>(&'a T);

impl<'a, T: ?Sized + Sync> Shared<'a, T> {
    /// Shares `value` with the emulated threads.
    pub fn new(value: &'a T) -> Self {
        Shared(value)
    }
}

impl<'a, T: ?Sized> Shared<'a, T> {
    /// The shared value.
    pub fn get(&self) -> &'a T {
        self.0
    }
}

// SAFETY: a `Shared<T>` is only built by `Shared::new`, which requires `T: Sync`, so it is a
// `&T` that may be shared and sent.
unsafe impl<T: ?Sized> Sync for Shared<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized> Send for Shared<'_, T> {}

/// The `&mut [T]` behind a `DisjointSlice<T>` argument of an emulated kernel, shared by the
/// emulated threads, each of which builds its own `DisjointSlice` from [`ptr`](Self::ptr) and
/// [`len`](Self::len). Used by the `emulate` function `#[kernel]` generates; see "Soundness" in
/// the [module docs](self). Built only by [`RawSlice::new`], which requires `T: Send`.
#[doc(hidden)]
pub struct RawSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T: Send> RawSlice<'a, T> {
    /// Borrows `slice` for as long as the value lives.
    pub fn new(slice: &'a mut [T]) -> Self {
        RawSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }
}

impl<'a, T> RawSlice<'a, T> {
    /// The slice's data pointer.
    pub fn ptr(&self) -> *mut T {
        self.ptr
    }

    /// The slice's element count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

// SAFETY: a `RawSlice` only hands out its pointer and length; writing through them takes
// `unsafe` (`DisjointSlice::from_raw_parts`), whose contract the emulator meets (module docs).
// The elements are written, and their old values dropped, on the emulated threads, so `T` must
// be `Send`, as for sending a `&mut [T]` to another thread: `RawSlice::new` requires it (the
// impls carry no bound so that the error for a `T` that is not `Send` comes from `new`, at the
// argument).
unsafe impl<T> Sync for RawSlice<'_, T> {}
// SAFETY: as above; moving the value moves the unique borrow, like moving a `&mut [T]`.
unsafe impl<T> Send for RawSlice<'_, T> {}
