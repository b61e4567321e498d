//! The CPU emulator (`oxide::emulate::run` and the generated `<kernel>::emulate`): grids, the
//! block barrier, failures and launch shapes.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use oxide::emulate::{self, FailureKind, KernelFailure, ThreadContext};
use oxide::host::Error;
use oxide::prelude::*;

fn shape(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

#[kernel]
pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let i = thread::index_1d();
    if let Some(out) = c.get_mut(ThreadIndex::linear()) {
        *out = a[i] + b[i];
    }
}

#[test]
fn vecadd_matches_a_loop() {
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.37).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * 7 % 1000) as f32 * -1.25).collect();
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let mut c = vec![f32::NAN; n];
    // 8 blocks of 128 threads: the last 24 threads find no element.
    let cfg = LaunchConfig::for_num_elems(n, 128).unwrap();
    vecadd::emulate(&cfg, &a, &b, &mut c).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&c), bits(&expected));
}

/// Every thread writes its linear index and its global (x, y).
#[kernel]
pub fn indices(mut linear: DisjointSlice<u32>, mut xy: DisjointSlice<(u32, u32)>) {
    let (x, y) = thread::index_2d();
    if let Some(out) = xy.get_mut(ThreadIndex::linear()) {
        *out = (x as u32, y as u32);
    }
    let idx = ThreadIndex::linear();
    let i = idx.get() as u32;
    if let Some(out) = linear.get_mut(idx) {
        *out = i;
    }
}

#[test]
fn grid_2d_covers_every_thread_once() {
    let (block, grid) = ((8, 4, 1), (3, 2, 1));
    let n = 8 * 4 * 3 * 2;
    let (mut linear, mut xy) = (vec![u32::MAX; n], vec![(u32::MAX, u32::MAX); n]);
    indices::emulate(&shape(grid, block), &mut linear, &mut xy).unwrap();
    assert_eq!(linear, (0..n as u32).collect::<Vec<_>>());
    // The same order as a plain loop: blocks row-major, then threads row-major.
    let mut expected = Vec::new();
    for by in 0..2 {
        for bx in 0..3 {
            for ty in 0..4 {
                for tx in 0..8 {
                    expected.push((bx * 8 + tx, by * 4 + ty));
                }
            }
        }
    }
    assert_eq!(xy, expected);
}

