//! Asynchronous copies into shared tiles (`cp.async`), as a multi-stage pipeline whose protocol
//! the library keeps: CUDA's `cuda::pipeline` and CUTLASS's multistage main loop, safe.
//!
//! A kernel parameter `stages: Shared<Stages<T, S>>` is `S` copies of a stage `T`: one tile
//! (`[[Vec8<E>; C]; R]`) or two (`([[Vec8<E>; C1]; R1], [[Vec8<E>; C2]; R2])`, a GEMM's A and B,
//! attention's K and V). `stages.pipeline()` makes the [`Pipeline`]:
//!
//! ```ignore
//! let mut pipe = stages.pipeline();
//! for t in 0..S - 1 {                       // the prologue: start S - 1 stages
//!     pipe.fill(|at| source(t, at));
//! }
//! for t in 0..tiles {
//!     let ready = pipe.wait()               // stage t is complete, for the whole block
//!         .fill(|at| source(t + S - 1, at)); // refill the stage read at t - 1 (once a step)
//!     let (a, b) = ready.tiles();           // ldmatrix from stage t
//!     ...
//! }
//! ```
//!
//! Each `fill` copies, for every 16-byte chunk this thread owns in the next stage (chunk `i` of
//! a stage: thread `i mod T`, so consecutive threads copy consecutive chunks of a row), the
//! chunk its closure names ([`Source`]), as one `cp.async.cg` (16 bytes, the part past the
//! source's end zero-filled), and commits the copies as one group. `wait` waits until this
//! thread's copies of the oldest unread stage are done (`cp.async.wait_group`) and then for the
//! block (`bar.sync`): after it, every thread's copies of that stage are visible to all, and
//! every thread has finished reading the stage before it.
//!
//! What keeps it sound (docs/safety/synchronisation.md, "A pipeline's stages are read only when
//! complete"): a stage is readable only through the [`Ready`] that `wait` returns, which borrows
//! the pipeline, so it is gone before the next `wait`; a `fill` goes only to a stage whose last
//! reads ended before a barrier this thread has passed, never to the stage `Ready` reads; every
//! thread counts its own fills and waits, and one that would read a stage it did not fill, or
//! fill a stage out of turn (a `fill` under a condition, so threads disagree), panics instead;
//! a source that is not 16-byte aligned global memory is copied by plain loads and stores;
//! dropping the pipeline waits for every copy.

use core::cell::Cell;
use core::marker::PhantomData;

use super::ldmatrix::{TileRef, window_of};
use super::swizzle::{SWIZZLE_PERIOD, Swizzled, SwizzledRef, swizzle_fits, swizzled_chunk};
use super::{MmaInput, Vec8};
use crate::shared::{BlockPosition, Shared, SharedLayout};
use crate::thread;

mod copies;
mod fill;
mod source;

pub use source::{Source, TileSource};

/// [`StageTile::rows_apart`] of `T` where its chunks divide evenly among `n` threads.
#[inline]
fn evenly<T: StageTile>(n: usize) -> Option<usize> {
    T::rows_apart(n).filter(|_| T::CHUNKS.is_multiple_of(n))
}

/// `S` copies of a stage `T` in block-shared memory, for a [`Pipeline`].
#[repr(transparent)]
pub struct Stages<T, const S: usize>([T; S]);

mod sealed {
    pub trait Sealed {}
}

