//! The thread's lane and the exchange of values between the lanes of a warp: safe collectives
//! ([`sum`], [`shuffle_xor`], [`ballot`]... see `collective.rs`), which the backend checks are
//! executed by every thread of the block, and the unsafe instructions under them.
//!
//! A warp is 32 threads of a block with consecutive linear numbers in the block
//! ([`ThreadContext::thread_in_block`](crate::host_context::ThreadContext::thread_in_block));
//! the last warp of a block whose size is not a multiple of 32 has fewer lanes.
//!
//! Like the index functions of [`crate::thread`], these are device intrinsics: `#[inline(never)]`
//! and not generic, so that the backend sees each call and replaces it by its instruction. Their
//! bodies are the host semantics: under the CPU emulator a shuffle is a real exchange between
//! the OS threads of the warp; in a plain host call (one simulated thread) [`lane_id`] is the
//! simulated thread's lane (0 unless `with_thread_context` says otherwise) and a shuffle returns
//! the lane's own value.

use crate::host_context;

pub(crate) mod collective;

pub use collective::{
    WarpValue, all, any, ballot, broadcast, existing_lanes, inclusive_scan, match_all, match_any,
    max, min, reduce, shuffle_down, shuffle_up, shuffle_xor, sum, sync,
};
pub(crate) use collective::{larger, reduce_first_lanes, smaller};

/// Threads per warp on every GPU the backend targets (defined with the hardware limits in
/// `host_context`, which this module builds on).
pub use crate::host_context::WARP_SIZE;

/// This thread's lane in its warp (`%laneid`): its linear number in the block modulo
/// [`WARP_SIZE`].
#[oxide_gpu::nvvm("llvm.nvvm.read.ptx.sreg.laneid")]
#[inline(never)]
pub fn lane_id() -> u32 {
    host_context::current().lane()
}

/// `__shfl_sync(mask, value, src_lane, width)` (PTX `shfl.sync.idx.b32`): every lane named in
/// `mask` passes a value, and gets the value of the lane `src_lane` selects.
///
/// `clamp` is PTX's `c` operand: `0x1f` for the whole warp, or for CUDA's `width` (a power of
/// two up to 32) `((32 - width) << 8) | 0x1f`, which splits the warp into segments of `width`
/// lanes and reads lane `src_lane % width` of the caller's segment. In general, with
/// `segmask = (clamp >> 8) & 0x1f` and `c = clamp & 0x1f`, the source lane is
/// `(lane & segmask) | (src_lane & !segmask & 0x1f)`, or the caller itself when that lies past
/// `(lane & segmask) | (c & !segmask)`.
///
/// Every lane that calls it must be in `mask`, and every lane in `mask` that has not exited
/// must make the same call; reading a lane that takes no part (not in `mask`, exited, or past
/// the end of a partial warp) gives an undefined value on the GPU. The emulator checks all
/// three: a lane outside its mask and a read of a lane that takes no part panic, and a lane of
/// the mask that waits elsewhere fails the launch (`WarpDivergence`) instead of hanging.
///
/// # Safety
/// Every lane that calls it is in `mask`, and every lane of `mask` that has not exited makes
/// the same call with the same `mask` (PTX's `.sync` rule: otherwise the behaviour is
/// undefined on the GPU); the lane read takes part in the call. Nothing checks this at compile
/// time yet; the CPU emulator reports each violation (a panic or `WarpDivergence`).
#[oxide_gpu::nvvm("llvm.nvvm.shfl.sync.idx.i32")]
#[inline(never)]
pub unsafe fn shfl_sync_idx_i32(mask: u32, value: i32, src_lane: u32, clamp: u32) -> i32 {
    shuffle("shfl_sync_idx_i32", mask, value, |lane| {
        shfl_idx_source(lane, src_lane, clamp)
    })
}

/// `__shfl_xor_sync(mask, value, lane_mask, width)` (PTX `shfl.sync.bfly.b32`): every lane named
/// in `mask` passes a value and gets the value of lane `lane ^ lane_mask` (a butterfly), or its
/// own when that lane lies past its segment (`clamp` as in [`shfl_sync_idx_i32`]).
///
/// The same rules as [`shfl_sync_idx_i32`] hold: every calling lane is in `mask`, every lane
/// of `mask` makes the call, and the lane read takes part.
///
/// # Safety
/// Every lane that calls it is in `mask`, and every lane of `mask` that has not exited makes
/// the same call with the same `mask` (PTX's `.sync` rule: otherwise the behaviour is
/// undefined on the GPU); the lane read takes part in the call. Nothing checks this at compile
/// time yet; the CPU emulator reports each violation (a panic or `WarpDivergence`).
#[oxide_gpu::nvvm("llvm.nvvm.shfl.sync.bfly.i32")]
#[inline(never)]
pub unsafe fn shfl_sync_bfly_i32(mask: u32, value: i32, lane_mask: u32, clamp: u32) -> i32 {
    shuffle("shfl_sync_bfly_i32", mask, value, |lane| {
        shfl_bfly_source(lane, lane_mask, clamp)
    })
}

