//! The safe warp collectives (`oxide::warp::sum`, `inclusive_scan`, `ballot`, `match_any`,
//! `sync`, shuffles...), in blocks of 48 threads: every block has a full warp and a warp of 16
//! lanes, whose collectives must leave out the 16 lanes that do not exist. Every thread takes part (past the end of the
//! input with a stand-in value). Each reference computes the same from the whole input, warp by
//! warp.

use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, Error, Gpu};
use oxide::prelude::*;
use oxide::warp;

use crate::harness::{Case, Check::Exact, KernelCase};

/// Threads per block: one warp of 32 and one of 16.
const BLOCK: usize = 48;
const WARP: usize = 32;

fn config(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n, BLOCK as u32).expect("a valid launch shape")
}

/// The value thread `i` contributes: its input's low 32 bits, or 0 past the end.
fn lane_value(input: &[u64], i: usize) -> u32 {
    input.get(i).map_or(0, |&x| x as u32)
}

/// The threads of thread `i`'s warp, in blocks of [`BLOCK`].
fn warp_of(i: usize) -> core::ops::Range<usize> {
    let block = i / BLOCK * BLOCK;
    let first = block + (i - block) / WARP * WARP;
    first..(first + WARP).min(block + BLOCK)
}

/// Sum (64-bit), inclusive scan (wrapping u32), maximum (i32) and ballot of odd values, mixed.
#[kernel]
pub fn warp_safe_reductions(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let v = lane_value(input, idx.get());
    let sum = warp::sum(u64::from(v));
    let scan = warp::inclusive_scan(v, u32::wrapping_add);
    let max = warp::max(v as i32);
    let odd = warp::ballot(v & 1 == 1);
    let all_small = warp::all(v < 1000);
    let any_small = warp::any(v < 1000);
    if let Some(o) = out.get_mut(idx) {
        *o = sum
            ^ u64::from(scan).rotate_left(20)
            ^ (max as u64).rotate_left(40)
            ^ u64::from(odd).rotate_left(7)
            ^ u64::from(all_small) << 62
            ^ u64::from(any_small) << 63;
    }
}

fn reductions_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let lanes = warp_of(i);
            let first = lanes.start;
            let values: Vec<u32> = lanes.clone().map(|j| lane_value(input, j)).collect();
            let sum: u64 = values.iter().map(|&v| u64::from(v)).sum();
            let scan = values[..=i - first]
                .iter()
                .fold(0u32, |a, &v| a.wrapping_add(v));
            let max = values.iter().map(|&v| v as i32).max().unwrap_or(i32::MIN);
            let odd = values
                .iter()
                .enumerate()
                .filter(|(_, v)| *v & 1 == 1)
                .fold(0u32, |m, (lane, _)| m | 1 << lane);
            let all_small = values.iter().all(|&v| v < 1000);
            let any_small = values.iter().any(|&v| v < 1000);
            sum ^ u64::from(scan).rotate_left(20)
                ^ (max as u64).rotate_left(40)
                ^ u64::from(odd).rotate_left(7)
                ^ u64::from(all_small) << 62
                ^ u64::from(any_small) << 63
        })
        .collect()
}

/// Warp collectives under a warp-uniform branch: the first warp of each block sums, the
/// second takes the maximum (`warp::warp_in_block()`); the partial warp of 16 lanes included.
#[kernel]
pub fn warp_uniform_branches(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let v = lane_value(input, idx.get());
    let result = if warp::warp_in_block() == 0 {
        u64::from(warp::reduce(v, u32::wrapping_add))
    } else {
        u64::from(warp::max(v)) << 32
    };
    if let Some(o) = out.get_mut(idx) {
        *o = result;
    }
}

fn warp_uniform_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let values: Vec<u32> = warp_of(i).map(|j| lane_value(input, j)).collect();
            if (i % BLOCK) / WARP == 0 {
                u64::from(values.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
            } else {
                u64::from(values.iter().copied().max().unwrap_or(0)) << 32
            }
        })
        .collect()
}