#[test]
fn run_gives_each_thread_its_context() {
    let (block, grid) = ((4, 3, 2), (2, 1, 3));
    let seen = Mutex::new(Vec::new());
    emulate::run("contexts", &shape(grid, block), || {
        let ctx = ThreadContext {
            thread_idx: [
                thread::thread_idx_x(),
                thread::thread_idx_y(),
                thread::thread_idx_z(),
            ],
            block_idx: [
                thread::block_idx_x(),
                thread::block_idx_y(),
                thread::block_idx_z(),
            ],
            block_dim: [
                thread::block_dim_x(),
                thread::block_dim_y(),
                thread::block_dim_z(),
            ],
            grid_dim: [
                thread::grid_dim_x(),
                thread::grid_dim_y(),
                thread::grid_dim_z(),
            ],
        };
        seen.lock()
            .unwrap()
            .push((ThreadIndex::linear().get(), ctx));
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by_key(|(i, _)| *i);
    assert_eq!(seen.len(), 24 * 6);
    for (n, (i, ctx)) in seen.into_iter().enumerate() {
        assert_eq!(i, n);
        assert_eq!((ctx.block_dim, ctx.grid_dim), ([4, 3, 2], [2, 1, 3]));
        let (t, b) = (n % 24, n / 24);
        assert_eq!(
            ctx.thread_idx,
            [t as u32 % 4, t as u32 / 4 % 3, t as u32 / 12]
        );
        assert_eq!(ctx.block_idx, [b as u32 % 2, 0, b as u32 / 2]);
    }
    // The calling thread's own context is untouched.
    assert_eq!(ThreadIndex::linear().get(), 0);
}

/// Each thread publishes a value in its block's scratch, waits, and reads its neighbour's; then
/// the block sums the scratch with a tree reduction, one barrier per step. Thread 0 of each
/// block publishes late, so without a real barrier its neighbour would read 0.
#[kernel]
pub fn exchange(
    scratch: &[AtomicU32],
    mut neighbour: DisjointSlice<u32>,
    mut sum: DisjointSlice<u32>,
) {
    let (tid, dim) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let base = thread::block_idx_x() as usize * dim;
    let mine = &scratch[base..base + dim];
    if tid == 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
    mine[tid].store(thread::index_1d() as u32 + 1, Ordering::Relaxed);
    thread::sync_threads();
    let next = mine[(tid + 1) % dim].load(Ordering::Relaxed);
    thread::sync_threads(); // everyone has read before the reduction overwrites
    let mut stride = dim / 2;
    while stride > 0 {
        if tid < stride {
            let v = mine[tid].load(Ordering::Relaxed) + mine[tid + stride].load(Ordering::Relaxed);
            mine[tid].store(v, Ordering::Relaxed);
        }
        thread::sync_threads();
        stride /= 2;
    }
    let total = mine[0].load(Ordering::Relaxed);
    if let Some(out) = neighbour.get_mut(ThreadIndex::linear()) {
        *out = next;
    }
    if let Some(out) = sum.get_mut(ThreadIndex::linear()) {
        *out = total;
    }
}

#[test]
fn sync_threads_is_a_block_barrier() {
    let (dim, blocks) = (64usize, 3usize);
    let n = dim * blocks;
    // An `&[AtomicU32]` argument is a `&mut [u32]` to the emulator (a `&mut DeviceBuffer<u32>`
    // to the launch): the kernel writes it.
    let mut scratch = vec![0u32; n];
    let (mut neighbour, mut sum) = (vec![0u32; n], vec![0u32; n]);
    let cfg = LaunchConfig::for_num_elems(n, dim as u32).unwrap();
    exchange::emulate(&cfg, &mut scratch, &mut neighbour, &mut sum).unwrap();
    assert!(
        scratch.iter().all(|&v| v != 0),
        "every thread stored into the scratch"
    );
    for i in 0..n {
        let (block, tid) = (i / dim, i % dim);
        let next = block * dim + (tid + 1) % dim;
        assert_eq!(neighbour[i], next as u32 + 1, "thread {i}");
        let block_sum: usize = (block * dim..(block + 1) * dim).map(|j| j + 1).sum();
        assert_eq!(sum[i], block_sum as u32, "thread {i}");
    }
}

/// Thread 3 of block 1 reads out of bounds while the rest of its block waits at the barrier.
#[kernel]
pub fn oob(data: &[u32], mut out: DisjointSlice<u32>) {
    let i = thread::index_1d();
    let offset = if thread::block_idx_x() == 1 && thread::thread_idx_x() == 3 {
        data.len()
    } else {
        0
    };
    let v = data[i + offset];
    thread::sync_threads();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = v + 1;
    }
}

#[test]
fn a_panicking_thread_fails_the_launch_without_hanging() {
    let data: Vec<u32> = (0..96).collect();
    let mut out = vec![0u32; 96];
    let cfg = LaunchConfig::for_num_elems(96, 32).unwrap();
    let e = oob::emulate(&cfg, &data, &mut out).unwrap_err();
    let KernelFailure {
        kernel: "oob",
        kind:
            FailureKind::Panicked {
                block: [1, 0, 0],
                thread: [3, 0, 0],
                ref message,
                ref location,
            },
    } = e
    else {
        panic!("{e:?}");
    };
    assert_eq!(
        message,
        "index out of bounds: the len is 96 but the index is 131"
    );
    let location = location.as_deref().unwrap();
    assert!(
        location.starts_with("device-std/oxide/tests/emulate.rs:"),
        "{location}"
    );
    assert_eq!((e.block(), e.thread()), (Some([1, 0, 0]), Some([3, 0, 0])));
    assert_eq!(
        e.to_string(),
        format!(
            "kernel `oob`: thread [3, 0, 0] of block [1, 0, 0] panicked at {location}: index out \
             of bounds: the len is 96 but the index is 131"
        )
    );
    // Block 0 ran, block 1 stopped at the barrier, block 2 never started.
    assert_eq!(out[..32], (1..33).collect::<Vec<_>>());
    assert!(out[32..].iter().all(|&v| v == 0));
    // On the GPU side of the API this is a `KernelFailed`.
    let e = Error::from(e);
    assert!(
        matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "oob"),
        "{e}"
    );
}

