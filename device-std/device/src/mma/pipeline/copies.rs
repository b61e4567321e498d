//! The instructions of the pipeline: `cp.async` of one 16-byte chunk, `commit_group`,
//! `wait_group`, and `isspacep.global`. Each is inline PTX whose body is the CPU's: there a copy
//! is read when it is issued and lands when a wait covers its group, as on the GPU it may land
//! any time until then, so a kernel that reads a stage before waiting for it reads stale data on
//! the CPU too. The CPU keeps each thread's groups per pipeline (`key`, the stages' address),
//! and forgets a pipeline's leftovers when a new one starts there.

use core::cell::RefCell;
use std::collections::HashMap;

use super::super::{MmaInput, Vec8};
use super::Source;

/// One issued copy on the CPU: its destination and its bytes.
type Copy16 = (*mut u8, [u8; 16]);

/// A thread's open copies (not committed yet) and committed groups, oldest first.
#[derive(Default)]
struct Queue {
    open: Vec<Copy16>,
    groups: std::collections::VecDeque<Vec<Copy16>>,
}

std::thread_local! {
    static QUEUES: RefCell<HashMap<usize, Queue>> = RefCell::new(HashMap::new());
}

/// `cp.async.cg` of 16 bytes, `bytes` of them read from `src` (global) and the rest zero, into
/// `dst`, an offset in the `.shared` window (the `shared_window` of the pipeline's stages, made
/// once per pipeline, plus the chunk's place in them: each copy's address is a register plus a
/// constant). The addresses are integers (exposed), not pointers: the backend's
/// uniformity analysis takes an intrinsic to write through its pointer arguments, and `src` may
/// come from a closure whose result it cannot tell from the closure's captures.
#[oxide_gpu::ptx(
    template = "{ .reg .u32 %oxs; .reg .u64 %oxg; cvt.u32.u64 %oxs, $0; cvta.to.global.u64 %oxg, $1; cp.async.cg.shared.global [%oxs], [%oxg], 16, $2; }",
    constraints = "l,l,r,l,~{memory}",
    volatile
)]
#[inline(never)]
fn cp_async_16(dst: usize, src: usize, bytes: u32, key: usize) {
    let mut data = [0u8; 16];
    let (dst, src) = (
        core::ptr::with_exposed_provenance_mut::<u8>(dst),
        core::ptr::with_exposed_provenance::<u8>(src),
    );
    // SAFETY: the caller checked `src` valid for `bytes` (at most 16) bytes of a live slice.
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), bytes.min(16) as usize) };
    QUEUES.with(|q| {
        q.borrow_mut()
            .entry(key)
            .or_default()
            .open
            .push((dst, data))
    });
}

/// `cp.async.cg` of 16 bytes from `src` (global) into `dst` (as [`cp_async_16`]'s), or of
/// zeros where `zeros` (the `ignore-src` form: the copy reads nothing), for a chunk known to be
/// whole or outside its source, without a count of bytes to compute.
#[oxide_gpu::ptx(
    template = "{ .reg .u32 %oxs; .reg .u64 %oxg; .reg .pred %oxp; setp.ne.u32 %oxp, $2, 0; cvt.u32.u64 %oxs, $0; cvta.to.global.u64 %oxg, $1; cp.async.cg.shared.global [%oxs], [%oxg], 16, %oxp; }",
    constraints = "l,l,r,l,~{memory}",
    volatile
)]
#[inline(never)]
fn cp_async_16_or_zeros(dst: usize, src: usize, zeros: u32, key: usize) {
    cp_async_16(dst, src, if zeros != 0 { 0 } else { 16 }, key);
}

/// `cp.async.commit_group`.
#[oxide_gpu::ptx(
    template = "cp.async.commit_group;",
    constraints = "l,~{memory}",
    volatile
)]
#[inline(never)]
fn commit(key: usize) {
    QUEUES.with(|q| {
        let mut q = q.borrow_mut();
        let queue = q.entry(key).or_default();
        let open = core::mem::take(&mut queue.open);
        queue.groups.push_back(open);
    });
}

/// Lands every group of `key` but the newest `pending`, on the CPU.
fn land(key: usize, pending: usize) {
    QUEUES.with(|q| {
        let mut q = q.borrow_mut();
        let Some(queue) = q.get_mut(&key) else {
            return;
        };
        while queue.groups.len() > pending {
            for (dst, data) in queue.groups.pop_front().unwrap_or_default() {
                // SAFETY: `dst` is a chunk of the block's shared stages this thread owns and
                // filled (the pipeline's rule), alive while the block runs, which it does: the
                // pipeline waits for its copies before it is dropped.
                unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, 16) };
            }
        }
    });
}

macro_rules! waits {
    ($($name:ident: $n:literal, $template:literal;)*) => {$(
        #[oxide_gpu::ptx(template = $template, constraints = "l,~{memory}", volatile)]
        #[inline(never)]
        fn $name(key: usize) {
            land(key, $n);
        }
    )*};
}

waits! {
    wait_0: 0, "cp.async.wait_group 0;";
    wait_1: 1, "cp.async.wait_group 1;";
    wait_2: 2, "cp.async.wait_group 2;";
    wait_3: 3, "cp.async.wait_group 3;";
}

