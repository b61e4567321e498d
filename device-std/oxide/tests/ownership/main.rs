//! Ownership arithmetic never wraps (docs/safety.md; issue 18, hole 2): every output shape's
//! rule, driven over extreme parameters, gives each element it hands out to the one thread its
//! documented rule names, inside the buffer, so no element has two owners.
//!
//! Each test runs a shape as threads of launches the launcher accepts (`validate_shape`),
//! among them the largest (a grid of almost 2^64 threads, 2^31 - 1 blocks along x, 65535 along
//! y and z), one thread after another with `with_thread_context`: the first, second, third and
//! last blocks along each axis, and in each the first, second and last threads along each axis
//! (and lanes 31 and 32). Tile sizes, chunk sizes and windows (`R`, `C`, `W`: 1 to 2^63 and
//! `usize::MAX`), widths, pitches, lengths, pair distances and waves go up to `usize::MAX`:
//! the buffers hold a zero-sized type, so any length costs no memory.
//!
//! A claim is checked against the rule computed in `u128` (no arithmetic there can wrap):
//! whoever the implementation gives an element to must be the thread the rule names. Two
//! threads claiming one element would need the rule to name both. Sampling threads is enough
//! for that check: a wrapped index lands on an element the rule gives to someone else.

mod harness;
mod tiles;

use oxide::prelude::*;

use harness::*;

#[test]
fn one_element_per_thread_and_the_grid_stride() {
    let mut seen = 0;
    for &len in LENGTHS {
        // `get_mut`: element `t` for thread `t`.
        seen += sweep(
            "get_mut",
            ALL,
            |_| {
                // SAFETY: zero-sized elements; the threads run one after another.
                let mut s = unsafe { DisjointSlice::from_raw_parts(dangling(), len) };
                let idx = ThreadIndex::linear();
                let t = idx.get();
                s.get_mut(idx).map(|_| t as u128).into_iter().collect()
            },
            |launch, e| (e < len as u128).then(|| launch.who(e)).flatten(),
        );
        // `grid_stride`: element `e` for thread `e mod T`; the first few of each thread's
        // elements (a grid of almost 2^64 threads has at most two per thread).
        seen += sweep(
            "grid_stride",
            ALL,
            |_| {
                // SAFETY: as above.
                let mut s = unsafe { DisjointSlice::from_raw_parts(dangling(), len) };
                let idx = ThreadIndex::linear();
                s.grid_stride(&idx)
                    .take(4)
                    .map(|(i, _)| i as u128)
                    .collect()
            },
            |launch, e| {
                (e < len as u128)
                    .then(|| launch.who(e % launch.threads()))
                    .flatten()
            },
        );
    }
    assert!(seen > 0);
}

/// `DisjointChunks<Z, C>`: chunk `q` (elements `q·C .. q·C + C`) for thread `q mod T`, and the
/// partial last chunk, key `q = len / C` too, for its thread. Keys are chunk numbers.
fn chunks<const C: usize>() -> usize {
    let mut seen = 0;
    for &len in LENGTHS {
        seen += sweep(
            &format!("DisjointChunks<_, {C}> of {len}"),
            ALL,
            |_| {
                // SAFETY: as above.
                let mut out = unsafe { DisjointChunks::<Z, C>::from_raw_parts(dangling(), len) };
                let mut stride = out.grid_stride(&ThreadIndex::linear());
                let mut keys = Vec::new();
                for (first, _) in stride.by_ref().take(4) {
                    assert!(first.is_multiple_of(C), "chunk at {first}");
                    assert!(first as u128 + C as u128 <= len as u128, "chunk at {first}");
                    keys.push((first / C) as u128);
                }
                if let Some((first, tail)) = stride.into_remainder() {
                    assert_eq!((first, tail.len()), (len / C * C, len % C), "the remainder");
                    keys.push((first / C) as u128);
                }
                keys
            },
            |launch, q| {
                // The whole chunks and the partial one, if any.
                let chunks = (len as u128).div_ceil(C as u128);
                (q < chunks)
                    .then(|| launch.who(q % launch.threads()))
                    .flatten()
            },
        );
    }
    seen
}

#[test]
fn chunks_of_every_size() {
    let seen = chunks::<1>()
        + chunks::<2>()
        + chunks::<3>()
        + chunks::<4>()
        + chunks::<{ 1 << 32 }>()
        + chunks::<P63>()
        + chunks::<{ MAX - 1 }>()
        + chunks::<MAX>();
    assert!(seen > 0);
}

#[test]
fn the_rectangles_are_valid() {
    for rect in rects() {
        assert!(rect.is_valid(), "{rect:?}");
    }
}

