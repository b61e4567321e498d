//! Block-wide collectives: reductions, scans, votes and a broadcast over every thread of the block (CUDA's
//! `cub::BlockReduce`, `cub::BlockScan`, `__syncthreads_count/and/or`).
//!
//! Each is built on the warp collectives ([`crate::warp`]) and a 32-slot block-shared scratch
//! array: the warps reduce or scan their lanes, each warp's total goes through the scratch, and
//! every warp combines the totals. They contain block barriers, so the backend checks that every
//! thread of the block reaches each call, or none (docs/safety.md): a call under a condition on
//! the thread index is a compile-time error. Every thread gets the result.
//!
//! Values are those of the warp collectives ([`WarpValue`]: 32- and 64-bit integers and
//! floats). The combination order is fixed (a tree within each warp, then a tree over the
//! warps), and the CPU emulator runs the same code, so float results agree with it bit for bit
//! (up to the FMA contraction the kernel allows). Blocks have at most 1024 threads (32 warps).

use core::ops::Add;

use crate::shared::SharedArray;
use crate::thread;
use crate::warp::{self, WARP_SIZE, WarpValue};

/// One slot per warp of the largest block, for the warps' totals. Only the functions of this
/// module use it, each between a barrier before its writes and a barrier before its reads.
static WARP_TOTALS: SharedArray<u64, 32> = SharedArray::new();

/// Publishes `total` (the same in every lane of a warp) as the warp's total, and returns, in
/// lane `l` of every warp, the total of warp `l` (in lanes past the block's last warp, the
/// caller's own `total`), with the number of warps in the block.
#[track_caller]
#[inline]
fn exchange_warp_totals<T: WarpValue>(total: T) -> (T, u32) {
    let (t, n) = thread::in_block();
    let warps = n.div_ceil(WARP_SIZE);
    assert!(warps <= WARP_SIZE, "a block has at most 1024 threads");
    let lane = warp::lane_id();
    let slots = WARP_TOTALS.as_mut_ptr();
    // Whatever an earlier collective of this block read from the scratch, it has read: the
    // scratch's read phase ends (a barrier the emulator pairs only with the same one).
    thread::end_read_phase(slots.cast());
    if lane == 0 {
        // SAFETY: `t / 32 < warps <= 32` (`t < n`: a thread is in its block, on the GPU and
        // in every host context, docs/safety.md); lane 0 of each warp writes its own warp's
        // slot, and nobody reads the scratch between the barriers around this write.
        unsafe {
            slots
                .add((t / WARP_SIZE) as usize)
                .write(total.to_warp_bits())
        };
    }
    thread::end_write_phase(slots.cast());
    let theirs = if lane < warps {
        // SAFETY: slot `lane < warps` was written by lane 0 of warp `lane` before the barrier
        // above, and nobody writes it until the next collective's first barrier.
        T::from_warp_bits(unsafe { slots.add(lane as usize).read() })
    } else {
        total
    };
    (theirs, warps)
}

/// The block's values combined with `op` (associative and commutative), in every thread.
#[track_caller]
#[inline]
pub fn reduce<T: WarpValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    let warp_total = warp::reduce(value, &op);
    let (totals, warps) = exchange_warp_totals(warp_total);
    warp::reduce_first_lanes(totals, warps, op)
}

/// The sum of the block's values, in every thread ([`reduce`] with `+`).
#[track_caller]
#[inline]
pub fn sum<T: WarpValue + Add<Output = T>>(value: T) -> T {
    reduce(value, |a, b| a + b)
}

/// The largest of the block's values, in every thread (for floats, a NaN is skipped unless all
/// are NaN, as `f32::max` does).
#[track_caller]
#[inline]
pub fn max<T: WarpValue + PartialOrd>(value: T) -> T {
    reduce(value, warp::larger)
}

/// The smallest of the block's values, in every thread (NaNs as [`max`]).
#[track_caller]
#[inline]
pub fn min<T: WarpValue + PartialOrd>(value: T) -> T {
    reduce(value, warp::smaller)
}