/// `cp.async.wait_all`: every copy of this thread has landed (on the CPU, those of every
/// pipeline it has).
#[oxide_gpu::ptx(template = "cp.async.wait_all;", constraints = "~{memory}", volatile)]
#[inline(never)]
pub(super) fn wait_all() {
    let keys: Vec<usize> = QUEUES.with(|q| q.borrow().keys().copied().collect());
    for key in keys {
        land(key, 0);
    }
}

/// Whether `address` is in the global window (`isspacep.global`; on the CPU every address is).
/// An LLVM intrinsic rather than inline PTX: it is pure and speculatable there, so the check of
/// a slice's base address is made once per slice and hoisted out of the loops that copy from it.
#[oxide_gpu::nvvm("llvm.nvvm.isspacep.global")]
#[inline(never)]
pub(super) fn is_global(address: *const u8) -> bool {
    let _ = address;
    true
}

/// Forgets what this thread left of an earlier pipeline at `key` (a kernel that failed mid-way
/// on the CPU); nothing on the GPU.
#[oxide_gpu::ptx(
    template = "// a cp.async pipeline starts",
    constraints = "l",
    volatile
)]
#[inline(never)]
pub(super) fn start(key: usize) {
    QUEUES.with(|q| {
        q.borrow_mut().remove(&key);
    });
}

/// Waits until at most `pending` of this thread's groups are in flight (more if `pending` is
/// over 3: waiting longer is always allowed).
#[inline]
pub(super) fn wait_group(key: usize, pending: usize) {
    match pending {
        0 => wait_0(key),
        1 => wait_1(key),
        2 => wait_2(key),
        _ => wait_3(key),
    }
}

/// Commits this thread's copies since the last commit as one group.
#[inline]
pub(super) fn commit_group(key: usize) {
    commit(key);
}

/// Copies the chunk `source` names into the chunk at `dst` (generic) and `window` (the same
/// chunk's offset in the `.shared` window): one `cp.async` where the source allows it, else plain
/// loads and one store.
///
/// # Safety
/// `source` was made by one of its constructors, from a source that nothing writes until the
/// copy has landed; `dst` is a chunk this thread owns in a stage no thread reads, with no copy
/// of this thread into it in flight.
#[inline]
pub(super) unsafe fn copy_chunk<E: MmaInput>(
    (dst, window): (*mut Vec8<E>, usize),
    source: Source<'_, E>,
    key: usize,
) {
    let first = source.first;
    if source.is_whole() {
        // SAFETY: the caller's promises, and the test.
        unsafe { copy_whole_chunk(window, source, key) };
    } else if source.asynchronous {
        let bytes = (source.available() * core::mem::size_of::<E>()) as u32;
        cp_async_16(window, first.expose_provenance(), bytes, key);
    } else {
        // SAFETY: the caller's promises.
        unsafe { copy_plainly(dst, first, source.available()) };
    }
}

/// [`copy_chunk`] of a source that [`is_whole`](Source::is_whole): one `cp.async` of 16 bytes,
/// or of none where the chunk is outside its source.
///
/// # Safety
/// As [`copy_chunk`]'s, and `source.is_whole()`.
#[inline]
pub(super) unsafe fn copy_whole_chunk<E: MmaInput>(
    window: usize,
    source: Source<'_, E>,
    key: usize,
) {
    let zeros = u32::from(!source.inside);
    cp_async_16_or_zeros(window, source.first.expose_provenance(), zeros, key);
}

/// One `cp.async` of the 16 bytes at `first` into the chunk at `window` (as [`cp_async_16`]'s):
/// a chunk of a whole tile ([`TileSource::is_whole`](super::TileSource)), with no test.
///
/// # Safety
/// `first` is 8 elements of a source that is 16-byte aligned global memory, which nothing
/// writes until the copy has landed; `window` is a chunk this thread owns in a stage no thread
/// reads, with no copy of this thread into it in flight.
#[inline]
pub(super) unsafe fn copy_chunk_inside<E: MmaInput>(window: usize, first: *const E, key: usize) {
    cp_async_16(window, first.expose_provenance(), 16, key);
}

/// The chunk of `available` (0 to 8) elements from `first`, zeros after them, copied by plain
/// loads and one store into `dst`: a source that is not 16-byte aligned global memory, or
/// zeros. Out of line and cold, so that the loop of `cp.async`s a fill unrolls into stays small.
///
/// # Safety
/// As [`copy_chunk`]'s.
#[cold]
#[inline(never)]
unsafe fn copy_plainly<E: MmaInput>(dst: *mut Vec8<E>, first: *const E, available: usize) {
    // A constant count of lanes, so the array stays in registers.
    let words: [u16; 8] = core::array::from_fn(|e| {
        if e < available {
            // SAFETY: element `e < available` of the slice (the caller's promise).
            super::super::bits_of(unsafe { first.add(e).read() })
        } else {
            0
        }
    });
    // SAFETY: `dst` is a chunk this thread owns in a stage no thread reads (the pipeline's
    // checks), and no copy of this thread into it is in flight (its last fill's group landed
    // before the stage was read).
    unsafe { dst.cast::<[u16; 8]>().write(words) };
}