/// One tile of a stage: `[[Vec8<E>; C]; R]` (rows of chunks, as the fragment loads read them
/// plainly) or [`Swizzled`]`<[[Vec8<E>; C]; R]>` (the same chunks XOR-swizzled in each row).
pub trait StageTile: sealed::Sealed + Sized + Send + Sync + 'static {
    /// The element type.
    type Elem: MmaInput + Send + Sync;
    /// The tile of a ready stage, as the fragment loads read it.
    type Ref<'a>;
    /// Chunks in the tile.
    const CHUNKS: usize;
    /// The tile's rows and chunks a row: `(R, C)`.
    const EXTENT: (usize, usize);
    /// The logical `(row, chunk)` of the tile's `i`-th chunk in memory.
    fn position(i: usize) -> (usize, usize);
    /// `Some(n / C)` where every chunk `i + n` of the tile lies `n / C` rows below chunk `i`,
    /// in the same logical column: `n` a multiple of the row's `C` chunks (and, swizzled, of 8
    /// rows, the swizzle's period). A fill by `n` threads then walks each thread's chunks by
    /// one stride of the source.
    #[doc(hidden)]
    fn rows_apart(n: usize) -> Option<usize>;
    /// # Safety
    /// `tile` is a tile of block-shared memory that no thread writes for `'a`, every chunk of
    /// it written.
    #[doc(hidden)]
    unsafe fn tile<'a>(tile: *const Self) -> Self::Ref<'a>;
}

impl<E: MmaInput + Send + Sync, const C: usize, const R: usize> sealed::Sealed
    for [[Vec8<E>; C]; R]
{
}

impl<E: MmaInput + Send + Sync, const C: usize, const R: usize> StageTile for [[Vec8<E>; C]; R] {
    type Elem = E;
    type Ref<'a> = TileRef<'a, E, C, R>;
    const CHUNKS: usize = R * C;
    const EXTENT: (usize, usize) = (R, C);

    #[inline]
    fn position(i: usize) -> (usize, usize) {
        (i / C, i % C)
    }

    #[inline]
    fn rows_apart(n: usize) -> Option<usize> {
        (n > 0 && n.is_multiple_of(C)).then_some(n / C)
    }

    #[inline]
    unsafe fn tile<'a>(tile: *const Self) -> TileRef<'a, E, C, R> {
        // SAFETY: the caller's promise.
        unsafe { TileRef::new(&*tile) }
    }
}

impl<E: MmaInput + Send + Sync, const C: usize, const R: usize> sealed::Sealed
    for Swizzled<[[Vec8<E>; C]; R]>
{
}

impl<E: MmaInput + Send + Sync, const C: usize, const R: usize> StageTile
    for Swizzled<[[Vec8<E>; C]; R]>
{
    type Elem = E;
    type Ref<'a> = SwizzledRef<'a, E, C, R>;
    // Checked here, where every pipeline of the tile evaluates them, and not only when a stage
    // is read: a row width the swizzle does not permute would send `position` (and the fills
    // that trust it) past the row's `C` chunks.
    const CHUNKS: usize = R * swizzled_width(C);
    const EXTENT: (usize, usize) = (R, swizzled_width(C));

    #[inline]
    fn position(i: usize) -> (usize, usize) {
        let row = i / C;
        (row, swizzled_chunk(row, i % C, C))
    }

    #[inline]
    fn rows_apart(n: usize) -> Option<usize> {
        // Every width's swizzle repeats after 8 rows (`swizzle::swizzle_mask`).
        (n > 0 && n.is_multiple_of(C) && (n / C).is_multiple_of(SWIZZLE_PERIOD)).then_some(n / C)
    }

    #[inline]
    unsafe fn tile<'a>(tile: *const Self) -> SwizzledRef<'a, E, C, R> {
        // SAFETY: the caller's promise.
        unsafe { SwizzledRef::new(&*tile) }
    }
}

/// `chunks`, a swizzled tile's row width, where the swizzle permutes rows of that many chunks
/// (1, 2, 4 or a multiple of 8); a compile-time error otherwise.
const fn swizzled_width(chunks: usize) -> usize {
    assert!(
        swizzle_fits(chunks),
        "a swizzled tile has 1, 2, 4 or a multiple of 8 chunks a row"
    );
    chunks
}

