//! Threads that exchange values: warp shuffles (a butterfly sum, segments of a warp) and
//! block-shared memory (`SharedArray`) around `sync_threads()` (a reversal, a tree sum). Each
//! reference computes the same values from the whole input, block by block or warp by warp.
//! Threads past the end of the input take part too (with a stand-in value), as they must in
//! every shuffle and barrier.

use oxide::prelude::*;
use oxide::thread::{block_dim_x, sync_threads, thread_idx_x};
use oxide::warp::{
    WARP_SIZE, lane_id, shfl_sync_bfly_i32, shfl_sync_down_i32, shfl_sync_idx_i32,
    shfl_sync_up_i32, vote_ballot_sync,
};

use crate::harness::{BLOCK, Case, Check::Exact, KernelCase};

const FULL_WARP: u32 = u32::MAX;
const BLOCK_SIZE: usize = BLOCK as usize;
const WARP: usize = WARP_SIZE as usize;

/// The value thread `i` contributes: its input's low 32 bits, or 0 past the end.
fn lane_value(input: &[u64], i: usize) -> i32 {
    input.get(i).map_or(0, |&x| x as u32 as i32)
}

/// Every lane gets its warp's sum by five xor-butterfly steps (`shfl.sync.idx` of lane
/// `lane ^ offset`).
#[kernel]
pub fn warp_butterfly_sum(input: &[u64], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let mut sum = lane_value(input, idx.get());
    let lane = lane_id();
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        sum = sum.wrapping_add(unsafe { shfl_sync_idx_i32(FULL_WARP, sum, lane ^ offset, 0x1f) });
        offset /= 2;
    }
    if let Some(o) = out.get_mut(idx) {
        *o = sum;
    }
}

fn warp_butterfly_reference(input: &[u64]) -> Vec<i32> {
    (0..input.len())
        .map(|i| {
            let first = i / WARP * WARP;
            (first..first + WARP)
                .map(|j| lane_value(input, j))
                .fold(0i32, i32::wrapping_add)
        })
        .collect()
}

/// `shfl.sync.down` in segments of 8 lanes (3 down) and `shfl.sync.up` in segments of 16 (5 up),
/// mixed: a lane whose source lies outside its segment reads itself.
#[kernel]
pub fn warp_down_up_segments(input: &[u64], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let value = lane_value(input, idx.get());
    // SAFETY: every lane of the full warp (blocks of 128) makes both calls with the full mask.
    let (down, up) = unsafe {
        (
            shfl_sync_down_i32(FULL_WARP, value, 3, ((32 - 8) << 8) | 0x1f),
            shfl_sync_up_i32(FULL_WARP, value, 5, (32 - 16) << 8),
        )
    };
    if let Some(o) = out.get_mut(idx) {
        *o = down ^ up.rotate_left(11);
    }
}

fn warp_down_up_reference(input: &[u64]) -> Vec<i32> {
    (0..input.len())
        .map(|i| {
            let lane = i % WARP;
            let down = if lane % 8 + 3 < 8 { i + 3 } else { i };
            let up = if lane % 16 >= 5 { i - 5 } else { i };
            lane_value(input, down) ^ lane_value(input, up).rotate_left(11)
        })
        .collect()
}

/// Each lane gets its warp's maximum by xor shuffles (`shfl.sync.bfly`), and the warp's ballot of
/// which lanes hold an odd value (`vote.sync.ballot`), mixed into one value.
#[kernel]
pub fn warp_xor_max_ballot(input: &[u64], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let value = lane_value(input, idx.get());
    let mut max = value;
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        max = max.max(unsafe { shfl_sync_bfly_i32(FULL_WARP, max, offset, 0x1f) });
        offset /= 2;
    }
    let odd = unsafe { vote_ballot_sync(FULL_WARP, value & 1 == 1) };
    if let Some(o) = out.get_mut(idx) {
        *o = max ^ odd as i32;
    }
}

fn warp_xor_max_ballot_reference(input: &[u64]) -> Vec<i32> {
    (0..input.len())
        .map(|i| {
            let first = i / WARP * WARP;
            let lanes = (first..first + WARP).map(|j| lane_value(input, j));
            let max = lanes.clone().max().unwrap_or(i32::MIN);
            let odd = lanes
                .enumerate()
                .filter(|(_, v)| v & 1 == 1)
                .fold(0u32, |m, (lane, _)| m | 1 << lane);
            max ^ odd as i32
        })
        .collect()
}

/// `clamp` for segments of 8 lanes (CUDA's `width = 8`).
const SEGMENT_OF_8: u32 = ((WARP_SIZE - 8) << 8) | 0x1f;

