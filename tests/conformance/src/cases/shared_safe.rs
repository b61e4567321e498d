//! Safe block-shared memory (`Shared<A>` kernel parameters, written and read in phases) and the
//! block collectives (`oxide::block`), in blocks of 80 threads: two full warps and one of 16
//! lanes. Every thread takes part (past the end of the input with a stand-in value). Each
//! reference computes the same from the whole input, block by block.

use core::sync::atomic::{AtomicU32, Ordering};

use oxide::block;
use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, Error, Gpu};
use oxide::prelude::*;
use oxide::shared::{SlotMap, WarpRegions};

use crate::harness::{Case, Check::Exact, KernelCase};

/// Threads per block.
const BLOCK: usize = 80;
const WARP: usize = 32;

fn config(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n, BLOCK as u32).expect("a valid launch shape")
}

/// The value thread `i` of the grid contributes: its input, or a stand-in past the end.
fn value_of(input: &[u64], i: usize) -> u64 {
    input
        .get(i)
        .copied()
        .unwrap_or(0x5555_0000_0000_0000 ^ i as u64)
}

/// The threads of thread `i`'s block.
fn block_of(i: usize) -> core::ops::Range<usize> {
    let first = i / BLOCK * BLOCK;
    first..first + BLOCK
}

/// Two slots per thread (`N = 2 * 80`) over three phases: written, read at scattered slots,
/// rewritten (slot `t` only), read again.
#[kernel]
pub fn shared_phase_exchange(
    input: &[u64],
    mut out: DisjointSlice<u64>,
    slots: Shared<[u64; 160]>,
) {
    let idx = ThreadIndex::linear();
    let first = idx.get() - thread::thread_idx_x() as usize;
    let slots = slots.init(|s| value_of(input, first + s % BLOCK).rotate_left(s as u32));
    let read = slots.sync();
    let t = thread::thread_idx_x() as usize;
    let mixed = read[(3 * t + 1) % 160] ^ read[(7 * t) % 160].rotate_left(13);
    let mut slots = read.sync();
    if let Some(own) = slots.own_mut(0) {
        *own = mixed;
    }
    let read = slots.sync();
    let result = read[(t + 1) % BLOCK] ^ read[t + BLOCK];
    if let Some(o) = out.get_mut(idx) {
        *o = result;
    }
}

fn phase_exchange_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let first = block_of(i).start;
            let init = |s: usize| value_of(input, first + s % BLOCK).rotate_left(s as u32);
            let mixed = |t: usize| init((3 * t + 1) % 160) ^ init((7 * t) % 160).rotate_left(13);
            let t = i - first;
            mixed((t + 1) % BLOCK) ^ init(t + BLOCK)
        })
        .collect()
}

/// Computed-slot steps (`SharedRead::step`): a Blelloch exclusive scan of the block's values in
/// 128 slots (up-sweep: thread `t` of the step of span `2d` owns the group `2d·t ..`, adds its
/// slot `d - 1` into its slot `2d - 1`; the last slot cleared by one writer; down-sweep), then
/// a halving sum of the same values (thread `t < s` adds slot `t + s`, which nobody writes in
/// the step, into slot `t`). One barrier between steps, as CUDA's scan.
#[kernel]
pub fn shared_tree_steps(
    input: &[u64],
    mut out: DisjointSlice<u64>,
    scan: Shared<[u64; 128]>,
    sums: Shared<[u64; 128]>,
) {
    let idx = ThreadIndex::linear();
    let first = idx.get() - thread::thread_idx_x() as usize;
    let value = |s: usize| {
        if s < BLOCK {
            value_of(input, first + s)
        } else {
            0
        }
    };
    let groups = |d: usize| SlotMap::new(2 * d, 0, 2 * d, 128 / (2 * d));
    let mut step = scan.init(value).sync().step(groups(1));
    let mut d = 1;
    loop {
        let left = step.own_slot(d - 1).and_then(|s| step.get(s)).copied();
        if let (Some(left), Some((_, right))) = (left, step.own_mut(2 * d - 1)) {
            *right = right.wrapping_add(left);
        }
        if d == 64 {
            break;
        }
        d *= 2;
        step = step.step(groups(d));
    }
    let mut step = step.step(SlotMap::affine(1, 127, 1));
    if let Some((_, last)) = step.own_mut(0) {
        *last = 0;
    }
    let mut d = 64;
    loop {
        step = step.step(groups(d));
        let left = step.own_slot(d - 1).and_then(|s| step.get(s)).copied();
        let right = step.own_slot(2 * d - 1).and_then(|s| step.get(s)).copied();
        if let (Some(left), Some(right)) = (left, right) {
            if let Some((_, l)) = step.own_mut(d - 1) {
                *l = right;
            }
            if let Some((_, r)) = step.own_mut(2 * d - 1) {
                *r = right.wrapping_add(left);
            }
        }
        if d == 1 {
            break;
        }
        d /= 2;
    }
    let scanned = step.sync();
    let mut step = sums.init(value).sync().step(SlotMap::affine(1, 0, 64));
    let mut s = 64;
    loop {
        let t = thread::thread_idx_x() as usize;
        let other = step.get(t + s).copied();
        if let (Some(other), Some((_, own))) = (other, step.own_mut(0)) {
            *own = own.wrapping_add(other);
        }
        if s == 1 {
            break;
        }
        s /= 2;
        step = step.step(SlotMap::affine(1, 0, s));
    }
    let total = step.sync()[0];
    let t = thread::thread_idx_x() as usize;
    if let Some(o) = out.get_mut(idx) {
        *o = scanned[t] ^ total.rotate_left(17);
    }
}