/// What one stage holds: one tile ([`StageTile`]), or two (`(A, B)`: a GEMM's A and B,
/// attention's K and V).
pub trait StageTiles: tiles_sealed::Sealed + Sized + Send + Sync + 'static {
    /// The element type.
    type Elem: MmaInput + Send + Sync;
    /// The tiles of a ready stage, as the fragment loads read them.
    type Tiles<'a>;
    /// Chunks in a stage.
    const CHUNKS: usize;
    /// Tiles in a stage (1 or 2).
    #[doc(hidden)]
    const TILES: usize;
    /// Tile `tile`'s rows and chunks a row.
    #[doc(hidden)]
    fn extent(tile: usize) -> (usize, usize);
    /// Where chunk `i` of a stage is: `(tile, row, chunk)`, the tiles numbered from 0, the
    /// first tile's chunks first, each tile's in memory order (row by row; a swizzled row's
    /// chunks in their swizzled order).
    fn position(i: usize) -> (usize, usize, usize);
    /// Where chunk `i` (below `CHUNKS`) lies in a stage, in chunks from its start.
    #[doc(hidden)]
    fn slot(i: usize) -> usize;
    /// Tile `tile`'s first chunk in the stage's numbering, and `Some(rows)` where its chunks
    /// divide evenly among `n` threads and each thread's lie `rows` apart in one column
    /// ([`StageTile::rows_apart`]).
    #[doc(hidden)]
    fn strided(tile: usize, n: usize) -> (usize, Option<usize>);
    /// # Safety
    /// `stage` is a stage of block-shared memory that no thread writes for `'a`, every chunk of
    /// it written.
    #[doc(hidden)]
    unsafe fn tiles<'a>(stage: *const Self) -> Self::Tiles<'a>;
}

mod tiles_sealed {
    /// Only the library's stages: its copies and the `SharedLayout` of `Stages` trust
    /// `StageTiles`'s positions, slots and extents.
    pub trait Sealed {}
}

impl<T: StageTile> tiles_sealed::Sealed for T {}
impl<A: StageTile, B: StageTile<Elem = A::Elem>> tiles_sealed::Sealed for (A, B) {}

impl<T: StageTile> StageTiles for T {
    type Elem = T::Elem;
    type Tiles<'a> = T::Ref<'a>;
    const CHUNKS: usize = T::CHUNKS;
    const TILES: usize = 1;

    #[inline]
    fn extent(_: usize) -> (usize, usize) {
        T::EXTENT
    }

    #[inline]
    fn position(i: usize) -> (usize, usize, usize) {
        let (row, chunk) = T::position(i);
        (0, row, chunk)
    }

    #[inline]
    fn slot(i: usize) -> usize {
        i
    }

    #[inline]
    fn strided(_: usize, n: usize) -> (usize, Option<usize>) {
        (0, evenly::<T>(n))
    }

    #[inline]
    unsafe fn tiles<'a>(stage: *const Self) -> T::Ref<'a> {
        // SAFETY: the caller's promise.
        unsafe { T::tile(stage) }
    }
}

impl<A: StageTile, B: StageTile<Elem = A::Elem>> StageTiles for (A, B) {
    type Elem = A::Elem;
    type Tiles<'a> = (A::Ref<'a>, B::Ref<'a>);
    const CHUNKS: usize = A::CHUNKS + B::CHUNKS;
    const TILES: usize = 2;

    #[inline]
    fn extent(tile: usize) -> (usize, usize) {
        if tile == 0 { A::EXTENT } else { B::EXTENT }
    }

    #[inline]
    fn position(i: usize) -> (usize, usize, usize) {
        if i < A::CHUNKS {
            let (row, chunk) = A::position(i);
            (0, row, chunk)
        } else {
            let (row, chunk) = B::position(i - A::CHUNKS);
            (1, row, chunk)
        }
    }

    #[inline]
    fn strided(tile: usize, n: usize) -> (usize, Option<usize>) {
        if tile == 0 {
            (0, evenly::<A>(n))
        } else {
            (A::CHUNKS, evenly::<B>(n))
        }
    }

