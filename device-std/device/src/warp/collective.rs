//! Safe warp collectives: shuffles, votes, reductions and scans over the lanes of a warp, which
//! every thread of the block executes.
//!
//! CUDA's `__shfl_*_sync` and `__ballot_sync` are undefined behaviour unless every lane of their
//! mask executes the same call (the unsafe [`shfl_sync_idx_i32`](super::shfl_sync_idx_i32)
//! family says so). These functions make it a checked rule instead of a promise:
//! - the backend proves that every lane of the warp reaches each call, or none (docs/safety.md,
//!   "Warp collectives are warp-uniform"; `warp_in_block()` is warp-uniform): a call under a
//!   condition on the lane or thread index, after an early `return` of some lanes, or in a loop
//!   whose trip count differs between lanes is a compile-time error;
//! - the mask is the lanes that exist in the warp: all 32, or fewer in the last warp of a block
//!   whose size is not a multiple of 32, so no lane waits for a lane that is not there;
//! - a lane only ever reads a lane of the mask: where the lane asked for does not exist (past
//!   the warp's end, or before lane 0), the lane keeps its own value, as CUDA's clamped shuffles
//!   do.
//!
//! Values are 32- or 64-bit integers and floats ([`WarpValue`]). Reductions combine in a fixed
//! tree order that the CPU emulator follows too, so float sums agree bit for bit with it (up to
//! the FMA contraction the kernel allows).

use core::ops::Add;

use super::{
    WARP_SIZE, lane_id, match_any_sync_i32, match_any_sync_i64, shfl_sync_idx_i32, sync_warp_raw,
    vote_ballot_sync,
};
use crate::thread;

/// A value that can cross lanes: 32- or 64-bit integers and floats.
pub trait WarpValue: Copy + sealed::Sealed {
    /// The value's bits, in the low 32 (narrow types) or all 64.
    fn to_warp_bits(self) -> u64;
    /// The value of these bits.
    fn from_warp_bits(bits: u64) -> Self;
    /// Whether the value needs two 32-bit shuffles.
    const WIDE: bool;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! warp_values {
    ($($t:ty => $wide:literal, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl WarpValue for $t {
            #[inline]
            fn to_warp_bits(self) -> u64 {
                let $v = self;
                $to
            }
            #[inline]
            fn from_warp_bits($b: u64) -> Self {
                $from
            }
            const WIDE: bool = $wide;
        }
    )*};
}

warp_values! {
    u32 => false, |v| u64::from(v), |b| b as u32;
    i32 => false, |v| u64::from(v as u32), |b| b as u32 as i32;
    f32 => false, |v| u64::from(v.to_bits()), |b| f32::from_bits(b as u32);
    u64 => true, |v| v, |b| b;
    i64 => true, |v| v as u64, |b| b as i64;
    f64 => true, |v| v.to_bits(), |b| f64::from_bits(b);
}

/// Marks a point every thread of the block must reach; the backend checks it and emits nothing.
#[oxide_gpu::warp_collective]
#[inline(never)]
pub(crate) fn warp_collective() {}

/// The lanes that exist in this thread's warp, as a mask: all 32, or the first
/// `threads per block % 32` in the last warp of a block whose size is not a multiple of 32.
#[inline]
pub fn existing_lanes() -> u32 {
    let per_block = thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z();
    let in_block = (thread::thread_idx_z() * thread::block_dim_y() + thread::thread_idx_y())
        * thread::block_dim_x()
        + thread::thread_idx_x();
    let lanes = (per_block - (in_block & !(WARP_SIZE - 1))).min(WARP_SIZE);
    if lanes == WARP_SIZE {
        u32::MAX
    } else {
        (1 << lanes) - 1
    }
}

/// The value of lane `source` of the warp (every lane names its own; a lane that does not
/// exist reads the caller's own value).
#[inline]
fn read_lane<T: WarpValue>(value: T, source: u32, mask: u32) -> T {
    let lane = lane_id();
    let source = if source < WARP_SIZE && mask & (1 << source) != 0 {
        source
    } else {
        lane
    };
    let bits = value.to_warp_bits();
    // SAFETY: every lane of `mask` executes this shuffle (the backend proved the call
    // block-uniform, so every existing lane of the warp is here), every caller is in `mask`,
    // and `source` names a lane of `mask`.
    let low = unsafe { shfl_sync_idx_i32(mask, bits as u32 as i32, source, 0x1f) } as u32;
    let high = if T::WIDE {
        // SAFETY: as above.
        unsafe { shfl_sync_idx_i32(mask, (bits >> 32) as u32 as i32, source, 0x1f) as u32 }
    } else {
        0
    };
    T::from_warp_bits(u64::from(low) | u64::from(high) << 32)
}

/// `__shfl_sync(all, value, src_lane)`: the value of lane `src_lane % 32`, or the caller's own
/// value when that lane does not exist.
#[inline]
pub fn broadcast<T: WarpValue>(value: T, src_lane: u32) -> T {
    warp_collective();
    read_lane(value, src_lane % WARP_SIZE, existing_lanes())
}

/// `__shfl_xor_sync(all, value, lane_mask)`: the value of lane `lane ^ lane_mask`, or the
/// caller's own value when that lane does not exist.
#[inline]
pub fn shuffle_xor<T: WarpValue>(value: T, lane_mask: u32) -> T {
    warp_collective();
    read_lane(value, lane_id() ^ (lane_mask % WARP_SIZE), existing_lanes())
}

/// `__shfl_down_sync(all, value, delta)`: the value of lane `lane + delta`, or the caller's own
/// value when that lane does not exist.
#[inline]
pub fn shuffle_down<T: WarpValue>(value: T, delta: u32) -> T {
    warp_collective();
    read_lane(value, lane_id().saturating_add(delta), existing_lanes())
}

/// `__shfl_up_sync(all, value, delta)`: the value of lane `lane - delta`, or the caller's own
/// value for the first `delta` lanes.
#[inline]
pub fn shuffle_up<T: WarpValue>(value: T, delta: u32) -> T {
    warp_collective();
    let lane = lane_id();
    read_lane(
        value,
        lane.checked_sub(delta).unwrap_or(lane),
        existing_lanes(),
    )
}

/// `__ballot_sync(all, predicate)`: bit `l` is set when lane `l` exists and its `predicate`
/// is true.
#[inline]
pub fn ballot(predicate: bool) -> u32 {
    warp_collective();
    // SAFETY: every existing lane of the warp executes this vote (the call is block-uniform),
    // and the mask names exactly those lanes.
    unsafe { vote_ballot_sync(existing_lanes(), predicate) }
}

/// `__match_any_sync(all, value)`: the lanes of the warp whose `value` has the caller's bits
/// (the caller's own bit always set). For floats the bits decide: `0.0` and `-0.0` differ, a
/// NaN matches its own bits.
#[inline]
pub fn match_any<T: WarpValue>(value: T) -> u32 {
    warp_collective();
    let bits = value.to_warp_bits();
    // SAFETY: every existing lane of the warp executes this match (the call is block-uniform),
    // and the mask names exactly those lanes.
    unsafe {
        if T::WIDE {
            match_any_sync_i64(existing_lanes(), bits as i64)
        } else {
            match_any_sync_i32(existing_lanes(), bits as u32 as i32)
        }
    }
}

/// `__match_all_sync(all, value)`: the warp's lanes when every one holds the caller's bits,
/// `None` when some lane differs.
#[inline]
pub fn match_all<T: WarpValue>(value: T) -> Option<u32> {
    let lanes = match_any(value);
    (lanes == existing_lanes()).then_some(lanes)
}

/// `__syncwarp()`: the lanes of the warp wait for each other, and what each wrote before is
/// visible to the others after. (Block-shared memory written by one lane and read by another
/// still needs the phases of `Shared`, whose barrier covers the whole block.)
#[inline]
pub fn sync() {
    warp_collective();
    // SAFETY: every existing lane of the warp reaches this call (block-uniform), and the mask
    // names exactly those lanes.
    unsafe { sync_warp_raw(existing_lanes()) }
}

/// `__all_sync(all, predicate)`: whether `predicate` is true in every lane of the warp.
#[inline]
pub fn all(predicate: bool) -> bool {
    ballot(predicate) == existing_lanes()
}

/// `__any_sync(all, predicate)`: whether `predicate` is true in some lane of the warp.
#[inline]
pub fn any(predicate: bool) -> bool {
    ballot(predicate) != 0
}

/// The warp's values combined with `op` (associative and commutative), in every lane: a tree
/// of shuffles, lane `l` taking lane `l + 16`, then `l + 8`, ... `l + 1`, and lane 0's result
/// sent to all.
#[inline]
pub fn reduce<T: WarpValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    reduce_first_lanes(value, existing_lanes().count_ones(), op)
}

