//! The output shapes of `oxide::outputs` through `#[kernel]`'s emulator: chunks, rows per
//! thread, rows per warp, tiles per block, each element written by its one owner.

use oxide::host::Rows;
use oxide::prelude::*;
use oxide::warp;

fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

#[kernel]
pub fn chunked_copy(x: &[u32], mut y: DisjointChunks<u32, 4>) {
    let idx = ThreadIndex::linear();
    let mut chunks = y.grid_stride(&idx);
    for (first, out) in &mut chunks {
        for (k, o) in out.iter_mut().enumerate() {
            *o = x[first + k] + 1;
        }
    }
    if let Some((first, tail)) = chunks.into_remainder() {
        for (k, o) in tail.iter_mut().enumerate() {
            *o = x[first + k] + 1;
        }
    }
}

#[test]
fn chunks_cover_the_slice() {
    for n in [1, 4, 1003, 5000] {
        let x: Vec<u32> = (0..n as u32).collect();
        let mut y = vec![0u32; n];
        chunked_copy::emulate(&cfg((2, 1, 1), (64, 1, 1)), &x, &mut y).unwrap();
        assert!(
            y.iter().enumerate().all(|(i, &v)| v == i as u32 + 1),
            "n = {n}"
        );
    }
}

/// Each thread of a 2-D grid writes its (row, col).
#[kernel]
pub fn positions(mut out: DisjointRows<u32>) {
    if let Some(((row, col), o)) = out.at_thread() {
        *o = (row * 1000 + col) as u32;
    }
}

#[test]
fn rows_per_thread_follow_the_grid() {
    let (rows, width) = (30, 50);
    let mut out = vec![u32::MAX; rows * width];
    positions::emulate(
        &cfg((4, 2, 1), (16, 16, 1)),
        Rows::new(&mut out[..], width).unwrap(),
    )
    .unwrap();
    assert!(
        out.iter()
            .enumerate()
            .all(|(i, &v)| v == ((i / width) * 1000 + i % width) as u32)
    );
    assert!(
        Rows::new(&mut out[..], 7).is_err(),
        "7 does not divide 1500"
    );
}

#[test]
fn padded_rows_leave_their_padding_alone() {
    // Rows of 50 elements, 64 apart (CUDA's pitched memory): the padding is nobody's.
    let (rows, width, pitch) = (30, 50, 64);
    let mut out = vec![u32::MAX; rows * pitch];
    positions::emulate(
        &cfg((4, 2, 1), (16, 16, 1)),
        Rows::with_pitch(&mut out[..], width, pitch).unwrap(),
    )
    .unwrap();
    for (i, &v) in out.iter().enumerate() {
        let (row, col) = (i / pitch, i % pitch);
        let expected = if col < width {
            (row * 1000 + col) as u32
        } else {
            u32::MAX
        };
        assert_eq!(v, expected, "({row}, {col})");
    }
    assert!(
        Rows::with_pitch(&mut out[..], 65, 64).is_err(),
        "wider than the pitch"
    );
}

/// A row softmax, one warp per row: warp maximum, warp sum of the exponentials, each lane
/// writing its columns.
#[kernel]
pub fn softmax(input: &[f32], mut out: WarpRows<f32>) {
    let width = out.width();
    let mut row = out.row_mut();
    let r = row.as_ref().map(|r| r.row());
    let x = |col: usize| r.and_then(|r| input.get(r * width + col)).copied();
    let lane = warp::lane_id() as usize;
    let (mut max, mut col) = (f32::NEG_INFINITY, lane);
    while col < width {
        max = max.max(x(col).unwrap_or(f32::NEG_INFINITY));
        col += 32;
    }
    let max = warp::max(max);
    let (mut sum, mut col) = (0.0f32, lane);
    while col < width {
        sum += x(col).map_or(0.0, |v| (v - max).exp());
        col += 32;
    }
    let sum = warp::sum(sum);
    if let Some(row) = &mut row {
        row.for_each_own(|col, o| *o = x(col).map_or(0.0, |v| (v - max).exp() / sum));
    }
}

#[test]
fn warp_rows_compute_a_softmax() {
    let (rows, width) = (10, 100);
    let input: Vec<f32> = (0..rows * width)
        .map(|i| ((i * 37) % 101) as f32 * 0.05)
        .collect();
    let mut out = vec![f32::NAN; rows * width];
    // 3 blocks of 4 warps: 12 warps for 10 rows.
    softmax::emulate(
        &cfg((3, 1, 1), (128, 1, 1)),
        &input,
        Rows::new(&mut out[..], width).unwrap(),
    )
    .unwrap();
    for r in 0..rows {
        let row = &input[r * width..(r + 1) * width];
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = row.iter().map(|v| (v - max).exp()).sum();
        for c in 0..width {
            let expected = (row[c] - max).exp() / sum;
            let got = out[r * width + c];
            assert!(
                (got - expected).abs() <= 1e-6,
                "({r}, {c}): {got} vs {expected}"
            );
        }
    }
}

