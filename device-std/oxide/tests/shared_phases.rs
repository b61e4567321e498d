//! Safe block-shared memory (`Shared<A>` kernel parameters in write and read phases) and the
//! block collectives (`oxide::block`), on the CPU emulator against plain Rust.

use std::sync::atomic::{AtomicU32, Ordering};

use oxide::block;
use oxide::prelude::*;

fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

/// Each block's values reversed, through a tile that thread `t` writes at slot `t`.
#[kernel]
pub fn reverse_blocks(values: &[f32], mut out: DisjointSlice<f32>, tile: Shared<[f32; 256]>) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(-1.0);
    let tile = tile.init(|_| mine).sync();
    let (t, n) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let reversed = tile[n - 1 - t];
    if let Some(o) = out.get_mut(idx) {
        *o = reversed;
    }
}

#[test]
fn a_tile_written_then_read_reverses_each_block() {
    let n = 4 * 256;
    let values: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut out = vec![0.0f32; n];
    reverse_blocks::emulate(&cfg((4, 1, 1), (256, 1, 1)), &values, &mut out).unwrap();
    for (i, got) in out.iter().enumerate() {
        let (block, t) = (i / 256, i % 256);
        assert_eq!(*got, values[block * 256 + 255 - t], "element {i}");
    }
}

/// Several phases of one array: each thread owns slots `t` and `t + n` (`N = 2n`), and in every
/// round adds its neighbours' values from the last read phase to its own slots.
#[kernel]
pub fn smooth_rounds(
    values: &[u32],
    rounds: u32,
    mut out: DisjointSlice<u32>,
    ring: Shared<[u32; 128]>,
) {
    let idx = ThreadIndex::linear();
    let base = idx.get() * 2;
    let mut ring = ring.init(|slot| values[base - 2 * thread::thread_idx_x() as usize + slot]);
    for _ in 0..rounds {
        let read = ring.sync();
        let n = read.len();
        let mut next = [0u32; 2];
        for (k, v) in next.iter_mut().enumerate() {
            let s = thread::thread_idx_x() as usize + k * thread::block_dim_x() as usize;
            *v = read[(s + n - 1) % n]
                .wrapping_add(read[s])
                .wrapping_add(read[(s + 1) % n]);
        }
        ring = read.sync();
        for (k, v) in next.into_iter().enumerate() {
            if let Some(slot) = ring.own_mut(k) {
                *slot = v;
            }
        }
    }
    let ring = ring.sync();
    let t = thread::thread_idx_x() as usize;
    let total = ring[t].wrapping_add(ring[t + 64]);
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

#[test]
fn phases_alternate_over_many_rounds() {
    let blocks = 3;
    let values: Vec<u32> = (0..blocks * 128)
        .map(|i| (i * 2654435761u32 as usize) as u32)
        .collect();
    let mut out = vec![0u32; blocks * 64];
    let rounds = 5;
    smooth_rounds::emulate(
        &cfg((blocks as u32, 1, 1), (64, 1, 1)),
        &values,
        rounds,
        &mut out,
    )
    .unwrap();
    for b in 0..blocks {
        let mut ring: Vec<u32> = values[b * 128..(b + 1) * 128].to_vec();
        for _ in 0..rounds {
            ring = (0..128)
                .map(|s| {
                    ring[(s + 127) % 128]
                        .wrapping_add(ring[s])
                        .wrapping_add(ring[(s + 1) % 128])
                })
                .collect();
        }
        for t in 0..64 {
            assert_eq!(
                out[b * 64 + t],
                ring[t].wrapping_add(ring[t + 64]),
                "block {b} t {t}"
            );
        }
    }
}

/// A 32 x 32 tile padded to 33 columns, loaded by a 32 x 8 block (four rows per thread), read
/// transposed: thread `(x, y)` reads column `x` of rows `y`, `y + 8`... as a row.
#[kernel]
pub fn tile_transposed(input: &[f32], mut out: DisjointSlice<f32>, tile: Shared<[[f32; 33]; 32]>) {
    let tile = tile.init(|(row, col)| if col < 32 { input[row * 32 + col] } else { 0.0 });
    let tile = tile.sync();
    let (x, y) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
    );
    let mut acc = 0.0;
    for j in 0..4 {
        // Element (x, y + 8j) of the transposed tile.
        acc = acc * 2.0 + tile[x][y + 8 * j];
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = acc;
    }
}

