//! A fill: the chunks this thread owns in the next stage, each copied from its source, then
//! committed as one group. By chunks ([`Pipeline::fill`]: a [`Source`] each) or by tiles
//! ([`Pipeline::fill_tiles`]: a [`TileSource`] each, tested once for the whole tile).

use super::source::{Source, TileSource};
use super::{Pipeline, StageTiles, copies, first_own_chunk};
use crate::mma::Vec8;
use crate::shared::BlockPosition;

/// The most chunks a thread copies in a fill whose loop is unrolled.
const UNROLLED_CHUNKS: usize = 8;

/// The most tiles a stage has.
const MOST_TILES: usize = 2;

/// The most chunks a thread copies of a tile for a whole fill to copy each from its hoisted
/// offset ([`strided_fill`] above it).
const HOISTED_CHUNKS: usize = 4;

/// Where a fill's chunks go: the stage in memory and in the `.shared` window, and the
/// thread's chunks of it (`first`, then every `n`-th).
struct Target<T> {
    stage: *mut Vec8<T>,
    window: usize,
    first: usize,
    n: usize,
}

impl<T> Target<T> {
    /// Chunk `slot` of the stage, in memory and in the `.shared` window.
    #[inline]
    fn at(&self, slot: usize) -> (*mut Vec8<T>, usize) {
        let chunk = core::mem::size_of::<Vec8<T>>();
        (self.stage.wrapping_add(slot), self.window + slot * chunk)
    }
}

impl<'s, T: StageTiles, const S: usize> Pipeline<'_, 's, T, S> {
    /// The stage of group `issued` (`issued % S`), after checking it free, and this thread's
    /// chunks of it.
    #[track_caller]
    #[inline]
    fn next_target(&self) -> Target<T::Elem> {
        let group = self.issued.get();
        // The stage's last group, `group - S`, was read in step `group - S`, whose reads ended
        // before the wait that began step `group - S + 1`: free once this thread has passed
        // that wait. And the stage read now (group `waited - 1`) is never refilled: `group`
        // is past it.
        let free = group < S || group - S + 2 <= self.waited;
        assert!(
            free && group >= self.waited,
            "a pipeline stage refilled while it may still be read: fill once per wait, in every thread"
        );
        let (t, n) = BlockPosition::current().linear();
        Target {
            stage: self.stages.wrapping_add(group % S).cast::<Vec8<T::Elem>>(),
            window: self.window + group % S * core::mem::size_of::<T>(),
            first: first_own_chunk::<T>(group % S, t, n),
            n,
        }
    }

    /// Commits the fill's copies as group `issued`.
    #[inline]
    fn commit_fill(&self) {
        copies::commit_group(self.key());
        self.issued.set(self.issued.get() + 1);
    }

    /// The fill of group `issued` into stage `issued % S`, chunk by chunk.
    #[track_caller]
    #[inline]
    pub(super) fn fill_next(
        &self,
        mut source: impl FnMut((usize, usize, usize)) -> Source<'s, T::Elem>,
    ) {
        let target = self.next_target();
        // This thread's `j`-th chunk of the stage: its slot and its source (none past the
        // stage's end).
        let mut chunk_at = |j: usize| {
            let i = target.first + j * target.n;
            (i < T::CHUNKS).then(|| (T::slot(i), source(T::position(i))))
        };
        let count = T::CHUNKS.div_ceil(target.n);
        // A count of chunks that is the same in every thread where the block divides a stage
        // (and a constant where the launch's block size is).
        if count <= UNROLLED_CHUNKS {
            // A few a thread: unrolled, so each chunk's position is the same in every fill and
            // computed once, outside the caller's loop. The sources are gathered first and
            // tested together: where every one is a whole chunk of aligned global memory (a
            // test of the matrices alone, which LLVM hoists), the copies are one `cp.async`
            // each with no branch between them, one test a fill instead of one a chunk.
            let mut chunks = [None; UNROLLED_CHUNKS];
            for j in crate::unroll(0..count) {
                chunks[j] = chunk_at(j);
            }
            let mut whole = true;
            for j in crate::unroll(0..UNROLLED_CHUNKS) {
                if let Some((_, from)) = chunks[j] {
                    whole &= Source::is_whole(&from);
                }
            }
            for j in crate::unroll(0..UNROLLED_CHUNKS) {
                let Some((slot, from)) = chunks[j] else {
                    continue;
                };
                let at = target.at(slot);
                // SAFETY: the source is a `Source`, whose slice or matrix `'s` keeps borrowed
                // while the copy may read it; the chunk is this thread's, in a stage checked
                // free above; `whole` where every source is a whole chunk or none.
                unsafe {
                    if whole {
                        copies::copy_whole_chunk(at.1, from, self.key());
                    } else {
                        copies::copy_chunk(at, from, self.key());
                    }
                }
            }
        } else {
            // Many: a loop, as `each_chunk` says why.
            for j in 0..count {
                let Some((slot, from)) = chunk_at(j) else {
                    break;
                };
                // SAFETY: as above.
                unsafe { copies::copy_chunk(target.at(slot), from, self.key()) };
            }
        }
        self.commit_fill();
    }

    /// The fill of group `issued` into stage `issued % S`, tile by tile: where every tile is
    /// whole ([`TileSource::is_whole`], one test a tile), each of this thread's chunks is one
    /// `cp.async` of 16 bytes, from its tile's first element plus its offset (or, with many
    /// chunks a thread, plus a stride: [`copy_strided`](Self::copy_strided)); otherwise chunk by
    /// chunk, as [`fill_next`](Self::fill_next) with each tile's chunk sources.
    #[track_caller]
    #[inline]
    pub(super) fn fill_next_tiles(&self, mut source: impl FnMut(usize) -> TileSource<'s, T::Elem>) {
        const { assert!(T::TILES <= MOST_TILES) };
        let tiles: [TileSource<'s, T::Elem>; MOST_TILES] = core::array::from_fn(|tile| {
            if tile < T::TILES {
                source(tile)
            } else {
                TileSource::zeros()
            }
        });
        let mut whole = true;
        for tile in crate::unroll(0..MOST_TILES) {
            if tile < T::TILES {
                let (rows, chunks) = T::extent(tile);
                whole &= tiles[tile].is_whole(rows, chunks);
            }
        }
        if !whole {
            self.fill_next(|(tile, row, chunk)| pick(&tiles, tile).chunk(row, chunk));
            return;
        }
        let target = self.next_target();
        if strided_fill::<T>(target.n) {
            self.copy_strided(&tiles, &target);
            self.commit_fill();
            return;
        }
        let count = T::CHUNKS.div_ceil(target.n);
        // The thread's `j`-th chunk, from its tile: the tile of each chunk is the same in every
        // fill (selected, not indexed, so the tiles stay in registers).
        let copy = |j: usize| {
            let i = target.first + j * target.n;
            if i < T::CHUNKS {
                let (tile, row, chunk) = T::position(i);
                let from = pick(&tiles, tile).first_of(row, chunk);
                // SAFETY: every tile is whole: the chunk is 16 bytes inside its matrix, 16-byte
                // aligned global memory, which `'s` keeps borrowed while the copy may read it;
                // the chunk is this thread's, in a stage checked free.
                unsafe { copies::copy_chunk_inside(target.at(T::slot(i)).1, from, self.key()) };
            }
        };
        each_chunk(count, copy);
        self.commit_fill();
    }

    /// A whole fill's copies where [`strided_fill`] holds: each tile's chunks of this thread
    /// are one column, rows the same distance apart, so its copies walk the tile's source by
    /// one stride (a 64-bit add a chunk) rather than each from the chunk's row times the pitch.
    /// With many chunks a thread, the per-chunk offsets that the other form hoists out of the
    /// caller's loop took more registers than a kernel short of them had (flash_attn at head
    /// dimension 128: ptxas recomputed them every step, and spilled).
    #[inline]
    fn copy_strided(
        &self,
        tiles: &[TileSource<'s, T::Elem>; MOST_TILES],
        target: &Target<T::Elem>,
    ) {
        for tile in crate::unroll(0..MOST_TILES) {
            if tile < T::TILES {
                let (start, rows_apart) = T::strided(tile, target.n);
                let (rows, chunks) = T::extent(tile);
                // The thread's first chunk of the tile (`target.first < n`, and the tile's
                // chunks a multiple of `n`), then every `n`-th: `rows_apart` rows further down
                // the same column, so `rows_apart` rows further into the source.
                let i = start + target.first;
                let (_, row, chunk) = T::position(i);
                let source = pick(tiles, tile);
                let stride = source.rows_stride(rows_apart.unwrap_or(0));
                let slot = T::slot(i);
                let count = rows * chunks / target.n;
                let copy = |j: usize, from: *const T::Elem| {
                    // SAFETY: the tile is whole: chunk `i + j·n` (`j < count`) is 16 bytes inside
                    // its matrix at `from` (its position `rows_apart · j` rows below chunk `i`'s),
                    // 16-byte aligned global memory, which `'s` keeps borrowed while the copy may
                    // read it; the chunk is this thread's, in a stage checked free, at slot
                    // `slot + j·n` (a tile's chunks lie in order).
                    unsafe {
                        copies::copy_chunk_inside(
                            target.at(slot + j * target.n).1,
                            from,
                            self.key(),
                        )
                    };
                };
                let mut from = source.first_of(row, chunk);
                each_chunk(count, |j| {
                    copy(j, from);
                    from = from.wrapping_add(stride);
                });
            }
        }
    }
}