fn tree_steps_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let block = block_of(i);
            let values: Vec<u64> = block.clone().map(|j| value_of(input, j)).collect();
            let t = i - block.start;
            let before = values[..t].iter().fold(0u64, |a, &v| a.wrapping_add(v));
            let total = values.iter().fold(0u64, |a, &v| a.wrapping_add(v));
            before ^ total.rotate_left(17)
        })
        .collect()
}

/// A shared region per warp (`Shared<WarpRegions<u64, 48, 3>>`): each warp of the block (two
/// full, one of 16 lanes) caches 48 values in its own region, `__syncwarp`, reads them rotated
/// by its lane, rewrites its slots with what it read, `__syncwarp`, and reads again: phases of
/// one warp, without a block barrier.
#[kernel]
pub fn shared_warp_regions(
    input: &[u64],
    mut out: DisjointSlice<u64>,
    regions: Shared<WarpRegions<u64, 48, 3>>,
) {
    let idx = ThreadIndex::linear();
    let Some(region) = regions.warp_region() else {
        return;
    };
    let first = idx.get() - thread::thread_idx_x() as usize;
    let w = oxide::warp::warp_in_block() as usize;
    let read = region
        .init(|s| value_of(input, first + (w * 48 + s) % BLOCK).rotate_left(s as u32))
        .sync();
    let lane = oxide::warp::lane_id() as usize;
    let mine = read[(lane * 5 + 3) % 48];
    let mut write = read.sync();
    let mut k = 0;
    while let Some(own) = write.own_mut(k) {
        *own ^= mine.rotate_left(k as u32);
        k += 1;
    }
    let read = write.sync();
    if let Some(o) = out.get_mut(idx) {
        *o = read[lane] ^ read[47 - lane];
    }
}

fn warp_regions_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let block = block_of(i);
            let t = i - block.start;
            let (w, lane) = (t / WARP, t % WARP);
            let lanes = (BLOCK - w * WARP).min(WARP);
            let init = |s: usize| {
                value_of(input, block.start + (w * 48 + s) % BLOCK).rotate_left(s as u32)
            };
            let mine = |l: usize| init((l * 5 + 3) % 48);
            let after = |s: usize| init(s) ^ mine(s % lanes).rotate_left((s / lanes) as u32);
            after(lane) ^ after(47 - lane)
        })
        .collect()
}

/// One writer per warp (`Shared<PerWarp<[u64; 4]>>`): lane 0 of each of the block's three
/// warps (two full, one of 16 lanes) writes its warp's sum into slot `w`, warp 0 also slot 3
/// (past the block's warps: 0); then every thread reads all four slots.
#[kernel]
pub fn shared_per_warp_sums(
    input: &[u64],
    mut out: DisjointSlice<u64>,
    partial: Shared<PerWarp<[u64; 4]>>,
) {
    let idx = ThreadIndex::linear();
    let warp_sum = oxide::warp::sum(value_of(input, idx.get()) & 0xffff_ffff);
    let warps = (thread::block_dim_x() as usize).div_ceil(WARP);
    let partial = partial
        .init(|slot| if slot < warps { warp_sum } else { 0 })
        .sync();
    let t = thread::thread_idx_x() as usize;
    let total = partial.iter().fold(0u64, |a, &v| a.wrapping_add(v));
    if let Some(o) = out.get_mut(idx) {
        *o = total ^ partial[t % 4].rotate_left(7);
    }
}