/// [`reduce`] over the values of the first `lanes` lanes only (the others' values are not
/// read), in every lane; `lanes` is at most the lanes that exist.
#[inline]
pub(crate) fn reduce_first_lanes<T: WarpValue>(value: T, lanes: u32, op: impl Fn(T, T) -> T) -> T {
    let lane = lane_id();
    let mut acc = value;
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        let other = shuffle_down(acc, offset);
        if lane + offset < lanes {
            acc = op(acc, other);
        }
        offset /= 2;
    }
    broadcast(acc, 0)
}

/// The sum of the warp's values, in every lane ([`reduce`] with `+`).
#[inline]
pub fn sum<T: WarpValue + Add<Output = T>>(value: T) -> T {
    reduce(value, |a, b| a + b)
}

/// The largest of the warp's values, in every lane (for floats, a NaN is skipped unless all
/// are NaN, as `f32::max` does).
#[inline]
pub fn max<T: WarpValue + PartialOrd>(value: T) -> T {
    reduce(value, larger)
}

/// The larger of `a` and `b`, a NaN losing to a number (`f32::max`'s rule), for any
/// `PartialOrd` value; the warp's and the block's `max` combine with it.
#[inline]
pub(crate) fn larger<T: PartialOrd>(a: T, b: T) -> T {
    if b > a || is_nan(&a) { b } else { a }
}

/// The smaller of `a` and `b`, as [`larger`].
#[inline]
pub(crate) fn smaller<T: PartialOrd>(a: T, b: T) -> T {
    if b < a || is_nan(&a) { b } else { a }
}

/// The smallest of the warp's values, in every lane (NaNs as [`max`]).
#[inline]
pub fn min<T: WarpValue + PartialOrd>(value: T) -> T {
    reduce(value, smaller)
}

/// Whether `a` is unordered with itself: a NaN.
#[inline]
fn is_nan<T: PartialOrd>(a: &T) -> bool {
    a.partial_cmp(a).is_none()
}

/// The inclusive scan of the warp's values with `op` (associative): lane `l` gets
/// `op(v0, op(v1, ... vl))`, by Hillis-Steele steps of 1, 2, 4, 8 and 16 lanes.
#[inline]
pub fn inclusive_scan<T: WarpValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    let lane = lane_id();
    let mut acc = value;
    let mut offset = 1;
    while offset < WARP_SIZE {
        let earlier = shuffle_up(acc, offset);
        if lane >= offset {
            acc = op(earlier, acc);
        }
        offset *= 2;
    }
    acc
}