/// `match_any` on a few distinct 32-bit values and on f64 bits, `match_all`, and the warp's
/// lanes after `warp::sync()` (`active_mask`, all existing lanes in converged code).
#[kernel]
pub fn warp_match_sync(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let v = lane_value(input, idx.get());
    let same_class = warp::match_any(v % 5);
    let same_double = warp::match_any(f64::from(v % 3) * 0.5);
    let all_class = warp::match_all(v % 5).map_or(u64::MAX, u64::from);
    let all_block = warp::match_all(thread::block_idx_x()).map_or(u64::MAX, u64::from);
    warp::sync();
    let active = warp::active_mask();
    if let Some(o) = out.get_mut(idx) {
        *o = u64::from(same_class)
            ^ u64::from(same_double).rotate_left(17)
            ^ all_class.rotate_left(3)
            ^ all_block.rotate_left(29)
            ^ u64::from(active).rotate_left(41);
    }
}

fn match_sync_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let lanes = warp_of(i);
            let values: Vec<u32> = lanes.clone().map(|j| lane_value(input, j)).collect();
            let mine = lane_value(input, i);
            let lanes_where = |same: &dyn Fn(u32) -> bool| {
                values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| same(**v))
                    .fold(0u32, |m, (lane, _)| m | 1 << lane)
            };
            let existing = lanes_where(&|_| true);
            let same_class = lanes_where(&|v| v % 5 == mine % 5);
            let same_double = lanes_where(&|v| v % 3 == mine % 3);
            let all_class = if same_class == existing {
                u64::from(existing)
            } else {
                u64::MAX
            };
            u64::from(same_class)
                ^ u64::from(same_double).rotate_left(17)
                ^ all_class.rotate_left(3)
                ^ u64::from(existing).rotate_left(29)
                ^ u64::from(existing).rotate_left(41)
        })
        .collect()
}

/// Shuffles of f32 and f64 bits: xor 5, down 3, up 7, and lane 9's value; a lane that does not
/// exist gives the caller's own value.
#[kernel]
pub fn warp_safe_shuffles(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let v = lane_value(input, idx.get());
    let single = f32::from_bits(v);
    let double = f64::from_bits(u64::from(v) << 29 | u64::from(v));
    let xor = warp::shuffle_xor(single, 5).to_bits();
    let down = warp::shuffle_down(double, 3).to_bits();
    let up = warp::shuffle_up(single, 7).to_bits();
    let lane9 = warp::broadcast(double, 9).to_bits();
    if let Some(o) = out.get_mut(idx) {
        *o = u64::from(xor)
            ^ down.rotate_left(11)
            ^ u64::from(up).rotate_left(31)
            ^ lane9.rotate_left(47);
    }
}

fn shuffles_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let lanes = warp_of(i);
            let lane = i - lanes.start;
            let count = lanes.len();
            // The value of lane `l` of this warp, or thread `i`'s own when `l` does not exist.
            let at = |l: Option<usize>| {
                let j = l.filter(|&l| l < count).map_or(i, |l| lanes.start + l);
                lane_value(input, j)
            };
            let double = |v: u32| u64::from(v) << 29 | u64::from(v);
            let xor = at(Some(lane ^ 5));
            let down = double(at(Some(lane + 3)));
            let up = at(lane.checked_sub(7));
            let lane9 = double(at(Some(9)));
            u64::from(xor)
                ^ down.rotate_left(11)
                ^ u64::from(up).rotate_left(31)
                ^ lane9.rotate_left(47)
        })
        .collect()
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(KernelCase::<u64> {
            name: "warp_safe_reductions",
            check: Exact,
            reference: reductions_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                warp_safe_reductions::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                warp_safe_reductions::emulate(&config(input.len()), input, out)
            },
        }),
        Box::new(KernelCase::<u64> {
            name: "warp_uniform_branches",
            check: Exact,
            reference: warp_uniform_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                warp_uniform_branches::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                warp_uniform_branches::emulate(&config(input.len()), input, out)
            },
        }),
        Box::new(KernelCase::<u64> {
            name: "warp_match_sync",
            check: Exact,
            reference: match_sync_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                warp_match_sync::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                warp_match_sync::emulate(&config(input.len()), input, out)
            },
        }),
        Box::new(KernelCase::<u64> {
            name: "warp_safe_shuffles",
            check: Exact,
            reference: shuffles_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                warp_safe_shuffles::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                warp_safe_shuffles::emulate(&config(input.len()), input, out)
            },
        }),
    ]
}