#[test]
fn the_lowest_panicking_thread_is_reported() {
    let e = emulate::run("many", &shape((2, 1, 1), (16, 2, 1)), || {
        if thread::block_idx_x() == 1 && thread::thread_idx_x() >= 5 {
            panic!("thread {}", thread::thread_idx_x());
        }
    })
    .unwrap_err();
    let FailureKind::Panicked { message, .. } = &e.kind else {
        panic!("{e:?}");
    };
    // No barrier: every thread of block 1 runs to its end, so all of them panic.
    assert_eq!(message, "thread 5");
    assert_eq!((e.block(), e.thread()), (Some([1, 0, 0]), Some([5, 0, 0])));
}

#[test]
fn threads_returning_before_a_barrier_are_reported() {
    let reached = AtomicUsize::new(0);
    let e = emulate::run("divergent", &shape((2, 1, 1), (8, 1, 1)), || {
        if thread::thread_idx_x() >= 6 {
            return;
        }
        thread::sync_threads();
        reached.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap_err();
    assert!(
        matches!(
            e.kind,
            FailureKind::BarrierDivergence {
                block: [0, 0, 0],
                thread: [0, 0, 0],
                returned: [6, 0, 0],
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("sync_threads()"), "{e}");
    assert_eq!(reached.into_inner(), 0);
}

#[test]
fn an_emulated_thread_cannot_change_its_context() {
    let e = emulate::run("forger", &shape((1, 1, 1), (2, 1, 1)), || {
        emulate::with_thread_context(ThreadContext::SINGLE, || {});
    })
    .unwrap_err();
    let FailureKind::Panicked { message, .. } = &e.kind else {
        panic!("{e:?}");
    };
    assert!(message.contains("cannot change its indices"), "{message}");
}

#[test]
fn bad_launch_shapes_are_errors() {
    let ran = AtomicUsize::new(0);
    for (grid, block) in [
        ((1, 1, 1), (0, 1, 1)),
        ((1, 1, 1), (1025, 1, 1)),
        ((1, 1, 1), (32, 32, 2)),
        ((1, 1, 1), (1, 1, 65)),
        ((0, 1, 1), (32, 1, 1)),
        ((1, 1, 0), (32, 1, 1)),
    ] {
        let e = emulate::run("shape", &shape(grid, block), || {
            ran.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap_err();
        assert!(
            matches!(e.kind, FailureKind::LaunchShape(_)),
            "{grid:?} {block:?}: {e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("kernel `shape`: invalid launch shape: "),
            "{e}"
        );
        assert_eq!((e.block(), e.thread()), (None, None));
        assert!(matches!(Error::from(e), Error::LaunchShape(_)));
    }
    assert_eq!(ran.into_inner(), 0);
    // Through a generated emulator too.
    let mut c = [0.0f32; 4];
    let e = vecadd::emulate(
        &shape((1, 1, 1), (2048, 1, 1)),
        &[0.0; 4],
        &[0.0; 4],
        &mut c,
    )
    .unwrap_err();
    assert_eq!(e.kernel, "vecadd");
    assert!(matches!(e.kind, FailureKind::LaunchShape(_)), "{e:?}");
}

/// Issue 7: `shared_mem_bytes: u32::MAX` used to pass; more than the 227 KiB a launch may ask
/// for on any GPU is refused before anything runs, as the GPU launch refuses it.
#[test]
fn too_much_dynamic_shared_memory_is_an_error() {
    let mut c = [0.0f32; 4];
    for bytes in [227 * 1024 + 1, u32::MAX] {
        let cfg = LaunchConfig {
            shared_mem_bytes: bytes,
            ..shape((1, 1, 1), (4, 1, 1))
        };
        let e = vecadd::emulate(&cfg, &[1.0; 4], &[1.0; 4], &mut c).unwrap_err();
        assert!(
            matches!(e.kind, FailureKind::SharedMemory { requested, limit: 232448 } if requested == bytes),
            "{e:?}"
        );
        assert!(matches!(Error::from(e), Error::SharedMemory { .. }));
        assert_eq!(c, [0.0; 4], "nothing ran");
    }
    let cfg = LaunchConfig {
        shared_mem_bytes: 227 * 1024,
        ..shape((1, 1, 1), (4, 1, 1))
    };
    vecadd::emulate(&cfg, &[1.0; 4], &[1.0; 4], &mut c).unwrap();
    assert_eq!(c, [2.0; 4]);
}

#[test]
fn a_full_block_of_1024_threads() {
    let n = 3000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut c = vec![0.0f32; n];
    let cfg = LaunchConfig::for_num_elems(n, 1024).unwrap();
    vecadd::emulate(&cfg, &a, &a, &mut c).unwrap();
    assert!(c.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));
}

/// Each thread writes its warp's sum, gathered by index shuffles over the lanes the warp has
/// (a block of 40 has a second warp of 8 lanes).
#[kernel]
pub fn warp_sums(values: &[i32], mut sums: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let first_lane = thread::thread_idx_x() / 32 * 32;
    let lanes = (thread::block_dim_x() - first_lane).min(32);
    let lane = oxide::warp::lane_id();
    let value = values.get(i).copied().unwrap_or(0);
    let mut sum = value;
    for k in 1..lanes {
        sum += unsafe { oxide::warp::shfl_sync_idx_i32(u32::MAX, value, (lane + k) % lanes, 0x1f) };
    }
    if let Some(out) = sums.get_mut(idx) {
        *out = sum;
    }
}

#[test]
fn warp_sums_through_the_generated_emulator() {
    for block in [64u32, 40] {
        let n = 2 * block as usize;
        let values: Vec<i32> = (0..n as i32).map(|v| v * v - 50).collect();
        let mut sums = vec![0; n];
        warp_sums::emulate(&shape((2, 1, 1), (block, 1, 1)), &values, &mut sums).unwrap();
        let expected: Vec<i32> = (0..n)
            .map(|i| {
                let (b, t) = (i / block as usize, i % block as usize);
                let first = b * block as usize + t / 32 * 32;
                let last = (first + 32).min((b + 1) * block as usize);
                values[first..last].iter().sum()
            })
            .collect();
        assert_eq!(sums, expected, "blocks of {block}");
    }
}

/// Block-shared memory: each block of up to 256 threads reverses its values, threads past the
/// end contributing zeros.
static TILE: SharedArray<f32, 256> = SharedArray::new();

#[kernel]
pub fn reverse_blocks(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let (t, n) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let tile = TILE.as_mut_ptr();
    // SAFETY: thread `t` writes element `t` (< n <= 256) of its block's copy; after the barrier
    // it reads element `n - 1 - t`, which its block wrote before the barrier.
    unsafe { tile.add(t).write(values.get(i).copied().unwrap_or(0.0)) };
    thread::sync_threads();
    let reversed = unsafe { tile.add(n - 1 - t).read() };
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

/// The same, but threads past the end write nothing: the last block reads shared memory that
/// no thread wrote, which the emulator fills with garbage (NaN for floats).
#[kernel]
pub fn reverse_blocks_reading_unwritten(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let (t, n) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let tile = TILE.as_mut_ptr();
    if let Some(&v) = values.get(i) {
        // SAFETY: as in `reverse_blocks`, but see the kernel's doc: the read below breaks the
        // contract in the last block, on purpose.
        unsafe { tile.add(t).write(v) };
    }
    thread::sync_threads();
    let reversed = unsafe { tile.add(n - 1 - t).read() };
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

#[test]
fn blocks_reverse_through_shared_memory() {
    let (n, block) = (1000, 128);
    let values: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let cfg = LaunchConfig::for_num_elems(n, block).unwrap();
    let expected: Vec<f32> = (0..n)
        .map(|i| {
            let b = block as usize;
            let j = i / b * b + (b - 1 - i % b);
            values.get(j).copied().unwrap_or(0.0)
        })
        .collect();
    let mut out = vec![f32::NAN; n];
    reverse_blocks::emulate(&cfg, &values, &mut out).unwrap();
    assert_eq!(out, expected);

    // Reading what the block did not write gives garbage, not zeros or an earlier block's
    // values: the last block (threads 896..1024, of which 104 exist) reads 24 unwritten
    // elements into its first 24 outputs.
    let mut out = vec![0.0f32; n];
    reverse_blocks_reading_unwritten::emulate(&cfg, &values, &mut out).unwrap();
    assert!(
        out[896..920].iter().all(|v| v.is_nan()),
        "{:?}",
        &out[896..920]
    );
    assert_eq!(out[..896], expected[..896]);
    assert_eq!(out[920..], expected[920..]);
}

/// Every thread adds its value to one of four float sums and to one `f64` total (`&[AtomicF32]`
/// and `&[AtomicF64]` arguments, passed as plain float buffers), and writes the lanes of its
/// warp holding its value modulo 3 (`warp::match_any`).
#[kernel]
pub fn float_sums(
    values: &[f32],
    sums: &[oxide::atomic::AtomicF32],
    total: &[oxide::atomic::AtomicF64],
    mut same: DisjointSlice<u32>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let v = values.get(i).copied().unwrap_or(0.0);
    sums[i % 4].fetch_add(v, Ordering::Relaxed);
    total[0].fetch_add(f64::from(v), Ordering::Relaxed);
    let lanes = oxide::warp::match_any(v as u32 % 3);
    if let Some(o) = same.get_mut(idx) {
        *o = lanes;
    }
}

#[test]
fn float_atomics_sum_every_thread_and_match_groups_lanes() {
    let n = 1000;
    // Small integers: every order of the additions gives the same sums.
    let values: Vec<f32> = (0..n).map(|i| (i % 10) as f32).collect();
    let (mut sums, mut total, mut same) = (vec![0.0f32; 4], vec![0.5f64], vec![0u32; n]);
    let cfg = LaunchConfig::for_num_elems(n, 64).unwrap();
    float_sums::emulate(&cfg, &values, &mut sums, &mut total, &mut same).unwrap();
    for (k, &sum) in sums.iter().enumerate() {
        let expected: f32 = values.iter().skip(k).step_by(4).sum();
        assert_eq!(sum, expected, "sum {k}");
    }
    assert_eq!(
        total[0],
        0.5 + values.iter().map(|&v| f64::from(v)).sum::<f64>()
    );
    for (i, &lanes) in same.iter().enumerate() {
        let warp = i / 32 * 32;
        let expected = (warp..(warp + 32).min(1024))
            .filter(|&j| values.get(j).copied().unwrap_or(0.0) as u32 % 3 == values[i] as u32 % 3)
            .fold(0u32, |m, j| m | 1 << (j - warp));
        assert_eq!(lanes, expected, "thread {i}");
    }
}

static RACY: SharedArray<u32, 64> = SharedArray::new();

/// `unsafe` shared memory used four ways, by `how`: 0 correctly (own slot, barrier, the
/// neighbour's), 1 two threads writing one slot, 2 reading the neighbour's slot before the
/// barrier, 3 reading a slot nobody wrote.
#[kernel]
pub fn shared_races(how: u32, mut out: DisjointSlice<u32>) {
    let t = thread::thread_idx_x() as usize;
    // SAFETY: the point of the test: the emulator must find what is wrong in cases 1 to 3.
    let value = unsafe {
        match how {
            1 => RACY.write(t / 2, t as u32),
            3 => {}
            _ => RACY.write(t, t as u32),
        }
        if how == 2 {
            let early = RACY.read((t + 1) % 32);
            thread::sync_threads();
            early
        } else {
            thread::sync_threads();
            RACY.read(if how == 3 { 40 } else { (t + 1) % 32 })
        }
    };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = value;
    }
}

/// Every thread writes element `i / 2` through the unchecked accessor: pairs of threads race.
#[kernel]
pub fn unchecked_writes(halve: bool, mut out: DisjointSlice<u32>) {
    let i = thread::index_1d();
    let target = if halve { i / 2 } else { i };
    // SAFETY: the point of the test (with `halve`, two threads write one element).
    unsafe { *out.get_unchecked_mut(target) = i as u32 };
}

#[test]
fn the_emulator_finds_races_in_unsafe_code() {
    let cfg = LaunchConfig::for_num_elems(64, 32).unwrap();
    let mut out = vec![0u32; 64];
    shared_races::emulate(&cfg, 0, &mut out).unwrap();
    assert_eq!(
        out[..32],
        (0..32).map(|t| (t + 1) % 32).collect::<Vec<u32>>()[..]
    );
    for (how, expected) in [
        (1, "writes slot 0 of a block-shared array"),
        (2, "reads slot"),
        (3, "that no thread of the block wrote"),
    ] {
        let e = shared_races::emulate(&cfg, how, &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "case {how}: {e}");
        assert!(e.contains("emulate.rs:"), "case {how} names the line: {e}");
        // Case 2's read comes before or after its neighbour's write, as the OS threads run:
        // either way a failure (a race, or a slot nobody wrote yet).
        if how == 1 {
            assert!(
                e.contains("data race in block [0, 0, 0]"),
                "case {how}: {e}"
            );
        }
    }
    unchecked_writes::emulate(&cfg, false, &mut out).unwrap();
    assert_eq!(out, (0..64).collect::<Vec<u32>>());
    let e = unchecked_writes::emulate(&cfg, true, &mut out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("data race") && e.contains("element"), "{e}");
}

/// Thread 0 waits at plain barriers while the others end the tile's phases (the backend rejects
/// this kernel; the emulator, which runs it as plain Rust, must not let its phases come apart:
/// it pairs barriers by what they synchronise, docs/safety.md).
#[kernel]
pub fn split_phases(tile: DynShared<u64>, mut out: DisjointSlice<u64>) {
    let read = tile.init(|_| 0).sync();
    let mut seen = 0;
    if thread::thread_idx_x() == 0 {
        thread::sync_threads();
        seen = read[1];
        thread::sync_threads();
    } else {
        let mut write = read.sync();
        if let Some((_, v)) = write.own_mut(0) {
            *v = 5;
        }
        let _ = write.sync();
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = seen;
    }
}

#[test]
fn a_plain_barrier_against_a_phase_end_fails_the_launch() {
    let cfg = LaunchConfig::for_num_elems(32, 32).unwrap();
    let mut out = vec![0u64; 32];
    let e = split_phases::emulate(&cfg, 32, &mut out).unwrap_err();
    assert!(matches!(e.kind, FailureKind::BarrierMismatch { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("emulate.rs:") && text.contains("the same barriers"),
        "{text}"
    );
}

/// Even warps sum their values, odd warps do not take part (a warp-uniform branch).
#[kernel]
pub fn even_warps_sum(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let v = input.get(idx.get()).copied().unwrap_or(0);
    let mut total = u32::MAX;
    if oxide::warp::warp_in_block().is_multiple_of(2) {
        total = oxide::warp::sum(v);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

#[test]
fn warp_collectives_under_a_warp_uniform_branch() {
    let input: Vec<u32> = (0..256).collect();
    let mut out = vec![0u32; 256];
    even_warps_sum::emulate(
        &LaunchConfig::for_num_elems(256, 128).unwrap(),
        &input,
        &mut out,
    )
    .unwrap();
    for (i, &o) in out.iter().enumerate() {
        let warp_in_block = (i % 128) / 32;
        let first = i / 32 * 32;
        let expected = if warp_in_block.is_multiple_of(2) {
            (first..first + 32).map(|j| j as u32).sum()
        } else {
            u32::MAX
        };
        assert_eq!(o, expected, "thread {i}");
    }
}

std::thread_local! {
    /// A `ThreadIndex` kept past its thread (the backend refuses thread-locals on the GPU).
    static KEPT: std::cell::RefCell<Option<ThreadIndex>> = const { std::cell::RefCell::new(None) };
}

/// Each thread keeps its index in a thread-local, and uses the one a previous GPU thread of the
/// same OS thread kept: on the emulator, whose OS threads run one block's threads after
/// another's, that is another thread's element (found by review).
#[kernel]
pub fn keeps_its_index(mut out: DisjointSlice<u32>) {
    let own = ThreadIndex::linear();
    if let Some(stale) = KEPT.with(|k| k.borrow_mut().replace(own))
        && let Some(o) = out.get_mut(stale)
    {
        *o += 1;
    }
}

#[test]
fn a_thread_index_kept_in_a_thread_local_is_refused() {
    let cfg = LaunchConfig::for_num_elems(256, 32).unwrap();
    let mut out = vec![0u32; 256];
    let e = keeps_its_index::emulate(&cfg, &mut out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("belongs to the thread that made it"), "{e}");
}