/// The value of thread `from` (its linear number in the block, x fastest), in every thread: a
/// value one thread has, sent to the block (CUDA's `if (t == from) s = v; __syncthreads();
/// v = s;`). A shuffle in each warp, one exchange of the warps' values, and a shuffle.
///
/// # Panics
/// When `from` is not a thread of the block (a trap on the GPU).
#[track_caller]
#[inline]
pub fn broadcast<T: WarpValue>(value: T, from: u32) -> T {
    let (_, n) = thread::in_block();
    assert!(
        from < n,
        "block::broadcast from a thread the block does not have"
    );
    let in_warp = warp::broadcast(value, from % WARP_SIZE);
    let (per_warp, _) = exchange_warp_totals(in_warp);
    warp::broadcast(per_warp, from / WARP_SIZE)
}

/// `__syncthreads_count(predicate)`: how many threads of the block have `predicate` true, in
/// every thread.
#[track_caller]
#[inline]
pub fn count(predicate: bool) -> u32 {
    sum(u32::from(predicate))
}

/// `__syncthreads_and(predicate)`: whether `predicate` is true in every thread of the block.
#[track_caller]
#[inline]
pub fn all(predicate: bool) -> bool {
    let (_, n) = thread::in_block();
    count(predicate) == n
}

/// `__syncthreads_or(predicate)`: whether `predicate` is true in some thread of the block.
#[track_caller]
#[inline]
pub fn any(predicate: bool) -> bool {
    count(predicate) != 0
}

/// The inclusive scan of the block's values with `op` (associative), in block order (the
/// threads' linear numbers, x fastest): thread `t` gets `op(v0, op(v1, ... vt))`.
#[track_caller]
#[inline]
pub fn inclusive_scan<T: WarpValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    let in_warp = warp::inclusive_scan(value, &op);
    match warps_before(in_warp, &op) {
        Some(before) => op(before, in_warp),
        None => in_warp,
    }
}

/// The exclusive scan of the block's values with `op` (associative) and its `identity`:
/// thread `t` gets `op(v0, ... v(t-1))`, thread 0 `identity`.
#[track_caller]
#[inline]
pub fn exclusive_scan<T: WarpValue>(value: T, identity: T, op: impl Fn(T, T) -> T) -> T {
    let in_warp = warp::inclusive_scan(value, &op);
    let lane = warp::lane_id();
    let before_in_warp = warp::shuffle_up(in_warp, 1);
    match (warps_before(in_warp, &op), lane) {
        (Some(before), 0) => before,
        (Some(before), _) => op(before, before_in_warp),
        (None, 0) => identity,
        (None, _) => before_in_warp,
    }
}

/// The sum of the values of the threads before this one in the block (0 in thread 0): the
/// offsets at which each thread writes its `value` items, when they are packed in block order.
#[track_caller]
#[inline]
pub fn exclusive_sum<T: WarpValue + Add<Output = T> + Default>(value: T) -> T {
    exclusive_scan(value, T::default(), |a, b| a + b)
}

/// From the warps' inclusive scans (`in_warp` in every lane): `op` over the totals of the warps
/// before the caller's, `None` in the first warp.
#[track_caller]
#[inline]
fn warps_before<T: WarpValue>(in_warp: T, op: &impl Fn(T, T) -> T) -> Option<T> {
    let lanes = warp::existing_lanes().count_ones();
    let warp_total = warp::broadcast(in_warp, lanes - 1);
    let (totals, _) = exchange_warp_totals(warp_total);
    let prefixes = warp::inclusive_scan(totals, op);
    let (t, _) = thread::in_block();
    let w = t / WARP_SIZE;
    // Every lane takes part; lane `l` reads the prefix of the warps before warp `w`.
    let before = warp::broadcast(prefixes, w.wrapping_sub(1) % WARP_SIZE);
    (w > 0).then_some(before)
}