/// `__shfl_down_sync(mask, value, delta, width)` (PTX `shfl.sync.down.b32`): every lane named
/// in `mask` passes a value and gets the value of lane `lane + delta`, or its own when that lies
/// past its segment (`clamp` as in [`shfl_sync_idx_i32`]: `0x1f` for the whole warp, or
/// `((32 - width) << 8) | 0x1f`).
///
/// # Safety
/// As [`shfl_sync_idx_i32`]: every lane that calls it is in `mask`, every lane of `mask` that
/// has not exited makes the same call, and the lane read takes part.
#[oxide_gpu::nvvm("llvm.nvvm.shfl.sync.down.i32")]
#[inline(never)]
pub unsafe fn shfl_sync_down_i32(mask: u32, value: i32, delta: u32, clamp: u32) -> i32 {
    shuffle("shfl_sync_down_i32", mask, value, |lane| {
        shfl_down_source(lane, delta, clamp)
    })
}

/// `__shfl_up_sync(mask, value, delta, width)` (PTX `shfl.sync.up.b32`): every lane named in
/// `mask` passes a value and gets the value of lane `lane - delta`, or its own when that lies
/// before its segment. Here `clamp` is `0` for the whole warp, or `(32 - width) << 8` (CUDA's
/// own value for `up`: the low bits are the segment's first lane, not its last).
///
/// # Safety
/// As [`shfl_sync_idx_i32`].
#[oxide_gpu::nvvm("llvm.nvvm.shfl.sync.up.i32")]
#[inline(never)]
pub unsafe fn shfl_sync_up_i32(mask: u32, value: i32, delta: u32, clamp: u32) -> i32 {
    shuffle("shfl_sync_up_i32", mask, value, |lane| {
        shfl_up_source(lane, delta, clamp)
    })
}

/// `__ballot_sync(mask, predicate)` (PTX `vote.sync.ballot.b32`): the lanes of `mask` whose
/// `predicate` is true, as a bit mask. Every calling lane is in `mask`, and every lane of
/// `mask` makes the call.
///
/// # Safety
/// Every lane that calls it is in `mask`, and every lane of `mask` that has not exited makes
/// the same call with the same `mask` (PTX's `.sync` rule: otherwise the behaviour is
/// undefined on the GPU). Nothing checks this at compile
/// time yet; the CPU emulator reports each violation (a panic or `WarpDivergence`).
#[oxide_gpu::nvvm("llvm.nvvm.vote.ballot.sync")]
#[inline(never)]
pub unsafe fn vote_ballot_sync(mask: u32, predicate: bool) -> u32 {
    let lane = calling_lane("vote_ballot_sync", mask);
    let Some(values) = host_context::warp_exchange(mask, u64::from(predicate)) else {
        return u32::from(predicate) << lane;
    };
    (0..WARP_SIZE)
        .filter(|&l| values.get(l) == Some(1))
        .fold(0, |ballot, l| ballot | 1 << l)
}

/// This thread's warp in its block: its linear number in the block (x fastest) divided by 32.
/// The same in every lane of a warp, which the backend knows (`#[oxide_gpu::warp_uniform]`):
/// a branch on it (or on what is computed from it and from block-uniform values) is taken by
/// whole warps, so warp collectives may be inside it, though barriers may not (docs/safety.md,
/// "Warp collectives are warp-uniform").
#[oxide_gpu::warp_uniform]
#[inline(never)]
pub fn warp_in_block() -> u32 {
    let in_block = (crate::thread::thread_idx_z() * crate::thread::block_dim_y()
        + crate::thread::thread_idx_y())
        * crate::thread::block_dim_x()
        + crate::thread::thread_idx_x();
    in_block / WARP_SIZE
}

/// `__activemask()` (PTX `activemask.b32`): the lanes of the warp executing this call together
/// with the caller right now. Which lanes those are is up to the GPU's scheduling (a diverged
/// warp may run its branches one after the other), so the mask is a hint, not a rule: it never
/// makes a following `.sync` instruction safe by itself. The emulator answers the lanes that
/// exist in the warp.
#[oxide_gpu::nvvm("llvm.nvvm.activemask")]
#[inline(never)]
pub fn active_mask() -> u32 {
    existing_lanes()
}