fn per_warp_sums_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let block = block_of(i);
            let warp_sum = |w: usize| -> u64 {
                let lanes = block.start + w * WARP..(block.start + (w + 1) * WARP).min(block.end);
                lanes.map(|j| value_of(input, j) & 0xffff_ffff).sum()
            };
            let slots: Vec<u64> = (0..4)
                .map(|w| {
                    if w < BLOCK.div_ceil(WARP) {
                        warp_sum(w)
                    } else {
                        0
                    }
                })
                .collect();
            let total = slots.iter().fold(0u64, |a, &v| a.wrapping_add(v));
            total ^ slots[(i - block.start) % 4].rotate_left(7)
        })
        .collect()
}

/// Dynamic shared memory of [`DYNAMIC_LEN`] slots (the launch's length: thread `t` owns `t`,
/// `t + 80`, `t + 160`), the phases of [`shared_phase_exchange`].
#[kernel]
pub fn shared_dynamic_exchange(input: &[u64], mut out: DisjointSlice<u64>, slots: DynShared<u64>) {
    let idx = ThreadIndex::linear();
    let first = idx.get() - thread::thread_idx_x() as usize;
    let len = slots.len();
    let slots = slots.init(|s| value_of(input, first + s % BLOCK).rotate_left(s as u32));
    let read = slots.sync();
    let t = thread::thread_idx_x() as usize;
    let mixed = read[(3 * t + 1) % len] ^ read[(7 * t) % len].rotate_left(13);
    let mut slots = read.sync();
    if let Some((_, own)) = slots.own_mut(0) {
        *own = mixed;
    }
    let read = slots.sync();
    let result = read[(t + 1) % BLOCK] ^ read[t + BLOCK] ^ read[len - 1];
    if let Some(o) = out.get_mut(idx) {
        *o = result;
    }
}

/// The launch's length of [`shared_dynamic_exchange`]'s array.
const DYNAMIC_LEN: usize = 2 * BLOCK + 7;

/// The length of [`shared_dynamic_exchange`]'s array in the case `shared_dynamic_opt_in`:
/// 20,000 `u64`, 160,000 bytes, more than the 48 KiB a kernel has without opting in.
const DYNAMIC_OPT_IN_LEN: usize = 20_000;

fn dynamic_exchange_reference(input: &[u64]) -> Vec<u64> {
    dynamic_exchange_of(input, DYNAMIC_LEN)
}

fn dynamic_opt_in_reference(input: &[u64]) -> Vec<u64> {
    dynamic_exchange_of(input, DYNAMIC_OPT_IN_LEN)
}

fn dynamic_exchange_of(input: &[u64], len: usize) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let first = block_of(i).start;
            let init = |s: usize| value_of(input, first + s % BLOCK).rotate_left(s as u32);
            let mixed = |t: usize| init((3 * t + 1) % len) ^ init((7 * t) % len).rotate_left(13);
            let slot = |s: usize| if s < BLOCK { mixed(s) } else { init(s) };
            let t = i - first;
            slot((t + 1) % BLOCK) ^ slot(t + BLOCK) ^ slot(len - 1)
        })
        .collect()
}

/// Elements per window of [`block_window_rmw`]: not a multiple of the block (thread `t` owns
/// slots `t`, `t + 80`, `t + 160`), and the last window of the input is partial.
const WINDOW: usize = 200;

/// A block-owned window of the output, read and written in phases: the launch's zeros read,
/// each thread's slots written from the input, the window read at scattered slots, each
/// thread's slots rewritten.
#[kernel]
pub fn block_window_rmw(input: &[u64], out: BlockWindows<u64, WINDOW>) {
    if let Some((start, read)) = out.window() {
        let zero = read[0];
        let mut slots = read.sync();
        for k in 0..3 {
            if let Some((slot, v)) = slots.own_mut(k) {
                *v = value_of(input, start + slot).rotate_left(slot as u32) ^ zero;
            }
        }
        let read = slots.sync();
        let n = read.len();
        let t = thread::thread_idx_x() as usize;
        let mut mixed = [0u64; 3];
        for (k, m) in mixed.iter_mut().enumerate() {
            let slot = (t + k * BLOCK) % n;
            *m = read[(slot * 7 + 1) % n] ^ read[n - 1 - slot].rotate_left(17);
        }
        let mut slots = read.sync();
        for (k, m) in mixed.iter().enumerate() {
            if let Some((_, v)) = slots.own_mut(k) {
                *v = *m;
            }
        }
    }
}