/// Whether a whole fill of `T` by `n` threads walks its sources by stride: every tile's chunks
/// divide among the threads in columns ([`StageTiles::strided`]) and each thread copies more
/// than [`HOISTED_CHUNKS`] of each. Measured on an H100 (perf-notes, 2026-12-07): flash_attn at
/// head dimension 128 (8 chunks a thread a tile) 3–6% faster strided; hgemm (4) 5% slower, its
/// hoisted offsets fitting its registers.
#[inline]
fn strided_fill<T: StageTiles>(n: usize) -> bool {
    let mut strided = true;
    for tile in crate::unroll(0..MOST_TILES) {
        if tile < T::TILES {
            let (rows, chunks) = T::extent(tile);
            strided &= T::strided(tile, n).1.is_some() && rows * chunks / n > HOISTED_CHUNKS;
        }
    }
    strided
}

/// `copy(j)` for `j` in `0..count`: unrolled where a thread copies few chunks (so each chunk's
/// position is the same in every fill and computed once, outside the caller's loop), a loop
/// where it copies many (each unrolled chunk holds its hoisted address in registers through the
/// caller's loop: flash_attn's 16 a thread at head dimension 128 took 255 registers and
/// spilled, against 212 as a loop).
#[inline]
fn each_chunk(count: usize, mut copy: impl FnMut(usize)) {
    if count <= UNROLLED_CHUNKS {
        for j in crate::unroll(0..UNROLLED_CHUNKS) {
            if j < count {
                copy(j);
            }
        }
    } else {
        for j in 0..count {
            copy(j);
        }
    }
}

/// Tile `tile` of `tiles` (below [`MOST_TILES`]), by selection rather than an index.
#[inline]
fn pick<'a, E>(tiles: &[TileSource<'a, E>; MOST_TILES], tile: usize) -> TileSource<'a, E> {
    if tile == 0 { tiles[0] } else { tiles[1] }
}