/// Each lane reads lane `(lane + 3) % 8` of its segment of 8 lanes.
#[kernel]
pub fn warp_segment_rotate(input: &[u64], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let value = lane_value(input, idx.get());
    let rotated = unsafe { shfl_sync_idx_i32(FULL_WARP, value, lane_id() + 3, SEGMENT_OF_8) };
    if let Some(o) = out.get_mut(idx) {
        *o = rotated;
    }
}

fn warp_segment_reference(input: &[u64]) -> Vec<i32> {
    (0..input.len())
        .map(|i| lane_value(input, (i & !7) | ((i + 3) & 7)))
        .collect()
}

static TILE: SharedArray<u64, BLOCK_SIZE> = SharedArray::new();

/// The value a thread past the end puts into shared memory.
fn stand_in(t: usize) -> u64 {
    u64::MAX ^ t as u64
}

/// Each block reverses its values through shared memory.
#[kernel]
pub fn shared_block_reverse(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let (t, n) = (thread_idx_x() as usize, block_dim_x() as usize);
    assert!(n <= TILE.len());
    let (tile, value) = (TILE.as_mut_ptr(), input.get(idx.get()).copied());
    // SAFETY: thread `t` writes element `t < n <= len` of its block's copy; after the barrier
    // it reads element `n - 1 - t`, which its block wrote before the barrier.
    unsafe { tile.add(t).write(value.unwrap_or(stand_in(t))) };
    sync_threads();
    let reversed = unsafe { tile.add(n - 1 - t).read() };
    if let Some(o) = out.get_mut(idx) {
        *o = reversed.rotate_left(7) ^ t as u64;
    }
}

fn shared_reverse_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let t = i % BLOCK_SIZE;
            let mirror = BLOCK_SIZE - 1 - t;
            let j = i - t + mirror;
            let v = input.get(j).copied().unwrap_or(stand_in(mirror));
            v.rotate_left(7) ^ t as u64
        })
        .collect()
}

static PARTIAL: SharedArray<u32, BLOCK_SIZE> = SharedArray::new();

/// Each block sums its values by halving steps in shared memory, a barrier between steps.
#[kernel]
pub fn shared_block_tree_sum(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let (t, n) = (thread_idx_x() as usize, block_dim_x() as usize);
    assert!(n <= PARTIAL.len() && n.is_power_of_two());
    let partial = PARTIAL.as_mut_ptr();
    let value = input.get(idx.get()).map_or(0, |&x| x as u32);
    // SAFETY: thread `t` writes element `t`. In the step of `stride`, thread `t < stride`
    // reads element `t + stride` (written by thread `t + stride`, which writes nothing in this
    // step) and writes element `t`; a barrier separates the steps, and the final read of
    // element 0.
    unsafe { partial.add(t).write(value) };
    let mut stride = n / 2;
    while stride > 0 {
        sync_threads();
        if t < stride {
            unsafe {
                let other = partial.add(t + stride).read();
                let own = partial.add(t);
                own.write(own.read().wrapping_add(other));
            }
        }
        stride /= 2;
    }
    sync_threads();
    let sum = unsafe { partial.read() };
    if let Some(o) = out.get_mut(idx) {
        *o = sum;
    }
}

fn shared_tree_sum_reference(input: &[u64]) -> Vec<u32> {
    (0..input.len())
        .map(|i| {
            let first = i / BLOCK_SIZE * BLOCK_SIZE;
            (first..first + BLOCK_SIZE)
                .map(|j| input.get(j).map_or(0, |&x| x as u32))
                .fold(0u32, u32::wrapping_add)
        })
        .collect()
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(KernelCase::<i32> {
            name: "warp_butterfly_sum",
            check: Exact,
            reference: warp_butterfly_reference,
            launch: |gpu, cfg, input, out| warp_butterfly_sum::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| warp_butterfly_sum::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<i32> {
            name: "warp_segment_rotate",
            check: Exact,
            reference: warp_segment_reference,
            launch: |gpu, cfg, input, out| warp_segment_rotate::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| warp_segment_rotate::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<i32> {
            name: "warp_down_up_segments",
            check: Exact,
            reference: warp_down_up_reference,
            launch: |gpu, cfg, input, out| warp_down_up_segments::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| warp_down_up_segments::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<i32> {
            name: "warp_xor_max_ballot",
            check: Exact,
            reference: warp_xor_max_ballot_reference,
            launch: |gpu, cfg, input, out| warp_xor_max_ballot::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| warp_xor_max_ballot::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "shared_block_reverse",
            check: Exact,
            reference: shared_reverse_reference,
            launch: |gpu, cfg, input, out| shared_block_reverse::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| shared_block_reverse::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u32> {
            name: "shared_block_tree_sum",
            check: Exact,
            reference: shared_tree_sum_reference,
            launch: |gpu, cfg, input, out| shared_block_tree_sum::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| shared_block_tree_sum::emulate(cfg, input, out),
        }),
    ]
}