#[test]
fn a_two_dimensional_tile_is_owned_by_rows_and_columns() {
    let input: Vec<f32> = (0..32 * 32).map(|i| (i % 61) as f32).collect();
    let mut out = vec![f32::NAN; 32 * 8];
    tile_transposed::emulate(&cfg((1, 1, 1), (32, 8, 1)), &input, &mut out).unwrap();
    for y in 0..8 {
        for x in 0..32 {
            let mut acc = 0.0f32;
            for j in 0..4 {
                acc = acc * 2.0 + input[x * 32 + y + 8 * j];
            }
            assert_eq!(out[y * 32 + x], acc, "thread ({x}, {y})");
        }
    }
}

/// Per-block histograms of bytes with shared atomics, each thread then writing one bin.
#[kernel]
pub fn block_histograms(
    bytes: &[u8],
    per_thread: u32,
    mut bins: DisjointSlice<u32>,
    hist: Shared<[AtomicU32; 256]>,
) {
    let hist = hist.init(|_| AtomicU32::new(0)).sync();
    let idx = ThreadIndex::linear();
    let start = idx.get() * per_thread as usize;
    for &b in bytes.iter().skip(start).take(per_thread as usize) {
        hist[b as usize].fetch_add(1, Ordering::Relaxed);
    }
    let hist = hist.sync().sync();
    let mine = hist[thread::thread_idx_x() as usize].load(Ordering::Relaxed);
    if let Some(o) = bins.get_mut(idx) {
        *o = mine;
    }
}

#[test]
fn shared_atomics_count_every_byte() {
    let (blocks, per_thread) = (3usize, 5usize);
    let bytes: Vec<u8> = (0..blocks * 256 * per_thread)
        .map(|i| ((i * 7919) % 251) as u8)
        .collect();
    let mut bins = vec![0u32; blocks * 256];
    block_histograms::emulate(
        &cfg((blocks as u32, 1, 1), (256, 1, 1)),
        &bytes,
        per_thread as u32,
        &mut bins,
    )
    .unwrap();
    for b in 0..blocks {
        let mut expected = [0u32; 256];
        for &x in &bytes[b * 256 * per_thread..(b + 1) * 256 * per_thread] {
            expected[x as usize] += 1;
        }
        assert_eq!(&bins[b * 256..(b + 1) * 256], &expected[..], "block {b}");
    }
}

/// Every block collective, each thread writing what it got: sum, max, min, an inclusive scan,
/// exclusive sum, count, all, any, one after another (the scratch is reused between them).
#[kernel]
pub fn collectives(values: &[i64], mut out: DisjointSlice<[i64; 8]>) {
    let idx = ThreadIndex::linear();
    let v = values.get(idx.get()).copied().unwrap_or(0);
    let sum = block::sum(v);
    let max = block::max(v);
    let min = block::min(v);
    // "The last non-zero value so far": associative, not commutative, so the order shows.
    let scan = block::inclusive_scan(v % 4, |a, b| if b != 0 { b } else { a });
    let offset = block::exclusive_sum(v);
    let count = block::count(v % 3 == 0);
    let all = block::all(v > -1000);
    let any = block::any(v == 7);
    if let Some(o) = out.get_mut(idx) {
        *o = [
            sum,
            max,
            min,
            scan,
            offset,
            count.into(),
            all.into(),
            any.into(),
        ];
    }
}

fn check_collectives(block: u32, blocks: u32) {
    let n = (block * blocks) as usize;
    let values: Vec<i64> = (0..n).map(|i| ((i * 37 + 11) % 101) as i64 - 50).collect();
    let mut out = vec![[0i64; 8]; n];
    collectives::emulate(&cfg((blocks, 1, 1), (block, 1, 1)), &values, &mut out).unwrap();
    for (b, chunk) in values.chunks(block as usize).enumerate() {
        let mut scan = 0i64;
        let mut offset = 0i64;
        for (t, &v) in chunk.iter().enumerate() {
            scan = if t == 0 || v % 4 != 0 { v % 4 } else { scan };
            let expected = [
                chunk.iter().sum(),
                *chunk.iter().max().unwrap(),
                *chunk.iter().min().unwrap(),
                scan,
                offset,
                chunk.iter().filter(|&&x| x % 3 == 0).count() as i64,
                1,
                i64::from(chunk.contains(&7)),
            ];
            assert_eq!(
                out[b * block as usize + t],
                expected,
                "block {b} thread {t} of {block}"
            );
            offset += v;
        }
    }
}

#[test]
fn block_collectives_match_plain_rust() {
    check_collectives(256, 2);
    // Partial last warps, one warp, and the largest block.
    check_collectives(100, 3);
    check_collectives(32, 2);
    check_collectives(1, 1);
    check_collectives(1024, 1);
}