/// `__match_any_sync(mask, value)` (PTX `match.any.sync.b32`): the lanes of `mask` whose
/// `value` equals the caller's.
///
/// # Safety
/// As [`shfl_sync_idx_i32`]: every calling lane is in `mask`, and every lane of `mask` that has
/// not exited makes the same call.
#[oxide_gpu::nvvm("llvm.nvvm.match.any.sync.i32")]
#[inline(never)]
pub unsafe fn match_any_sync_i32(mask: u32, value: i32) -> u32 {
    match_lanes("match_any_sync_i32", mask, u64::from(value as u32))
}

/// `__match_any_sync(mask, value)` on 64 bits (PTX `match.any.sync.b64`).
///
/// # Safety
/// As [`match_any_sync_i32`].
#[oxide_gpu::nvvm("llvm.nvvm.match.any.sync.i64")]
#[inline(never)]
pub unsafe fn match_any_sync_i64(mask: u32, value: i64) -> u32 {
    match_lanes("match_any_sync_i64", mask, value as u64)
}

/// `__syncwarp(mask)` (PTX `bar.warp.sync`): the lanes of `mask` wait for each other, and
/// their memory accesses before it are seen by the others after it.
///
/// # Safety
/// Every calling lane is in `mask`, and every lane of `mask` that has not exited reaches a
/// `__syncwarp` with the same mask.
#[oxide_gpu::nvvm("llvm.nvvm.bar.warp.sync")]
#[inline(never)]
pub unsafe fn sync_warp_raw(mask: u32) {
    calling_lane("sync_warp_raw", mask);
    host_context::warp_exchange(mask, 0);
}

/// The host side of a match: the lanes of `mask` that published the caller's `bits`.
fn match_lanes(what: &str, mask: u32, bits: u64) -> u32 {
    let lane = calling_lane(what, mask);
    let Some(values) = host_context::warp_exchange(mask, bits) else {
        return 1 << lane;
    };
    (0..WARP_SIZE)
        .filter(|&l| values.get(l) == Some(bits))
        .fold(0, |lanes, l| lanes | 1 << l)
}

/// The calling lane, which must be in `mask` (undefined behaviour on the GPU otherwise).
fn calling_lane(what: &str, mask: u32) -> u32 {
    let lane = host_context::current().lane();
    assert!(
        mask & (1 << lane) != 0,
        "lane {lane} calls {what} with mask {mask:#010x}, which does not name it \
         (undefined behaviour on the GPU)"
    );
    lane
}

/// The host side of a 32-bit shuffle: the warp exchanges its values, and the calling lane reads
/// the one of the lane `source_of` names (its own without a runner).
fn shuffle(what: &str, mask: u32, value: i32, source_of: impl Fn(u32) -> u32) -> i32 {
    let lane = calling_lane(what, mask);
    let source = source_of(lane);
    // The value travels as its 32 bits.
    let Some(values) = host_context::warp_exchange(mask, u64::from(value as u32)) else {
        return value;
    };
    match values.get(source) {
        Some(bits) => bits as u32 as i32,
        None => panic!(
            "lane {lane} reads lane {source} in {what} (mask {mask:#010x}), which takes no part \
             in the shuffle (not in the mask, exited, or past the end of the warp): undefined \
             value on the GPU"
        ),
    }
}

/// The lane `shfl.sync.bfly` reads for lane `lane` with source operand `b` and clamp operand
/// `c` (the PTX ISA's definition).
fn shfl_bfly_source(lane: u32, b: u32, c: u32) -> u32 {
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (c & 0x1f & !segmask);
    let source = lane ^ (b & 0x1f);
    if source <= max_lane { source } else { lane }
}

/// The lane `shfl.sync.down` reads for lane `lane` with source operand `b` and clamp operand
/// `c` (the PTX ISA's definition).
fn shfl_down_source(lane: u32, b: u32, c: u32) -> u32 {
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (c & 0x1f & !segmask);
    let source = lane + (b & 0x1f);
    if source <= max_lane { source } else { lane }
}

/// The lane `shfl.sync.up` reads for lane `lane` with source operand `b` and clamp operand `c`
/// (the PTX ISA's definition: the bound is the segment's first lane).
fn shfl_up_source(lane: u32, b: u32, c: u32) -> u32 {
    let segmask = (c >> 8) & 0x1f;
    let min_lane = (lane & segmask) | (c & 0x1f & !segmask);
    match lane.checked_sub(b & 0x1f) {
        Some(source) if source >= min_lane => source,
        _ => lane,
    }
}