fn window_rmw_reference(input: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; input.len()];
    for (w, window) in out.chunks_mut(WINDOW).enumerate() {
        let start = w * WINDOW;
        let n = window.len();
        let first: Vec<u64> = (0..n)
            .map(|slot| value_of(input, start + slot).rotate_left(slot as u32))
            .collect();
        for (slot, v) in window.iter_mut().enumerate() {
            *v = first[(slot * 7 + 1) % n] ^ first[n - 1 - slot].rotate_left(17);
        }
    }
    out
}

/// A 12 x 16 tile in a one-dimensional block wider than its rows: owned by its row-major slots,
/// thread `t` slot `t` (of 192), so every thread writes one and some none.
#[kernel]
pub fn shared_tile_columns(
    input: &[u64],
    mut out: DisjointSlice<u32>,
    tile: Shared<[[u32; 16]; 12]>,
) {
    let idx = ThreadIndex::linear();
    let first = idx.get() - thread::thread_idx_x() as usize;
    let tile = tile
        .init(|(row, col)| value_of(input, first + (row * 16 + col) % BLOCK) as u32)
        .sync();
    let t = thread::thread_idx_x() as usize;
    let result = tile[t % 12][t % 16] ^ tile[(t / 16) % 12][(t * 5) % 16].rotate_left(9);
    if let Some(o) = out.get_mut(idx) {
        *o = result;
    }
}

fn tile_columns_reference(input: &[u64]) -> Vec<u32> {
    (0..input.len())
        .map(|i| {
            let first = block_of(i).start;
            let tile =
                |row: usize, col: usize| value_of(input, first + (row * 16 + col) % BLOCK) as u32;
            let t = i - first;
            tile(t % 12, t % 16) ^ tile((t / 16) % 12, (t * 5) % 16).rotate_left(9)
        })
        .collect()
}

/// A block histogram of 64 bins with shared atomics; thread `t` reports bin `t % 64`.
#[kernel]
pub fn shared_atomic_histogram(
    input: &[u64],
    mut out: DisjointSlice<u32>,
    bins: Shared<[AtomicU32; 64]>,
) {
    let idx = ThreadIndex::linear();
    let bins = bins.init(|_| AtomicU32::new(0)).sync();
    if let Some(&v) = input.get(idx.get()) {
        bins[(v % 64) as usize].fetch_add(1, Ordering::Relaxed);
    }
    let bins = bins.sync().sync();
    let count = bins[thread::thread_idx_x() as usize % 64].load(Ordering::Relaxed);
    if let Some(o) = out.get_mut(idx) {
        *o = count;
    }
}

fn histogram_reference(input: &[u64]) -> Vec<u32> {
    (0..input.len())
        .map(|i| {
            let bin = ((i - block_of(i).start) % 64) as u64;
            block_of(i)
                .filter(|&j| input.get(j).is_some_and(|v| v % 64 == bin))
                .count() as u32
        })
        .collect()
}

/// Every block collective, one after another, mixed into one value: sum (u64), max (i32), min
/// (u64), the inclusive scan "last non-zero so far" (associative, not commutative), an
/// exclusive sum, count, all, any.
#[kernel]
pub fn block_collectives(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let v = value_of(input, idx.get());
    let small = v & 0xffff;
    let sum = block::sum(small);
    let max = block::max(v as i32);
    let min = block::min(v >> 7);
    let last_nonzero = block::inclusive_scan(v & 3, |a, b| if b != 0 { b } else { a });
    let offset = block::exclusive_sum(small);
    let count = block::count(v.is_multiple_of(3));
    let all = block::all(v != 7);
    let any = block::any(v.is_multiple_of(5));
    if let Some(o) = out.get_mut(idx) {
        *o = sum
            ^ (max as u32 as u64).rotate_left(16)
            ^ min.rotate_left(5)
            ^ last_nonzero << 60
            ^ offset.rotate_left(33)
            ^ u64::from(count) << 48
            ^ u64::from(all) << 58
            ^ u64::from(any) << 59;
    }
}