#[test]
fn rows_per_thread() {
    let mut seen = 0;
    for rect in rects() {
        seen += sweep(
            &format!("DisjointRows of {rect:?}"),
            ALL,
            |_| {
                // SAFETY: the rectangle is valid; the threads run one after another.
                let mut out = unsafe { rect.output(DisjointRows::<Z>::from_raw_parts) };
                out.at_thread()
                    .map(|(rc, _)| rect.at(rc))
                    .into_iter()
                    .collect()
            },
            |launch, e| {
                // The thread at global `x = col`, `y = row`, `z = 0` of the rectangle.
                let (row, col) = rect.element(e)?;
                let [bx, by] = [0, 1].map(|a| u128::from(launch.block[a]));
                let block = [col / bx, row / by, 0];
                let thread = [col % bx, row % by, 0];
                let fits = (0..2).all(|a| block[a] < u128::from(launch.grid[a]));
                fits.then(|| (block.map(|v| v as u32), thread.map(|v| v as u32)))
            },
        );
    }
    assert!(seen > 0);
}

#[test]
fn rows_per_warp() {
    let mut seen = 0;
    for rect in rects() {
        seen += sweep(
            &format!("WarpRows of {rect:?}"),
            ALL,
            |_| {
                // SAFETY: as above.
                let mut out = unsafe { rect.output(WarpRows::<Z>::from_raw_parts) };
                let Some(mut row) = out.row_mut() else {
                    return Vec::new();
                };
                let r = row.row();
                let mut keys = Vec::new();
                for k in [0, 1, 2, (MAX - 31) / 32, MAX / 32, MAX] {
                    if let Some((col, _)) = row.own_mut(k) {
                        keys.push(rect.at((r, col)));
                    }
                }
                // `for_each_own` visits what `own_mut` gives, in order (in rows short enough
                // to visit whole).
                if rect.width <= 4096 {
                    let mut visited = Vec::new();
                    row.for_each_own(|col, _| visited.push(col));
                    let owned = (0..).map_while(|k| row.own_mut(k).map(|(c, _)| c));
                    assert!(visited.into_iter().eq(owned));
                }
                keys
            },
            |launch, e| {
                // Row `r`: warp `r` of the grid (blocks in order, then warps); column `c`: lane
                // `c mod 32` of it.
                let (row, col) = rect.element(e)?;
                let warps = launch.threads_per_block().div_ceil(32);
                let (block, warp) = (row / warps, row % warps);
                let thread = warp * 32 + col % 32;
                let blocks = launch.threads() / launch.threads_per_block();
                (block < blocks && thread < launch.threads_per_block())
                    .then(|| (unlinear(block, launch.grid), unlinear(thread, launch.block)))
            },
        );
    }
    assert!(seen > 0);
}

/// `BlockWindows<Z, W>`: element `e` is in window `e / W`, owned by the block of that linear
/// number, and in it by thread `(e mod W) mod n` of the block's `n`, in a write phase.
fn block_windows<const W: usize>() -> usize {
    let mut seen = 0;
    for &len in LENGTHS {
        seen += sweep(
            &format!("BlockWindows<_, {W}> of {len}"),
            ALL,
            |_| {
                // SAFETY: as above.
                let out = unsafe { BlockWindows::<Z, W>::from_raw_parts(dangling(), len) };
                let Some((start, read)) = out.window() else {
                    return Vec::new();
                };
                assert!(start as u128 + read.len() as u128 <= len as u128);
                // A barrier with no runner: one thread, which is all it needs to be here.
                let mut write = read.sync();
                let mut keys = Vec::new();
                for k in [0, 1, 2, MAX / 1024, MAX] {
                    if let Some((slot, _)) = write.own_mut(k) {
                        keys.push(start as u128 + slot as u128);
                    }
                }
                keys
            },
            |launch, e| {
                let (block, slot) = (e / W as u128, e % W as u128);
                let n = launch.threads_per_block();
                let blocks = launch.threads() / n;
                let in_block = slot % n;
                (e < len as u128 && block < blocks).then(|| {
                    (
                        unlinear(block, launch.grid),
                        unlinear(in_block, launch.block),
                    )
                })
            },
        );
    }
    seen
}

#[test]
fn block_windows_of_every_size() {
    let seen = block_windows::<1>()
        + block_windows::<3>()
        + block_windows::<32>()
        + block_windows::<{ 1 << 32 }>()
        + block_windows::<P63>()
        + block_windows::<MAX>();
    assert!(seen > 0);
}

#[test]
fn pairs_at_every_distance() {
    let mut seen = 0;
    for shift in [0, 1, 2, 5, 31, 32, 62, 63] {
        let d: usize = 1 << shift;
        for &len in LENGTHS {
            seen += sweep(
                &format!("DisjointPairs at {d} of {len}"),
                ALL,
                |_| {
                    // SAFETY: as above; the distance is a power of two.
                    let mut pairs = unsafe { DisjointPairs::from_raw_parts(dangling(), len, d) };
                    pairs
                        .pair_mut(ThreadIndex::linear())
                        .map(|(lo, _, _)| lo as u128)
                        .into_iter()
                        .collect()
                },
                |launch, lo| {
                    // Pair `(lo, lo + d)`, `lo` without the bit of `d`, whole in the buffer:
                    // thread `lo` with that bit removed.
                    let d = d as u128;
                    let p = (lo >> 1) & !(d - 1) | (lo & (d - 1));
                    (lo & d == 0 && lo + d < len as u128)
                        .then(|| launch.who(p))
                        .flatten()
                },
            );
        }
    }
    assert!(seen > 0);
}