    #[inline]
    fn slot(i: usize) -> usize {
        // A tuple may order its fields as it likes: each tile starts at its field's offset
        // (a multiple of the 16-byte chunk: both fields are arrays of chunks).
        let chunk = core::mem::size_of::<Vec8<A::Elem>>();
        if i < A::CHUNKS {
            core::mem::offset_of!(Self, 0) / chunk + i
        } else {
            core::mem::offset_of!(Self, 1) / chunk + (i - A::CHUNKS)
        }
    }

    #[inline]
    unsafe fn tiles<'a>(stage: *const Self) -> Self::Tiles<'a> {
        // SAFETY: the caller's promise, for both fields.
        unsafe {
            (
                A::tile(&raw const (*stage).0),
                B::tile(&raw const (*stage).1),
            )
        }
    }
}

/// `Stages<T, S>` as a plain shared array (its `init`): chunk `c` of the array (chunk `i` of
/// stage `s` is `c = s · CHUNKS + i`) is thread `c mod T`'s, the rule a [`Pipeline`]'s fills
/// follow too, and the rule of a `DynShared<Vec8<E>>`'s slots, which a pipeline may also use.
// SAFETY: chunk `c < S · CHUNKS` is owned by thread `c % n` alone; `own_slot` and `for_each_own`
// give a thread exactly those, at slot `s · CHUNKS + slot(i)` (a stage is `CHUNKS` chunks with
// no padding: arrays of 16-byte, 16-aligned chunks, checked in `LEN`), below `LEN`.
unsafe impl<T: StageTiles, const S: usize> SharedLayout for Stages<T, S> {
    type Elem = Vec8<T::Elem>;
    /// `(stage, (tile, row, chunk))`.
    type Index = (usize, (usize, usize, usize));
    /// The `k`-th chunk the thread owns: chunk `t + k·n` of the array.
    type Own = usize;
    const LEN: usize = {
        // A stage is its chunks and nothing else (a tuple of chunk arrays has no padding:
        // checked, as the slots assume it).
        assert!(core::mem::size_of::<T>() == T::CHUNKS * core::mem::size_of::<Vec8<T::Elem>>());
        S * T::CHUNKS
    };

    #[inline]
    fn own_slot(k: usize, me: BlockPosition) -> Option<(usize, Self::Index)> {
        let (t, n) = me.linear();
        let c = k.checked_mul(n)?.checked_add(t)?;
        (c < Self::LEN).then(|| Self::at(c))
    }

    #[inline]
    fn for_each_own(me: BlockPosition, mut f: impl FnMut(usize, Self::Index)) {
        let (t, n) = me.linear();
        let mut c = t;
        while c < Self::LEN {
            let (slot, index) = Self::at(c);
            f(slot, index);
            c += n;
        }
    }

    /// Waits for every copy of this thread (`cp.async.wait_all`): whatever became of its
    /// pipeline (dropped, or forgotten with `mem::forget`), none lands after the block.
    #[inline]
    fn end_of_kernel() {
        copies::wait_all();
    }
}

impl<T: StageTiles, const S: usize> Stages<T, S> {
    /// The slot and the position of chunk `c` of the array.
    #[inline]
    fn at(c: usize) -> (usize, (usize, (usize, usize, usize))) {
        let (stage, i) = (c / T::CHUNKS, c % T::CHUNKS);
        (stage * T::CHUNKS + T::slot(i), (stage, T::position(i)))
    }
}

/// Thread `t`'s (of `n`) first chunk of stage `stage` under the array's rule (chunk `c` of the
/// array is thread `c mod n`'s): the first `i` with `stage · CHUNKS + i ≡ t (mod n)`; its others
/// are every `n`-th after it.
#[inline]
fn first_own_chunk<T: StageTiles>(stage: usize, t: usize, n: usize) -> usize {
    let start = stage * T::CHUNKS % n;
    (t + n - start) % n
}

