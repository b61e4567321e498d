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

use std::collections::HashMap;
use std::ptr::NonNull;

use oxide::emulate::{LaunchConfig, ThreadContext, with_thread_context};
use oxide::prelude::*;

/// A (block, thread) pair.
type Who = ([u32; 3], [u32; 3]);

/// A launch shape: blocks per grid, threads per block.
#[derive(Clone, Copy, Debug)]
struct Launch {
    grid: [u32; 3],
    block: [u32; 3],
}

const MAX_X: u32 = i32::MAX as u32;
/// Two blocks of 2 × 2 threads by three: a small 2-D grid.
const SMALL: Launch = Launch {
    grid: [3, 2, 1],
    block: [2, 2, 1],
};
/// Blocks of 100 threads (three warps and a partial one).
const WARPS: Launch = Launch {
    grid: [5, 1, 1],
    block: [100, 1, 1],
};
/// The most blocks along x, of the largest block.
const WIDE: Launch = Launch {
    grid: [MAX_X, 1, 1],
    block: [1024, 1, 1],
};
/// (2^31 - 1) · 65535 · 128 · 1024 threads, 2^64 - 2^48 and a little: the grid stride is
/// almost `usize::MAX`.
const HUGE: Launch = Launch {
    grid: [MAX_X, 65535, 128],
    block: [1024, 1, 1],
};
/// The most blocks along y and z, of a 3-D block (threads with `z > 0` own no 2-D element).
const TALL: Launch = Launch {
    grid: [3, 65535, 65535],
    block: [32, 2, 2],
};
/// Small in every axis.
const CUBE: Launch = Launch {
    grid: [2, 3, 2],
    block: [4, 2, 2],
};
/// One thread.
const ONE: Launch = Launch {
    grid: [1, 1, 1],
    block: [1, 1, 1],
};

const ALL: &[Launch] = &[SMALL, WARPS, WIDE, HUGE, TALL, CUBE, ONE];

const MAX: usize = usize::MAX;
const P63: usize = 1 << 63;

impl Launch {
    fn threads_per_block(&self) -> u128 {
        self.block.iter().map(|&d| u128::from(d)).product()
    }

    fn threads(&self) -> u128 {
        self.grid.iter().map(|&d| u128::from(d)).product::<u128>() * self.threads_per_block()
    }

    /// The (block, thread) of linear thread `t` (`ThreadIndex::linear`'s order), if it exists.
    fn who(&self, t: u128) -> Option<Who> {
        (t < self.threads()).then(|| {
            let per_block = self.threads_per_block();
            (
                unlinear(t / per_block, self.grid),
                unlinear(t % per_block, self.block),
            )
        })
    }