/// A float block sum combines in the order the GPU does, so the emulator's result is one the
/// GPU reproduces; here it is checked against the same tree computed on the host.
#[kernel]
pub fn float_sum(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let total = block::sum(values[idx.get()]);
    if let Some(o) = out.get_mut(idx) {
        *o = total;
    }
}

#[test]
fn float_block_sums_follow_the_tree() {
    let values: Vec<f32> = (0..128).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let mut out = vec![0.0f32; 128];
    float_sum::emulate(&cfg((1, 1, 1), (128, 1, 1)), &values, &mut out).unwrap();
    let tree = |v: &[f32]| {
        let mut v = v.to_vec();
        let mut half = v.len() / 2;
        while half > 0 {
            for l in 0..half {
                v[l] += v[l + half];
            }
            half /= 2;
        }
        v[0]
    };
    let warps: Vec<f32> = values.chunks(32).map(tree).collect();
    let mut totals = warps.clone();
    // Four warp totals in lanes 0..4, combined by the same shuffle tree (offsets 16..1).
    totals.resize(32, 0.0);
    let expected = {
        let mut acc = totals.clone();
        let mut offset = 16;
        while offset > 0 {
            for l in 0..32 {
                if l + offset < 4 {
                    acc[l] += acc[l + offset];
                }
            }
            offset /= 2;
        }
        acc[0]
    };
    assert!(
        out.iter().all(|&x| x.to_bits() == expected.to_bits()),
        "{out:?} vs {expected}"
    );
}

/// Dynamic shared memory: each block reverses its values through a `DynShared<u32>` whose
/// length the launch gives (one slot per thread), and reports the length it saw.
#[kernel]
pub fn dynamic_reverse(values: &[u32], mut out: DisjointSlice<u32>, tile: DynShared<u32>) {
    let idx = ThreadIndex::linear();
    let mine = values.get(idx.get()).copied().unwrap_or(0);
    let len = tile.len() as u32;
    let tile = tile.init(|_| mine).sync();
    let (t, n) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let reversed = tile[n - 1 - t];
    if let Some(o) = out.get_mut(idx) {
        *o = reversed ^ (len << 24);
    }
}

#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let values: Vec<u32> = (0..256).collect();
    let mut out = vec![0u32; 256];
    let cfg = LaunchConfig::for_num_elems(256, 64).unwrap();
    dynamic_reverse::emulate(&cfg, &values, &mut out, 64).unwrap();
    for (i, &o) in out.iter().enumerate() {
        let block = i / 64 * 64;
        assert_eq!(
            o,
            (block + 63 - (i - block)) as u32 ^ (64 << 24),
            "thread {i}"
        );
    }
    // Too much for a launch: refused before anything runs.
    let e = dynamic_reverse::emulate(&cfg, &values, &mut out, 1 << 20).unwrap_err();
    assert!(
        matches!(e.kind, oxide::emulate::FailureKind::SharedMemory { .. }),
        "{e}"
    );
}

/// `block::broadcast` from the last thread and from lane 1 of warp 1, in 2-D blocks of 80
/// threads (a partial last warp).
#[kernel]
pub fn broadcasts(values: &[u32], mut out: DisjointSlice<[u32; 2]>) {
    let idx = ThreadIndex::linear();
    let v = values.get(idx.get()).copied().unwrap_or(0);
    let n = thread::block_dim_x() * thread::block_dim_y();
    let last = block::broadcast(v, n - 1);
    let lane_1_of_warp_1 = block::broadcast(v, 33);
    if let Some(o) = out.get_mut(idx) {
        *o = [last, lane_1_of_warp_1];
    }
}

#[test]
fn broadcast_sends_one_threads_value_to_its_block() {
    let values: Vec<u32> = (0..3 * 80).map(|i| i * 7 + 1).collect();
    let mut out = vec![[0u32; 2]; values.len()];
    broadcasts::emulate(&cfg((3, 1, 1), (16, 5, 1)), &values, &mut out).unwrap();
    for (t, o) in out.iter().enumerate() {
        let block = &values[t / 80 * 80..][..80];
        assert_eq!(*o, [block[79], block[33]], "thread {t}");
    }
    // From a thread the block does not have: the emulated block fails (a trap on the GPU).
    let mut small = vec![[0u32; 2]; 32];
    let e =
        broadcasts::emulate(&cfg((1, 1, 1), (32, 1, 1)), &values[..32], &mut small).unwrap_err();
    assert!(e.to_string().contains("block::broadcast"), "{e}");
}