/// A transpose by 32 x 32 tiles through a padded shared tile: the block owning output tile
/// (y, x) reads input tile (x, y).
#[kernel]
pub fn transpose(input: &[f32], mut out: BlockTiles<f32, 32, 32>, tile: Shared<[[f32; 33]; 32]>) {
    let (in_rows, in_cols) = (out.width(), out.rows());
    let (bx, by) = (
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
    );
    let tile = tile
        .init(|(r, c)| {
            let (row, col) = (bx * 32 + r, by * 32 + c);
            if c < 32 && row < in_rows && col < in_cols {
                input[row * in_cols + col]
            } else {
                0.0
            }
        })
        .sync();
    if let Some(mut mine) = out.tile_mut() {
        let origin = mine.origin();
        for i in 0..4 {
            if let Some(((row, col), o)) = mine.own_mut((i, 0)) {
                *o = tile[col - origin.1][row - origin.0];
            }
        }
    }
}

#[test]
fn block_tiles_transpose() {
    let (rows, cols) = (70, 45);
    let input: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let mut out = vec![f32::NAN; rows * cols];
    // The output is 45 x 70: tiles of 32 x 32, 3 across, 2 down.
    transpose::emulate(
        &cfg((3, 2, 1), (32, 8, 1)),
        &input,
        Rows::new(&mut out[..], rows).unwrap(),
    )
    .unwrap();
    for r in 0..cols {
        for c in 0..rows {
            assert_eq!(out[r * rows + c], input[c * cols + r], "({r}, {c})");
        }
    }
}

/// A block-shape contract: the emulator, like the launcher, refuses any other block.
#[kernel(block = "32x8")]
pub fn fixed_block(mut out: DisjointSlice<u32>) {
    let n = thread::block_dim_x() * thread::block_dim_y();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = n;
    }
}

#[test]
fn block_contracts_are_checked_before_running() {
    let mut out = vec![0u32; 512];
    fixed_block::emulate(&cfg((2, 1, 1), (32, 8, 1)), &mut out).unwrap();
    assert!(out.iter().all(|&n| n == 256));
    let e = fixed_block::emulate(&cfg((2, 1, 1), (256, 1, 1)), &mut out).unwrap_err();
    assert!(
        matches!(e.kind, oxide::emulate::FailureKind::LaunchShape(_)),
        "{e}"
    );
    assert!(e.to_string().contains("block = \"32x8x1\""), "{e}");
}

/// A bounded block and an occupancy hint: the emulator, like the launcher, refuses a block of
/// more threads; `sm` is about the device, which the emulator does not have.
#[kernel(max_threads = 128, min_blocks_per_sm = 4, sm = 80)]
pub fn bounded_block(mut out: DisjointSlice<u32>) {
    let n = thread::block_dim_x() * thread::block_dim_y();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = n;
    }
}

#[test]
fn max_threads_is_checked_before_running() {
    let mut out = vec![0u32; 512];
    bounded_block::emulate(&cfg((8, 1, 1), (64, 1, 1)), &mut out).unwrap();
    assert!(out.iter().all(|&n| n == 64));
    bounded_block::emulate(&cfg((4, 1, 1), (16, 8, 1)), &mut out).unwrap();
    let e = bounded_block::emulate(&cfg((2, 1, 1), (256, 1, 1)), &mut out).unwrap_err();
    assert!(
        matches!(e.kind, oxide::emulate::FailureKind::LaunchShape(_)),
        "{e}"
    );
    assert!(e.to_string().contains("max_threads = 128"), "{e}");
}

/// One wave of a tile recurrence: each element of tile `(tr, tc)` is the sum of the elements
/// at the same place in the tiles above and to the left (earlier waves), plus 1.
#[kernel]
pub fn wave_step(mut out: WaveTiles<u64, 4, 4>) {
    for i in 0..2 {
        for j in 0..2 {
            let Some(((row, col), _)) = out.own_mut((i, j)) else {
                continue;
            };
            let above = row.checked_sub(4).and_then(|r| out.earlier(r, col));
            let left = col.checked_sub(4).and_then(|c| out.earlier(row, c));
            let value = above.unwrap_or(0) + left.unwrap_or(0) + 1;
            if let Some((_, o)) = out.own_mut((i, j)) {
                *o = value;
            }
        }
    }
}