fn collectives_reference(input: &[u64]) -> Vec<u64> {
    (0..input.len())
        .map(|i| {
            let values: Vec<u64> = block_of(i).map(|j| value_of(input, j)).collect();
            let t = i - block_of(i).start;
            let sum: u64 = values.iter().map(|v| v & 0xffff).sum();
            let max = values.iter().map(|&v| v as i32).max().unwrap();
            let min = values.iter().map(|v| v >> 7).min().unwrap();
            let last_nonzero = values[..=t]
                .iter()
                .rev()
                .map(|v| v & 3)
                .find(|&x| x != 0)
                .unwrap_or(0);
            let offset: u64 = values[..t].iter().map(|v| v & 0xffff).sum();
            let count = values.iter().filter(|&&v| v.is_multiple_of(3)).count() as u64;
            let all = values.iter().all(|&v| v != 7);
            let any = values.iter().any(|&v| v.is_multiple_of(5));
            sum ^ (max as u32 as u64).rotate_left(16)
                ^ min.rotate_left(5)
                ^ last_nonzero << 60
                ^ offset.rotate_left(33)
                ^ count << 48
                ^ u64::from(all) << 58
                ^ u64::from(any) << 59
        })
        .collect()
}

/// The finite f32 a thread sums: its input's low bits scaled into [-1, 1).
fn float_of(input: &[u64], i: usize) -> f32 {
    (value_of(input, i) as u32 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
}

/// A float block sum: the same combination order on the GPU, the emulator and the reference.
#[kernel]
pub fn block_float_sum(input: &[u64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let total = block::sum(float_of(input, idx.get()));
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

/// Lanes `0..lanes` of `values` combined as a warp reduction does: lane `l` adds lane
/// `l + offset` for offsets 16, 8, 4, 2, 1, where that lane is below `lanes`.
fn warp_tree(values: &[f32], lanes: usize) -> f32 {
    let mut acc = values.to_vec();
    acc.resize(WARP, 0.0);
    let mut offset = WARP / 2;
    while offset > 0 {
        let before = acc.clone();
        for l in 0..WARP {
            if l + offset < lanes {
                acc[l] = before[l] + before[l + offset];
            }
        }
        offset /= 2;
    }
    acc[0]
}

fn float_sum_reference(input: &[u64]) -> Vec<f32> {
    (0..input.len())
        .map(|i| {
            let values: Vec<f32> = block_of(i).map(|j| float_of(input, j)).collect();
            let warps: Vec<f32> = values.chunks(WARP).map(|w| warp_tree(w, w.len())).collect();
            warp_tree(&warps, warps.len())
        })
        .collect()
}

/// A case of these kernels, launched in blocks of [`BLOCK`].
macro_rules! case {
    ($name:ident, $r:ty, $reference:ident) => {
        Box::new(KernelCase::<$r> {
            name: stringify!($name),
            check: Exact,
            reference: $reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<$r>|
             -> Result<(), Error> {
                $name::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [$r]| -> Result<(), KernelFailure> {
                $name::emulate(&config(input.len()), input, out)
            },
        }) as Box<dyn Case>
    };
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        case!(shared_phase_exchange, u64, phase_exchange_reference),
        case!(shared_per_warp_sums, u64, per_warp_sums_reference),
        case!(shared_tree_steps, u64, tree_steps_reference),
        case!(shared_warp_regions, u64, warp_regions_reference),
        case!(shared_tile_columns, u32, tile_columns_reference),
        case!(block_window_rmw, u64, window_rmw_reference),
        Box::new(KernelCase::<u64> {
            name: "shared_dynamic_exchange",
            check: Exact,
            reference: dynamic_exchange_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                shared_dynamic_exchange::launch(gpu, config(input.len()), input, out, DYNAMIC_LEN)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                shared_dynamic_exchange::emulate(&config(input.len()), input, out, DYNAMIC_LEN)
            },
        }),
        Box::new(KernelCase::<u64> {
            name: "shared_dynamic_opt_in",
            check: Exact,
            reference: dynamic_opt_in_reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u64>|
             -> Result<(), Error> {
                let cfg = config(input.len());
                shared_dynamic_exchange::launch(gpu, cfg, input, out, DYNAMIC_OPT_IN_LEN)
            },
            emulate: |_, input: &[u64], out: &mut [u64]| -> Result<(), KernelFailure> {
                let cfg = config(input.len());
                shared_dynamic_exchange::emulate(&cfg, input, out, DYNAMIC_OPT_IN_LEN)
            },
        }),
        case!(shared_atomic_histogram, u32, histogram_reference),
        case!(block_collectives, u64, collectives_reference),
        case!(block_float_sum, f32, float_sum_reference),
    ]
}