/// The lane `shfl.sync.idx` reads for lane `lane` with source operand `b` and clamp operand `c`
/// (the PTX ISA's definition).
fn shfl_idx_source(lane: u32, b: u32, c: u32) -> u32 {
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (c & 0x1f & !segmask);
    let source = (lane & segmask) | (b & 0x1f & !segmask);
    if source <= max_lane { source } else { lane }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_context::{ThreadContext, with_thread_context};

    fn lane_of(thread: u32, block_x: u32) -> ThreadContext {
        ThreadContext {
            thread_idx: [thread, 0, 0],
            block_dim: [block_x, 1, 1],
            ..ThreadContext::SINGLE
        }
    }

    #[test]
    fn one_host_thread_is_lane_zero_and_reads_itself() {
        assert_eq!(lane_id(), 0);
        assert_eq!(unsafe { shfl_sync_idx_i32(!0, -7, 5, 0x1f) }, -7);
        assert_eq!(unsafe { shfl_sync_idx_i32(1, i32::MIN, 0, 0x1f) }, i32::MIN);
        with_thread_context(lane_of(37, 64), || {
            assert_eq!(lane_id(), 5);
            assert_eq!(unsafe { shfl_sync_idx_i32(1 << 5, 3, 0, 0x1f) }, 3);
        });
    }

    #[test]
    fn a_lane_outside_the_mask_is_refused() {
        let caught = std::panic::catch_unwind(|| {
            with_thread_context(lane_of(3, 32), || {
                unsafe { shfl_sync_idx_i32(0b111, 1, 0, 0x1f) };
            })
        });
        assert!(caught.is_err());
    }

    #[test]
    fn one_host_thread_ballots_and_butterflies_alone() {
        assert_eq!(unsafe { vote_ballot_sync(!0, true) }, 1);
        assert_eq!(unsafe { vote_ballot_sync(!0, false) }, 0);
        assert_eq!(unsafe { shfl_sync_bfly_i32(!0, 9, 1, 0x1f) }, 9);
        with_thread_context(lane_of(37, 64), || {
            assert_eq!(unsafe { vote_ballot_sync(1 << 5, true) }, 1 << 5);
        });
    }

    #[test]
    fn butterfly_lanes_as_cuda_computes_them() {
        for lane in 0..32 {
            assert_eq!(shfl_bfly_source(lane, 1, 0x1f), lane ^ 1);
            assert_eq!(shfl_bfly_source(lane, 16, 0x1f), lane ^ 16);
        }
        // width 8 (c = (24 << 8) | 0x1f): as CUDA documents for `__shfl_xor_sync`, a lane may
        // read an earlier segment (13 ^ 8 = 5) but not a later one (5 ^ 8 = 13 reads itself).
        let c8 = (24 << 8) | 0x1f;
        assert_eq!(shfl_bfly_source(13, 8, c8), 5);
        assert_eq!(shfl_bfly_source(5, 8, c8), 5);
        assert_eq!(shfl_bfly_source(13, 4, c8), 9);
    }

    #[test]
    fn down_and_up_lanes_as_cuda_computes_them() {
        for lane in 0..32 {
            assert_eq!(
                shfl_down_source(lane, 3, 0x1f),
                if lane + 3 < 32 { lane + 3 } else { lane }
            );
            assert_eq!(
                shfl_up_source(lane, 3, 0),
                lane.checked_sub(3).unwrap_or(lane)
            );
        }
        // width 8: segments of 8 lanes; lane 13 (segment 8..16) reads 15 down 2, not 17 down 4.
        let (down8, up8) = ((24 << 8) | 0x1f, 24 << 8);
        assert_eq!(shfl_down_source(13, 2, down8), 15);
        assert_eq!(shfl_down_source(13, 4, down8), 13);
        assert_eq!(shfl_up_source(13, 5, up8), 8);
        assert_eq!(shfl_up_source(13, 6, up8), 13);
    }

    #[test]
    fn source_lanes_as_cuda_computes_them() {
        // The whole warp: src_lane modulo 32.
        for lane in 0..32 {
            assert_eq!(shfl_idx_source(lane, 7, 0x1f), 7);
            assert_eq!(shfl_idx_source(lane, 40, 0x1f), 8);
        }
        // width 16: ((32 - 16) << 8) | 0x1f reads src_lane % 16 of the caller's half.
        let c16 = (16 << 8) | 0x1f;
        assert_eq!(shfl_idx_source(3, 5, c16), 5);
        assert_eq!(shfl_idx_source(20, 5, c16), 21);
        assert_eq!(shfl_idx_source(20, 18, c16), 18);
        // width 8, lane 13 is in the segment 8..16.
        let c8 = (24 << 8) | 0x1f;
        assert_eq!(shfl_idx_source(13, 2, c8), 10);
        // A clamp below the source: the caller reads itself.
        assert_eq!(shfl_idx_source(4, 9, 7), 4);
        assert_eq!(shfl_idx_source(4, 7, 7), 7);
    }
}