/// What a pipeline holds of its sources: a borrow of them for `'s`, and `'s` invariant (see
/// `Pipeline::_sources`).
type SourcesFor<'s, E> = (&'s [E], fn(&'s ()));

/// A multi-stage pipeline of asynchronous copies into `S` stages of `T` (see the module).
///
/// `'s` is how long the sources of its copies stay borrowed: until the pipeline is dropped
/// (which waits for the copies), so nothing writes a source while a copy may still read it.
pub struct Pipeline<'k, 's, T: StageTiles, const S: usize> {
    stages: *mut T,
    /// The stages' offset in the `.shared` window (their address on the CPU), for the copies.
    window: usize,
    /// Groups this thread committed: the next fill is group `issued`, into stage `issued % S`.
    issued: Cell<usize>,
    /// Waits this thread passed: stage `waited - 1` is the one being read.
    waited: usize,
    _view: PhantomData<(&'k mut Stages<T, S>, *mut ())>,
    /// Invariant in `'s` (the `fn` argument): covariance would let a `&'p Pipeline` (the
    /// `Ready` a wait gives) shrink `'s` to `'p`, so a `Ready::fill` could take a source that
    /// is written while its copy is still in flight (a review found that race; compile-fail
    /// `mma_source_outlives_ready_fill`).
    _sources: PhantomData<SourcesFor<'s, T::Elem>>,
}

/// The stage the last [`Pipeline::wait`] completed: read it with [`tiles`](Self::tiles), and
/// start the next fill with [`fill`](Self::fill) while reading.
pub struct Ready<'p, 'k, 's, T: StageTiles, const S: usize> {
    pipe: &'p Pipeline<'k, 's, T, S>,
}

impl<'k, T: StageTiles, const S: usize> Shared<'k, Stages<T, S>> {
    /// The stages as an empty pipeline.
    #[inline]
    pub fn pipeline<'s>(self) -> Pipeline<'k, 's, T, S> {
        Pipeline::over(self.base.cast::<T>())
    }
}

impl<'k, T: StageTiles, const S: usize> Pipeline<'k, '_, T, S> {
    /// An empty pipeline over the `S` stages at `stages`: block-shared memory of this block,
    /// which only this pipeline's fills write (each thread its chunks) for `'k`.
    #[inline]
    fn over(stages: *mut T) -> Self {
        const {
            assert!(S >= 1 && S <= 4, "a pipeline has 1 to 4 stages");
            assert!(
                core::mem::size_of::<T>() == T::CHUNKS * core::mem::size_of::<Vec8<T::Elem>>(),
                "a stage is its chunks and nothing else"
            );
        };
        copies::start(stages.addr());
        Pipeline {
            stages,
            window: window_of(stages.cast::<Vec8<T::Elem>>()),
            issued: Cell::new(0),
            waited: 0,
            _view: PhantomData,
            _sources: PhantomData,
        }
    }
}

impl<'k, E: MmaInput> crate::shared::DynShared<'k, Vec8<E>> {
    /// The launch's dynamic shared memory as the `S` stages of `T` of a pipeline, for stages
    /// past the 48 KB of a static array (`hgemm`'s third and fourth stage): pass the launch at
    /// least `S · T::CHUNKS` chunks. Chunk `c` is thread `c mod n`'s, for the fills as for the
    /// array's own `init`.
    ///
    /// # Panics
    /// When the launch gave fewer chunks.
    #[track_caller]
    #[inline]
    pub fn pipeline<'s, T: StageTiles<Elem = E>, const S: usize>(self) -> Pipeline<'k, 's, T, S> {
        let (base, len) = self.into_parts();
        assert!(
            len >= S * T::CHUNKS,
            "a pipeline's stages need more dynamic shared memory than the launch gave"
        );
        Pipeline::over(base.cast::<T>())
    }
}

/// A chunk of block-shared memory. Here, with the copies, because a `DynShared<Vec8<E>>` may
/// hold a pipeline's stages: every copy of this thread lands before the block ends
/// (`cp.async.wait_all`).
impl<E: MmaInput + Send + Sync> crate::shared::SharedElem for Vec8<E> {
    #[inline]
    fn end_of_kernel() {
        copies::wait_all();
    }
}