    /// The sampled threads: per axis the first three and last two blocks, and in each block the
    /// first two and last two threads (and, along x, lanes 31 and 32).
    fn sample(&self) -> Vec<ThreadContext> {
        // The first of `n` listed in `first`, and the last of `n` as many as `last` says.
        let pick = |n: u32, first: &[u32], last: u32| -> Vec<u32> {
            let mut v: Vec<u32> = first.iter().copied().filter(|&k| k < n).collect();
            v.extend((1..=last.min(n)).map(|k| n - k));
            v.sort_unstable();
            v.dedup();
            v
        };
        let blocks: Vec<Vec<u32>> = (0..3).map(|a| pick(self.grid[a], &[0, 1, 2], 2)).collect();
        let threads: Vec<Vec<u32>> = (0..3)
            .map(|a| {
                pick(
                    self.block[a],
                    if a == 0 { &[0, 1, 31, 32] } else { &[0, 1] },
                    2,
                )
            })
            .collect();
        let mut out = Vec::new();
        for &bz in &blocks[2] {
            for &by in &blocks[1] {
                for &bx in &blocks[0] {
                    for &tz in &threads[2] {
                        for &ty in &threads[1] {
                            for &tx in &threads[0] {
                                out.push(ThreadContext {
                                    thread_idx: [tx, ty, tz],
                                    block_idx: [bx, by, bz],
                                    block_dim: self.block,
                                    grid_dim: self.grid,
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// The position of linear number `n` in a box of `dims`, x fastest.
fn unlinear(n: u128, dims: [u32; 3]) -> [u32; 3] {
    let (x, y) = (u128::from(dims[0]), u128::from(dims[1]));
    [(n % x) as u32, (n / x % y) as u32, (n / x / y) as u32]
}

/// Runs `claims` as every sampled thread of every launch of `launches` (each checked to be one
/// the launcher accepts): the keys it returns (an element, or a chunk, a pair, a row...) must
/// be ones that `rule` gives to that very thread of that launch. Also counts claims, so that
/// a shape that hands out nothing does not pass unseen.
fn sweep(
    what: &str,
    launches: &[Launch],
    mut claims: impl FnMut(&Launch) -> Vec<u128>,
    rule: impl Fn(&Launch, u128) -> Option<Who>,
) -> usize {
    let mut total = 0;
    for launch in launches {
        let cfg = LaunchConfig {
            grid: launch.grid.into(),
            block: launch.block.into(),
            shared_mem_bytes: 0,
        };
        cfg.validate_shape()
            .unwrap_or_else(|e| panic!("{launch:?} is not a launch: {e}"));
        let mut owners: HashMap<u128, Who> = HashMap::new();
        for ctx in launch.sample() {
            let me = (ctx.block_idx, ctx.thread_idx);
            let mut mine = Vec::new();
            with_thread_context(ctx, || mine = claims(launch));
            for key in mine {
                let owner = rule(launch, key);
                assert_eq!(
                    owner,
                    Some(me),
                    "{what}, {launch:?}: thread {me:?} claims {key}, which the rule gives to \
                     {owner:?} (None: no thread, or outside the buffer)"
                );
                if let Some(other) = owners.insert(key, me).filter(|&o| o != me) {
                    panic!("{what}, {launch:?}: {key} claimed by {other:?} and by {me:?}");
                }
                total += 1;
            }
        }
    }
    total
}

/// Lengths, from empty to `usize::MAX`.
const LENGTHS: &[usize] = &[
    0,
    1,
    2,
    5,
    4096,
    1 << 32,
    P63 - 1,
    P63,
    P63 + 1,
    MAX - 1,
    MAX,
];

/// A zero-sized element: a buffer of any length at no cost.
type Z = ();

fn dangling() -> *mut Z {
    NonNull::dangling().as_ptr()
}

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

/// Rows of `width`, `pitch` apart, in `len` elements: `(len, width, pitch)` with `pitch`
/// dividing `len` and `1 <= width <= pitch`, from one element to `usize::MAX` rows or columns.
const LAYOUTS: &[(usize, usize, usize)] = &[
    (0, 1, 1),
    (12, 3, 4),
    (30, 5, 5),
    (MAX, 1, 1),
    (MAX, MAX, MAX),
    (MAX, 3, 5),
    (MAX - 1, 2, 2),
    (MAX - 1, 1, P63 - 1),
    (P63, 1 << 62, 1 << 62),
    (P63, 5, P63),
    ((1 << 32) * ((1 << 32) - 1), (1 << 32) - 1, 1 << 32),
];

/// A 2-D output's rectangle (`Rows::rect`): `rows × width` elements from `(top, left)` of a
/// buffer of `len` elements in rows `pitch` apart.
#[derive(Clone, Copy, Debug)]
struct Rect {
    len: usize,
    pitch: usize,
    rows: usize,
    width: usize,
    top: usize,
    left: usize,
}

/// A 2-D output's `from_raw_parts`: pointer, length, width, pitch, rows, origin.
type RowsFromRawParts<O> = unsafe fn(*mut Z, usize, usize, usize, usize, (usize, usize)) -> O;

/// Rectangles that `Rows::rect` accepts, out to the last element of `usize::MAX` and across
/// rows of up to `usize::MAX` elements: interiors, a corner, the last row, a last column.
const RECTS: &[Rect] = &[
    Rect {
        len: 30,
        pitch: 5,
        rows: 4,
        width: 3,
        top: 1,
        left: 1,
    },
    Rect {
        len: 12,
        pitch: 4,
        rows: 1,
        width: 1,
        top: 2,
        left: 3,
    },
    Rect {
        len: MAX,
        pitch: 5,
        rows: MAX / 5 - 1,
        width: 3,
        top: 1,
        left: 2,
    },
    Rect {
        len: MAX,
        pitch: 1,
        rows: MAX - 1,
        width: 1,
        top: 1,
        left: 0,
    },
    Rect {
        len: MAX,
        pitch: MAX,
        rows: 1,
        width: MAX - 1,
        top: 0,
        left: 1,
    },
    Rect {
        len: MAX - 1,
        pitch: P63 - 1,
        rows: 1,
        width: 2,
        top: 1,
        left: P63 - 3,
    },
    Rect {
        len: P63,
        pitch: 1 << 62,
        rows: 1,
        width: (1 << 62) - 1,
        top: 1,
        left: 1,
    },
    Rect {
        len: (1 << 32) * ((1 << 32) - 1),
        pitch: 1 << 32,
        rows: (1 << 32) - 3,
        width: (1 << 32) - 2,
        top: 1,
        left: 1,
    },
    Rect {
        len: (1 << 32) * ((1 << 32) - 1),
        pitch: 1 << 32,
        rows: 1,
        width: (1 << 32) - 8,
        top: (1 << 32) - 2,
        left: 7,
    },
];

/// Every layout as the rectangle of its whole buffer (`Rows::with_pitch`), then [`RECTS`].
fn rects() -> Vec<Rect> {
    let whole = LAYOUTS.iter().map(|&(len, width, pitch)| Rect {
        len,
        pitch,
        rows: len / pitch,
        width,
        top: 0,
        left: 0,
    });
    whole.chain(RECTS.iter().copied()).collect()
}

impl Rect {
    /// Whether `Rows::rect`'s rules hold (the test's own check of its table).
    fn is_valid(&self) -> bool {
        let buffer_rows = self.len / self.pitch;
        self.len.is_multiple_of(self.pitch)
            && self.rows >= 1
            && self.width >= 1
            && self
                .top
                .checked_add(self.rows)
                .is_some_and(|end| end <= buffer_rows)
            && self
                .left
                .checked_add(self.width)
                .is_some_and(|end| end <= self.pitch)
            || self.len == 0 && self.rows == 0
    }

    /// The output's `(row, col)` as the key `(top + row) · pitch + left + col`: the element's
    /// index in the buffer.
    fn at(&self, (row, col): (usize, usize)) -> u128 {
        (self.top as u128 + row as u128) * self.pitch as u128 + self.left as u128 + col as u128
    }

    /// The output's `(row, col)` at key `e`, if the rectangle has it (not the border, not
    /// padding, not past the end).
    fn element(&self, e: u128) -> Option<(u128, u128)> {
        let (row, col) = (e / self.pitch as u128, e % self.pitch as u128);
        let row = row.checked_sub(self.top as u128)?;
        let col = col.checked_sub(self.left as u128)?;
        (e < self.len as u128 && row < self.rows as u128 && col < self.width as u128)
            .then_some((row, col))
    }

    /// The output `O` over this rectangle of a buffer of zero-sized elements.
    ///
    /// # Safety
    /// The rectangle is valid; the threads run one after another.
    unsafe fn output<O>(&self, from_raw_parts: RowsFromRawParts<O>) -> O {
        debug_assert!(self.is_valid(), "{self:?}");
        let (top, left) = (self.top, self.left);
        unsafe {
            from_raw_parts(
                dangling(),
                self.len,
                self.width,
                self.pitch,
                self.rows,
                (top, left),
            )
        }
    }
}

#[test]
fn the_rectangles_are_valid() {
    for rect in rects() {
        assert!(rect.is_valid(), "{rect:?}");
    }
}

/// `(row, col)` of a whole-buffer layout as the key `row · pitch + col` (`WaveTiles`).
fn at(pitch: usize, (row, col): (usize, usize)) -> u128 {
    row as u128 * pitch as u128 + col as u128
}

/// `(row, col)` of key `e`, if it is an element of the layout (not padding, not past the end).
fn element((len, width, pitch): (usize, usize, usize), e: u128) -> Option<(u128, u128)> {
    let (row, col) = (e / pitch as u128, e % pitch as u128);
    (e < len as u128 && col < width as u128).then_some((row, col))
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

/// `$f::<R, C>()` summed over tile sizes: one, small, and from 2^32 to `usize::MAX`.
macro_rules! for_tile_sizes {
    ($f:ident) => {{
        let mut seen = 0;
        for_tile_sizes!(@rows $f seen; 1, 3, 32, 1 << 32, P63, MAX);
        seen
    }};
    (@rows $f:ident $seen:ident; $($r:expr),*) => {
        $( for_tile_sizes!(@cols $f $seen ($r); 1, 2, 32, (1 << 32) + 1, P63, MAX); )*
    };
    (@cols $f:ident $seen:ident ($r:expr); $($c:expr),*) => {
        $( $seen += $f::<{ $r }, { $c }>(); )*
    };
}

/// The thread's positions in a tile that the tests ask for: small, and the largest `i`, `j`
/// whose residue fits in `usize`, and `usize::MAX`.
fn own_positions() -> Vec<(usize, usize)> {
    let (bx, by) = (
        thread::block_dim_x() as usize,
        thread::block_dim_y() as usize,
    );
    let is = [0, 1, (MAX - by) / by, MAX];
    let js = [0, 1, (MAX - bx) / bx];
    is.iter()
        .flat_map(|&i| js.iter().map(move |&j| (i, j)))
        .collect()
}

/// The owner of element `(row, col)` of a tile `(tile row, tile col)` at tile position `(r, c)`
/// within it, given the block that must own the tile: thread `(c mod bx, r mod by, 0)`.
fn tile_owner(launch: &Launch, block: [u128; 2], (r, c): (u128, u128)) -> Option<Who> {
    let fits = (0..2).all(|a| block[a] < u128::from(launch.grid[a]));
    let [bx, by] = [0, 1].map(|a| u128::from(launch.block[a]));
    fits.then(|| {
        (
            [block[0] as u32, block[1] as u32, 0],
            [(c % bx) as u32, (r % by) as u32, 0],
        )
    })
}

/// `BlockTiles<Z, R, C>` over every rectangle: element `(row, col)` of the rectangle is in
/// tile `(row / R, col / C)`, owned by block `(x = col / C, y = row / R, 0)`.
fn block_tiles<const R: usize, const C: usize>() -> usize {
    let mut seen = 0;
    for rect in rects() {
        seen += sweep(
            &format!("BlockTiles<_, {R}, {C}> of {rect:?}"),
            &[SMALL, WIDE, TALL, CUBE, ONE],
            |_| {
                // SAFETY: as above.
                let mut out = unsafe { rect.output(BlockTiles::<Z, R, C>::from_raw_parts) };
                let Some(mut tile) = out.tile_mut() else {
                    return Vec::new();
                };
                let mut keys = Vec::new();
                for own in own_positions() {
                    if let Some((rc, _)) = tile.own_mut(own) {
                        keys.push(rect.at(rc));
                    }
                }
                keys
            },
            |launch, e| {
                let (row, col) = rect.element(e)?;
                let (tr, tc) = (R as u128, C as u128);
                tile_owner(launch, [col / tc, row / tr], (row % tr, col % tc))
            },
        );
    }
    seen
}

/// Issue 18, hole 2: with `C = 2^63`, `block_idx_x · C` wrapped in a release build and block 2
/// got block 0's tile (on the H200, 16 of 16 elements had two owners).
#[test]
fn block_tiles_of_every_size() {
    assert!(for_tile_sizes!(block_tiles) > 0);
    // Tiles of no rows or columns own nothing, whatever the block.
    assert_eq!(block_tiles::<0, 4>() + block_tiles::<4, 0>(), 0);
}

/// `BlockTiles<Z, R, C, O>` over every rectangle, with the block that must own tile
/// `(tile row, tile col)` under `O` given by `block_of` (the order's inverse, written here
/// independently of device-std's forward map) as `(x, y, z)`, or `None` when no block of the
/// launch owns it.
fn ordered_block_tiles<const R: usize, const C: usize, O: oxide::outputs::TileOrder>(
    name: &str,
    block_of: impl Fn(&Launch, (u128, u128), (u128, u128)) -> Option<[u128; 3]>,
) -> usize {
    let mut seen = 0;
    for rect in rects() {
        let tiles = (
            (rect.rows as u128).div_ceil(R.max(1) as u128),
            (rect.width as u128).div_ceil(C.max(1) as u128),
        );
        seen += sweep(
            &format!("BlockTiles<_, {R}, {C}, {name}> of {rect:?}"),
            &[SMALL, WIDE, TALL, CUBE, ONE],
            |_| {
                // SAFETY: as above.
                let mut out = unsafe { rect.output(BlockTiles::<Z, R, C, O>::from_raw_parts) };
                let Some(mut tile) = out.tile_mut() else {
                    return Vec::new();
                };
                let mut keys = Vec::new();
                for own in own_positions() {
                    if let Some((rc, _)) = tile.own_mut(own) {
                        keys.push(rect.at(rc));
                    }
                }
                keys
            },
            |launch, e| {
                let (row, col) = rect.element(e)?;
                let (tr, tc) = (R as u128, C as u128);
                let [x, y, z] = block_of(launch, (row / tr, col / tc), tiles)?;
                let fits = [x, y, z]
                    .iter()
                    .zip(launch.grid)
                    .all(|(&b, g)| b < u128::from(g));
                let [bx, by] = [0, 1].map(|a| u128::from(launch.block[a]));
                fits.then(|| {
                    (
                        [x as u32, y as u32, z as u32],
                        [((col % tc) % bx) as u32, ((row % tr) % by) as u32, 0],
                    )
                })
            },
        );
    }
    seen
}

/// The block of linear number `b` (x fastest) in `launch`'s grid.
fn block_numbered(launch: &Launch, b: u128) -> [u128; 3] {
    let [gx, gy, _] = launch.grid.map(u128::from);
    [b % gx, b / gx % gy, b / (gx * gy)]
}

fn transposed_tiles<const R: usize, const C: usize>() -> usize {
    ordered_block_tiles::<R, C, oxide::outputs::Transposed>("Transposed", |_, (tr, tc), _| {
        Some([tr, tc, 0])
    })
}

fn row_major_tiles<const R: usize, const C: usize>() -> usize {
    ordered_block_tiles::<R, C, oxide::outputs::RowMajor>(
        "RowMajor",
        |launch, (tr, tc), (_, cols)| Some(block_numbered(launch, tr * cols + tc)),
    )
}

fn grouped_tiles<const R: usize, const C: usize>() -> usize {
    const G: u128 = 3;
    ordered_block_tiles::<R, C, oxide::outputs::Grouped<3>>(
        "Grouped<3>",
        |launch, (tr, tc), (rows, cols)| {
            let group = tr / G;
            let group_rows = (rows - group * G).min(G);
            let b = group * G * cols + tc * group_rows + (tr - group * G);
            Some(block_numbered(launch, b))
        },
    )
}

/// The other block → tile maps, over the same sizes and rectangles: each tile has the block
/// the map's inverse names, and no element two owners.
#[test]
fn ordered_block_tiles_of_every_size() {
    assert!(for_tile_sizes!(transposed_tiles) > 0);
    assert!(for_tile_sizes!(row_major_tiles) > 0);
    assert!(for_tile_sizes!(grouped_tiles) > 0);
    assert_eq!(row_major_tiles::<0, 4>() + grouped_tiles::<4, 0>(), 0);
}

/// Waves: the first, small, around 2^32 and 2^63, and the last two.
const WAVES: &[usize] = &[0, 1, 2, 3, 1 << 32, P63, MAX - 1, MAX];

/// `WaveTiles<Z, R, C>` in the launch of each wave: block `b` (x, with `y = z = 0`) owns
/// tile `(wave - b, b)`.
fn wave_tiles<const R: usize, const C: usize>() -> usize {
    let mut seen = 0;
    for &(len, width, pitch) in LAYOUTS.iter().filter(|(_, w, p)| w == p) {
        for &wave in WAVES {
            seen += sweep(
                &format!("WaveTiles<_, {R}, {C}> of {len} as {width}, wave {wave}"),
                &[SMALL, WIDE, CUBE, ONE],
                |_| {
                    // SAFETY: as above; the width divides the length.
                    let mut out = unsafe {
                        WaveTiles::<Z, R, C>::from_raw_parts(dangling(), len, width, wave)
                    };
                    let mut keys = Vec::new();
                    for own in own_positions() {
                        if let Some((rc, _)) = out.own_mut(own) {
                            keys.push(at(pitch, rc));
                        }
                    }
                    keys
                },
                |launch, e| {
                    let (row, col) = element((len, width, pitch), e)?;
                    let (tr, tc) = (R as u128, C as u128);
                    let (tile_row, b) = (row / tr, col / tc);
                    (tile_row + b == wave as u128)
                        .then(|| tile_owner(launch, [b, 0], (row % tr, col % tc)))
                        .flatten()
                },
            );
        }
    }
    seen
}

#[test]
fn wave_tiles_of_every_size() {
    assert!(for_tile_sizes!(wave_tiles) > 0);
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
