//! The harness of the ownership sweeps: launch shapes from one thread to almost 2^64, the
//! sampled threads of each, the sweep that checks every claim against a rule computed in
//! `u128`, and the lengths, layouts and rectangles the shapes are driven over.

use std::collections::HashMap;
use std::ptr::NonNull;

use oxide::emulate::{LaunchConfig, ThreadContext, with_thread_context};

/// A (block, thread) pair.
pub(crate) type Who = ([u32; 3], [u32; 3]);

/// A launch shape: blocks per grid, threads per block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Launch {
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
}

pub(crate) const MAX_X: u32 = i32::MAX as u32;
/// Two blocks of 2 × 2 threads by three: a small 2-D grid.
pub(crate) const SMALL: Launch = Launch {
    grid: [3, 2, 1],
    block: [2, 2, 1],
};
/// Blocks of 100 threads (three warps and a partial one).
pub(crate) const WARPS: Launch = Launch {
    grid: [5, 1, 1],
    block: [100, 1, 1],
};
/// The most blocks along x, of the largest block.
pub(crate) const WIDE: Launch = Launch {
    grid: [MAX_X, 1, 1],
    block: [1024, 1, 1],
};
/// (2^31 - 1) · 65535 · 128 · 1024 threads, 2^64 - 2^48 and a little: the grid stride is
/// almost `usize::MAX`.
pub(crate) const HUGE: Launch = Launch {
    grid: [MAX_X, 65535, 128],
    block: [1024, 1, 1],
};
/// The most blocks along y and z, of a 3-D block (threads with `z > 0` own no 2-D element).
pub(crate) const TALL: Launch = Launch {
    grid: [3, 65535, 65535],
    block: [32, 2, 2],
};
/// Small in every axis.
pub(crate) const CUBE: Launch = Launch {
    grid: [2, 3, 2],
    block: [4, 2, 2],
};
/// One thread.
pub(crate) const ONE: Launch = Launch {
    grid: [1, 1, 1],
    block: [1, 1, 1],
};

pub(crate) const ALL: &[Launch] = &[SMALL, WARPS, WIDE, HUGE, TALL, CUBE, ONE];

pub(crate) const MAX: usize = usize::MAX;
pub(crate) const P63: usize = 1 << 63;

impl Launch {
    pub(crate) fn threads_per_block(&self) -> u128 {
        self.block.iter().map(|&d| u128::from(d)).product()
    }

    pub(crate) fn threads(&self) -> u128 {
        self.grid.iter().map(|&d| u128::from(d)).product::<u128>() * self.threads_per_block()
    }

    /// The (block, thread) of linear thread `t` (`ThreadIndex::linear`'s order), if it exists.
    pub(crate) fn who(&self, t: u128) -> Option<Who> {
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
    pub(crate) fn sample(&self) -> Vec<ThreadContext> {
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
pub(crate) fn unlinear(n: u128, dims: [u32; 3]) -> [u32; 3] {
    let (x, y) = (u128::from(dims[0]), u128::from(dims[1]));
    [(n % x) as u32, (n / x % y) as u32, (n / x / y) as u32]
}

/// Runs `claims` as every sampled thread of every launch of `launches` (each checked to be one
/// the launcher accepts): the keys it returns (an element, or a chunk, a pair, a row...) must
/// be ones that `rule` gives to that very thread of that launch. Also counts claims, so that
/// a shape that hands out nothing does not pass unseen.
pub(crate) fn sweep(
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
pub(crate) const LENGTHS: &[usize] = &[
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
pub(crate) type Z = ();

pub(crate) fn dangling() -> *mut Z {
    NonNull::dangling().as_ptr()
}

/// Rows of `width`, `pitch` apart, in `len` elements: `(len, width, pitch)` with `pitch`
/// dividing `len` and `1 <= width <= pitch`, from one element to `usize::MAX` rows or columns.
pub(crate) const LAYOUTS: &[(usize, usize, usize)] = &[
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
pub(crate) struct Rect {
    pub(crate) len: usize,
    pub(crate) pitch: usize,
    pub(crate) rows: usize,
    pub(crate) width: usize,
    pub(crate) top: usize,
    pub(crate) left: usize,
}

/// A 2-D output's `from_raw_parts`: pointer, length, width, pitch, rows, origin.
pub(crate) type RowsFromRawParts<O> =
    unsafe fn(*mut Z, usize, usize, usize, usize, (usize, usize)) -> O;

/// Rectangles that `Rows::rect` accepts, out to the last element of `usize::MAX` and across
/// rows of up to `usize::MAX` elements: interiors, a corner, the last row, a last column.
pub(crate) const RECTS: &[Rect] = &[
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
pub(crate) fn rects() -> Vec<Rect> {
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
    pub(crate) fn is_valid(&self) -> bool {
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
    pub(crate) fn at(&self, (row, col): (usize, usize)) -> u128 {
        (self.top as u128 + row as u128) * self.pitch as u128 + self.left as u128 + col as u128
    }

    /// The output's `(row, col)` at key `e`, if the rectangle has it (not the border, not
    /// padding, not past the end).
    pub(crate) fn element(&self, e: u128) -> Option<(u128, u128)> {
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
    pub(crate) unsafe fn output<O>(&self, from_raw_parts: RowsFromRawParts<O>) -> O {
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

/// `(row, col)` of a whole-buffer layout as the key `row · pitch + col` (`WaveTiles`).
pub(crate) fn at(pitch: usize, (row, col): (usize, usize)) -> u128 {
    row as u128 * pitch as u128 + col as u128
}

/// `(row, col)` of key `e`, if it is an element of the layout (not padding, not past the end).
pub(crate) fn element((len, width, pitch): (usize, usize, usize), e: u128) -> Option<(u128, u128)> {
    let (row, col) = (e / pitch as u128, e % pitch as u128);
    (e < len as u128 && col < width as u128).then_some((row, col))
}