impl<'s, T: StageTiles, const S: usize> Pipeline<'_, 's, T, S> {
    /// The pipeline's name for the CPU's copies (its stages' address).
    #[inline]
    fn key(&self) -> usize {
        self.stages.addr()
    }

    /// Starts copying the next stage: for each chunk this thread owns in it, the chunk
    /// `source((tile, row, chunk))` names; commits them as one group.
    ///
    /// # Panics
    /// When the next stage may still be read (more than `S` fills ahead of the reads, or a
    /// thread that missed a fill), as every fill of a thread that does not fill with the block.
    #[track_caller]
    #[inline]
    pub fn fill(&mut self, source: impl FnMut((usize, usize, usize)) -> Source<'s, T::Elem>) {
        self.fill_next(source);
    }

    /// [`fill`](Self::fill) by tiles: stage tile `tile` (0, or 0 and 1 for a stage of two)
    /// is copied from the tile `source(tile)` names ([`TileSource`]). Where every tile lies
    /// wholly inside its matrix, each chunk is one `cp.async` with no test of its own.
    ///
    /// # Panics
    /// As [`fill`](Self::fill).
    #[track_caller]
    #[inline]
    pub fn fill_tiles(&mut self, source: impl FnMut(usize) -> TileSource<'s, T::Elem>) {
        self.fill_next_tiles(source);
    }

    /// Waits until the oldest filled stage is complete in every thread of the block (a block
    /// barrier, which every thread must reach), and gives it for reading until the next wait.
    ///
    /// # Panics
    /// When this thread did not fill that stage.
    #[track_caller]
    #[inline]
    pub fn wait(&mut self) -> Ready<'_, '_, 's, T, S> {
        let step = self.waited;
        let issued = self.issued.get();
        assert!(
            issued > step,
            "a pipeline waits for a stage no fill started: fill before each wait"
        );
        // The groups after this stage's may stay in flight.
        copies::wait_group(self.key(), issued - step - 1);
        thread::sync_threads();
        self.waited = step + 1;
        Ready { pipe: self }
    }
}

impl<T: StageTiles, const S: usize> Drop for Pipeline<'_, '_, T, S> {
    /// Waits for this thread's copies: none may land after the block (whose shared memory the
    /// GPU gives to the next block).
    #[inline]
    fn drop(&mut self) {
        copies::wait_group(self.key(), 0);
    }
}

impl<'p, 'k, 's, T: StageTiles, const S: usize> Ready<'p, 'k, 's, T, S> {
    /// The ready stage's tiles, for the fragment loads.
    #[inline]
    pub fn tiles(&self) -> T::Tiles<'_> {
        ready_tiles(self.pipe)
    }

    /// [`Pipeline::fill`] while this stage is read: the next fill goes to another stage. It
    /// takes the `Ready`, so a step fills once (a second fill, which could reach a stage still
    /// being read, does not compile); the [`Filled`] it gives still reads the stage.
    #[track_caller]
    #[inline]
    pub fn fill(
        self,
        source: impl FnMut((usize, usize, usize)) -> Source<'s, T::Elem>,
    ) -> Filled<'p, 'k, 's, T, S> {
        self.pipe.fill_next(source);
        Filled { pipe: self.pipe }
    }

    /// [`fill`](Self::fill) by tiles ([`Pipeline::fill_tiles`]).
    #[track_caller]
    #[inline]
    pub fn fill_tiles(
        self,
        source: impl FnMut(usize) -> TileSource<'s, T::Elem>,
    ) -> Filled<'p, 'k, 's, T, S> {
        self.pipe.fill_next_tiles(source);
        Filled { pipe: self.pipe }
    }
}

/// A ready stage after this step's fill: its tiles, and no further fill until the next wait.
pub struct Filled<'p, 'k, 's, T: StageTiles, const S: usize> {
    pipe: &'p Pipeline<'k, 's, T, S>,
}