#[test]
fn wavefronts_compute_a_tile_recurrence() {
    // 3 x 5 tiles of 4 x 4 (12 rows of 20), blocks of 2 x 2 threads: each thread owns four
    // elements of its tile; 3 + 5 - 1 waves.
    let (rows, width) = (12, 20);
    let mut out = vec![u64::MAX; rows * width];
    for d in 0..7 {
        wave_step::emulate(
            &cfg((5, 1, 1), (2, 2, 1)),
            Wave::new(&mut out[..], width, d).unwrap(),
        )
        .unwrap();
    }
    // Tile (tr, tc) holds paths(tr, tc) = paths(tr - 1, tc) + paths(tr, tc - 1) + 1.
    let mut tiles = [[0u64; 5]; 3];
    for tr in 0..3 {
        for tc in 0..5 {
            let above = if tr > 0 { tiles[tr - 1][tc] } else { 0 };
            let left = if tc > 0 { tiles[tr][tc - 1] } else { 0 };
            tiles[tr][tc] = above + left + 1;
        }
    }
    for (i, &v) in out.iter().enumerate() {
        let (row, col) = (i / width, i % width);
        assert_eq!(v, tiles[row / 4][col / 4], "({row}, {col})");
    }
}

/// Argument-length contracts: `a`, `b` and `c` have one length, and the grid has a thread per
/// element of `c`.
#[kernel(same_len = "a, b, c", covers = "c")]
pub fn checked_add(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let i = thread::index_1d();
    if let Some(o) = c.get_mut(ThreadIndex::linear()) {
        *o = a[i] + b[i];
    }
}

#[test]
fn argument_lengths_are_checked_before_running() {
    let (a, b) = (vec![1.0f32; 100], vec![2.0f32; 100]);
    let mut c = vec![0.0f32; 100];
    checked_add::emulate(&cfg((4, 1, 1), (32, 1, 1)), &a, &b, &mut c).unwrap();
    assert!(c.iter().all(|&v| v == 3.0));
    let e = checked_add::emulate(&cfg((4, 1, 1), (32, 1, 1)), &a, &b[..99], &mut c).unwrap_err();
    assert!(
        matches!(e.kind, oxide::emulate::FailureKind::ArgumentLengths(_)),
        "{e}"
    );
    assert!(
        e.to_string().contains("`a` has 100 elements and `b` 99"),
        "{e}"
    );
    let e = checked_add::emulate(&cfg((3, 1, 1), (32, 1, 1)), &a, &b, &mut c).unwrap_err();
    assert!(e.to_string().contains("covers = \"c\""), "{e}");
}

/// Tiles of 2 rows by 2^63 columns (issue 18, hole 2): block 0's tile is the whole buffer,
/// block 1's starts past it, and blocks 2 and up have no tile, as `2 · 2^63` does not fit in
/// `usize` (it wrapped to 0 in a release build, giving block 2 block 0's tile). Each thread
/// mixes its block into what the element held, so a second owner would show.
#[kernel]
pub fn wide_tiles(mut out: BlockTiles<u32, 2, { 1 << 63 }>) {
    let block = thread::block_idx_x();
    if let Some(mut tile) = out.tile_mut() {
        for j in 0..4 {
            if let Some((_, o)) = tile.own_mut((0, j)) {
                *o = o.wrapping_mul(31).wrapping_add(block + 1);
            }
        }
    }
}

#[test]
fn tiles_wider_than_half_the_address_space_have_one_owner() {
    let (rows, width) = (2, 8);
    let mut out = vec![7u32; rows * width];
    wide_tiles::emulate(
        &cfg((4, 1, 1), (4, 2, 1)),
        Rows::new(&mut out[..], width).unwrap(),
    )
    .unwrap();
    // Block 0 alone, once per element.
    assert!(out.iter().all(|&v| v == 7 * 31 + 1), "{out:?}");
}

/// The race detector sees the writes of tiles: blocks that disagree on the tile size (which
/// `BlockTiles::from_raw_parts` forbids, every thread must see the same shape) write one
/// element, and the emulator reports it with both threads.
#[test]
fn the_race_detector_sees_tile_writes() {
    let (rows, width) = (4, 4);
    let mut data = vec![0u32; rows * width];
    let out = oxide::emulate::RawSlice::new(&mut data);
    // Thread (0, 0) of each block writes its first element; with `mis_sized`, block 0 sees
    // 4 x 4 tiles and also writes its second, (0, 2), which is block 1's first.
    let launch = |mis_sized: bool| {
        oxide::emulate::run("tiles", &cfg((2, 1, 1), (2, 2, 1)), || {
            let (ptr, len) = (out.ptr(), out.len());
            if mis_sized && thread::block_idx_x() == 0 {
                // SAFETY: broken on purpose, for the race detector to find: the blocks see
                // different shapes. Otherwise the buffer is valid and only `run`'s threads
                // touch it.
                let mut wide =
                    unsafe { BlockTiles::<u32, 4, 4>::from_raw_parts(ptr, len, 4, 4, 4, (0, 0)) };
                let mut tile = wide.tile_mut().unwrap();
                for j in 0..2 {
                    if let Some((_, o)) = tile.own_mut((0, j)) {
                        *o += 1;
                    }
                }
            } else {
                // SAFETY: every thread sees this buffer and shape, and only `run`'s threads
                // touch it.
                let mut tiles =
                    unsafe { BlockTiles::<u32, 2, 2>::from_raw_parts(ptr, len, 4, 4, 4, (0, 0)) };
                let mut tile = tiles.tile_mut().unwrap();
                if let Some((_, o)) = tile.own_mut((0, 0)) {
                    *o += 1;
                }
            }
        })
    };
    launch(false).unwrap();
    let e = launch(true).unwrap_err().to_string();
    assert!(
        e.contains("data race in block [1, 0, 0]") && e.contains("element 2 of an output"),
        "{e}"
    );
    assert!(
        e.contains("earlier block") && e.contains("outputs.rs:"),
        "{e}"
    );
}