impl<T: StageTiles, const S: usize> Filled<'_, '_, '_, T, S> {
    /// The ready stage's tiles, for the fragment loads.
    #[inline]
    pub fn tiles(&self) -> T::Tiles<'_> {
        ready_tiles(self.pipe)
    }
}

/// The tiles of the stage the pipeline's last wait completed.
#[inline]
fn ready_tiles<'r, T: StageTiles, const S: usize>(
    pipe: &'r Pipeline<'_, '_, T, S>,
) -> T::Tiles<'r> {
    let stage = pipe.stages.wrapping_add((pipe.waited - 1) % S);
    // SAFETY: the stage's group is complete in every thread (each waited for its own copies,
    // then the block barrier), every chunk of it was written (each thread filled its chunks of
    // it: `wait` checked this thread did, and a thread that did not panics before that
    // barrier), and no thread writes it before the next wait, which the borrow of `pipe`
    // outlives: a fill goes only to a stage past this one, whose reads ended before this wait's
    // barrier.
    unsafe { T::tiles(stage) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16;

    type Pair = ([[Vec8<bf16>; 3]; 5], [[Vec8<bf16>; 17]; 2]);

    /// Every chunk of every stage has one owner, `own_slot` reaches what `for_each_own`
    /// visits, the slots cover the array, and chunk `c` of the array is thread `c mod n`'s (the
    /// fills' rule, and a `DynShared`'s), for blocks smaller and larger than a stage.
    #[test]
    fn stages_ownership_is_the_fills_partition() {
        fn check<T: StageTiles, const S: usize>(threads: u32) {
            let len = <Stages<T, S> as SharedLayout>::LEN;
            let mut owner = vec![None; len];
            for t in 0..threads {
                let me = BlockPosition::for_test([t, 0, 0], [threads, 1, 1]);
                let mut visited = Vec::new();
                Stages::<T, S>::for_each_own(me, |slot, (stage, at)| {
                    visited.push(slot);
                    assert!(owner[slot].replace(t).is_none(), "slot {slot} owned twice");
                    let i = (0..T::CHUNKS).find(|&i| T::position(i) == at).unwrap();
                    let c = stage * T::CHUNKS + i;
                    assert_eq!(c % threads as usize, t as usize, "stage {stage} chunk {i}");
                    assert_eq!(slot, stage * T::CHUNKS + T::slot(i));
                });
                // The fills walk the same chunks, stage by stage.
                for stage in 0..S {
                    let mut from_fill = Vec::new();
                    let mut i = first_own_chunk::<T>(stage, t as usize, threads as usize);
                    while i < T::CHUNKS {
                        from_fill.push(stage * T::CHUNKS + T::slot(i));
                        i += threads as usize;
                    }
                    let from_layout: Vec<usize> = visited
                        .iter()
                        .copied()
                        .filter(|slot| slot / T::CHUNKS == stage)
                        .collect();
                    assert_eq!(from_fill, from_layout, "thread {t}, stage {stage}");
                }
                let reached: Vec<usize> = (0..len)
                    .map_while(|k| Stages::<T, S>::own_slot(k, me).map(|(s, _)| s))
                    .collect();
                assert_eq!(reached, visited, "thread {t}");
            }
            assert!(owner.iter().all(Option::is_some));
        }
        for threads in [1, 7, 32, 64, 200] {
            check::<Pair, 2>(threads);
            check::<Pair, 3>(threads);
            check::<[[Vec8<bf16>; 5]; 128], 2>(threads);
        }
        assert_eq!(<Pair as StageTiles>::CHUNKS, 15 + 34);
    }

    /// Every chunk's position lies inside its tile's extent, and each position once: what a
    /// fill by tiles trusts (a whole tile's test covers exactly the extent).
    #[test]
    fn positions_cover_the_extents_once() {
        fn check<T: StageTiles>() {
            let mut seen = std::collections::HashSet::new();
            for i in 0..T::CHUNKS {
                let (tile, row, chunk) = T::position(i);
                let (rows, chunks) = T::extent(tile);
                assert!(tile < T::TILES && row < rows && chunk < chunks, "chunk {i}");
                assert!(seen.insert((tile, row, chunk)), "chunk {i} twice");
            }
            let extents: usize = (0..T::TILES).map(|t| T::extent(t).0 * T::extent(t).1).sum();
            assert_eq!(extents, T::CHUNKS);
        }
        check::<[[Vec8<bf16>; 3]; 5]>();
        check::<Swizzled<[[Vec8<bf16>; 1]; 8]>>();
        check::<Swizzled<[[Vec8<bf16>; 2]; 8]>>();
        check::<Swizzled<[[Vec8<bf16>; 4]; 16]>>();
        check::<Swizzled<[[Vec8<bf16>; 8]; 9]>>();
        check::<Swizzled<[[Vec8<bf16>; 16]; 32]>>();
        check::<(
            Swizzled<[[Vec8<bf16>; 4]; 128]>,
            Swizzled<[[Vec8<bf16>; 16]; 32]>,
        )>();
        check::<([[Vec8<bf16>; 5]; 3], Swizzled<[[Vec8<bf16>; 8]; 8]>)>();
    }

    /// Where `strided` says a tile's chunks go `rows` apart among `n` threads, every thread's
    /// chunks of the tile are one column, `rows` rows apart, and the tile divides evenly: what a
    /// fill by tiles trusts when it walks a thread's sources by one stride. And it says so for
    /// the shapes the kernels fill (flash_attn's K and V, hgemm's A and B, 128 threads).
    #[test]
    fn strided_fills_walk_one_column() {
        fn check<T: StageTiles>(n: usize) -> [bool; 2] {
            core::array::from_fn(|tile| {
                if tile >= T::TILES {
                    return false;
                }
                let (start, rows_apart) = T::strided(tile, n);
                let Some(rows_apart) = rows_apart else {
                    return false;
                };
                let (r, c) = T::extent(tile);
                assert_eq!((r * c) % n, 0, "tile {tile}, {n} threads");
                for first in 0..n {
                    let (t0, row0, chunk0) = T::position(start + first);
                    assert_eq!(t0, tile);
                    for j in 0..r * c / n {
                        let i = start + first + j * n;
                        assert_eq!(T::position(i), (tile, row0 + j * rows_apart, chunk0), "{i}");
                        assert_eq!(T::slot(i), T::slot(start + first) + j * n, "{i}");
                    }
                }
                true
            })
        }
        type Kv = Swizzled<[[Vec8<bf16>; 8]; 64]>;
        type Kv128 = Swizzled<[[Vec8<bf16>; 16]; 64]>;
        type Gemm = (
            Swizzled<[[Vec8<bf16>; 4]; 128]>,
            Swizzled<[[Vec8<bf16>; 16]; 32]>,
        );
        assert_eq!(check::<(Kv, Kv)>(128), [true, true]);
        assert_eq!(check::<(Kv128, Kv128)>(128), [true, true]);
        assert_eq!(check::<Gemm>(128), [true, true]);
        assert_eq!(check::<Gemm>(256), [true, true]);
        // A swizzled row of 8 chunks repeats after 8 rows: 32 threads take 4 rows a pass.
        assert_eq!(check::<(Kv, Kv)>(32), [false, false]);
        assert_eq!(check::<[[Vec8<bf16>; 8]; 64]>(32), [true, false]);
        // Threads that do not divide the rows, or the tile.
        assert_eq!(check::<[[Vec8<bf16>; 3]; 5]>(7), [false, false]);
        assert_eq!(check::<[[Vec8<bf16>; 3]; 5]>(6), [false, false]);
        assert_eq!(check::<[[Vec8<bf16>; 3]; 6]>(6), [true, false]);
        assert_eq!(
            check::<([[Vec8<bf16>; 5]; 3], Swizzled<[[Vec8<bf16>; 8]; 8]>)>(5),
            [true, false]
        );
    }
}