/// Each block's sum in its slot of `per_block`, each warp's in its slot of `per_warp`: one
/// writer per slot (the block's first thread, the warp's lane 0), no atomics.
#[kernel]
pub fn partial_sums(input: &[u32], mut per_block: BlockSlots<u32>, mut per_warp: WarpSlots<u32>) {
    let v = input.get(ThreadIndex::linear().get()).copied().unwrap_or(0);
    let block_total = oxide::block::sum(v);
    let warp_total = warp::sum(v);
    if let Some(slot) = per_block.slot_mut() {
        *slot = block_total;
    }
    if let Some(slot) = per_warp.slot_mut() {
        *slot = warp_total;
    }
}

#[test]
fn block_and_warp_slots_have_one_writer_each() {
    // Blocks of 2-D shape (16 × 5 = 80 threads: warps of 32, 32 and 16), a 2-D grid of 3 × 2.
    let (grid, block) = ((3, 2, 1), (16, 5, 1));
    let threads = 6 * 80;
    let input: Vec<u32> = (0..threads as u32).map(|i| i * 3 + 1).collect();
    // One slot more than the grid has blocks (warps): it stays as it was.
    let mut per_block = vec![u32::MAX; 7];
    let mut per_warp = vec![u32::MAX; 6 * 3 + 1];
    partial_sums::emulate(&cfg(grid, block), &input, &mut per_block, &mut per_warp).unwrap();
    // Threads are numbered block by block (blocks x fastest), x fastest in a block.
    for b in 0..6 {
        let sum: u32 = input[b * 80..(b + 1) * 80].iter().sum();
        assert_eq!(per_block[b], sum, "block {b}");
        for (k, (lo, hi)) in [(0, 32), (32, 64), (64, 80)].into_iter().enumerate() {
            let sum: u32 = input[b * 80 + lo..b * 80 + hi].iter().sum();
            assert_eq!(per_warp[b * 3 + k], sum, "block {b}, warp {k}");
        }
    }
    assert_eq!((per_block[6], per_warp[18]), (u32::MAX, u32::MAX));
    // Fewer slots than blocks: the blocks past the end write nothing.
    let (mut short_b, mut short_w) = (vec![0u32; 2], vec![0u32; 4]);
    partial_sums::emulate(&cfg(grid, block), &input, &mut short_b, &mut short_w).unwrap();
    assert_eq!(short_b, per_block[..2]);
    assert_eq!(short_w, per_warp[..4]);
}

#[kernel(same_len = "a, out")]
pub fn same_len_copy(a: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i];
    }
}

/// A caller's storage whose `AsRef` and `AsMut` disagree (safe code): `same_len` must compare
/// the lengths the threads get, which the kernel's entry takes to be equal (review of
/// 57b023f: the emulator compared `as_ref().len()` and shared `as_mut()`, and the kernel read
/// past `a`'s end in a release build).
struct Liar(Vec<f32>);

impl AsRef<[f32]> for Liar {
    fn as_ref(&self) -> &[f32] {
        &self.0[..4]
    }
}

impl AsMut<[f32]> for Liar {
    fn as_mut(&mut self) -> &mut [f32] {
        &mut self.0
    }
}

#[test]
fn same_len_compares_what_the_threads_get() {
    let a = vec![1.0f32; 4];
    let mut out = Liar(vec![0.0; 1024]);
    let e = same_len_copy::emulate(&cfg((4, 1, 1), (256, 1, 1)), &a, &mut out).unwrap_err();
    assert!(
        matches!(e.kind, oxide::emulate::FailureKind::ArgumentLengths(_)),
        "{e}"
    );
    let mut out = Liar(vec![0.0; 4]);
    same_len_copy::emulate(&cfg((1, 1, 1), (32, 1, 1)), &a, &mut out).unwrap();
    assert_eq!(out.0, a);
}
