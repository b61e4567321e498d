//! Safe block-shared memory: arrays declared as kernel parameters, used in phases that the types
//! track.
//!
//! A kernel declares a block-shared array as a parameter of type [`Shared<A>`](Shared), which
//! the launch does not pass (`#[kernel]` makes it `.shared` memory, one copy per block):
//!
//! ```ignore
//! #[kernel]
//! pub fn reverse(values: &[f32], mut out: DisjointSlice<f32>, tile: Shared<[f32; 256]>) {
//!     let idx = ThreadIndex::linear();
//!     let mine = values.get(idx.get()).copied().unwrap_or(0.0);
//!     // Write phase: every thread writes the slots it owns (here slot t for thread t).
//!     let tile = tile.init(|_slot| mine);
//!     // The barrier ends the write phase: every thread may read every slot.
//!     let tile = tile.sync();
//!     let n = thread::block_dim_x() as usize;
//!     let reversed = tile[n - 1 - thread::thread_idx_x() as usize];
//!     if let Some(o) = out.get_mut(idx) {
//!         *o = reversed;
//!     }
//! }
//! ```
//!
//! Why it cannot race (docs/safety.md, "Shared memory is race-free"):
//! - **Ownership.** Each slot has one owner, the thread of the block its position names
//!   ([`SharedLayout`]); in a write phase a thread reaches only its own slots.
//! - **Phases.** A write phase ([`SharedWrite`]) and a read phase ([`SharedRead`]) are different
//!   types; [`SharedWrite::sync`] and [`SharedRead::sync`] are block barriers that turn one into
//!   the other, and the backend proves that every thread of the block reaches every barrier, so
//!   all threads of a block are in the same phase of an array at any time.
//! - **One view per thread.** The only view of an array is the kernel parameter, made once per
//!   thread and launch; it cannot be copied, cloned, sent to another thread or kept after the
//!   launch. A kernel with shared parameters is entered only by its launch (`#[kernel]` makes the
//!   function itself `unsafe` to call), so no thread holds two views of one array.
//! - **Initialisation.** A read phase is reached only through [`Shared::init`], which has every
//!   thread write every slot it owns, and every slot has an owner: nothing reads memory that the
//!   block did not write.

use core::marker::PhantomData;
use core::ops::Deref;

use super::SharedArray;
use crate::thread;

/// A value that can live in block-shared memory: written by one thread, then read (by
/// reference) by all the threads of the block. Integers, floats, `bool` and the `core` atomics
/// are; implement it for a type of your own that is `Send` and `Sync` (it says nothing more).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of block-shared memory",
    label = "not a `SharedElem`",
    note = "integers, floats (`bf16`, `f16`, `e4m3` and `e5m2` too), `bool`, the integer atomics and `AtomicF32`/`AtomicF64` are; a type of your own that is `Send` and `Sync` can `impl oxide::shared::SharedElem`"
)]
pub trait SharedElem: Sized + Send + Sync {
    /// What every thread does when the kernel's body has returned, for a `DynShared` array of
    /// these: nothing, except for elements that asynchronous copies may still be writing
    /// (`oxide::mma::Vec8` waits for them).
    #[doc(hidden)]
    #[inline]
    fn end_of_kernel() {}
}

macro_rules! shared_elems {
    ($($t:ty),*) => {$( impl SharedElem for $t {} )*};
}
shared_elems!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool
);
shared_elems!(crate::bf16, crate::f16, crate::e4m3, crate::e5m2);
shared_elems!(
    core::sync::atomic::AtomicU32,
    core::sync::atomic::AtomicI32,
    core::sync::atomic::AtomicU64,
    core::sync::atomic::AtomicI64,
    core::sync::atomic::AtomicUsize,
    core::sync::atomic::AtomicBool,
    crate::atomic::AtomicF32,
    crate::atomic::AtomicF64
);

/// Where the calling thread is in its block: what decides which slots it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPosition {
    /// `threadIdx` (x, y, z).
    pub thread: [u32; 3],
    /// `blockDim` (x, y, z).
    pub block: [u32; 3],
}

impl BlockPosition {
    /// The calling thread's position.
    #[inline]
    pub fn current() -> BlockPosition {
        BlockPosition {
            thread: [
                thread::thread_idx_x(),
                thread::thread_idx_y(),
                thread::thread_idx_z(),
            ],
            block: [
                thread::block_dim_x(),
                thread::block_dim_y(),
                thread::block_dim_z(),
            ],
        }
    }

    /// The position of thread `thread` in a block of `block` threads (for tests of layouts).
    #[cfg(test)]
    pub(crate) fn for_test(thread: [u32; 3], block: [u32; 3]) -> BlockPosition {
        BlockPosition { thread, block }
    }

    /// The thread's linear number in its block (x fastest), and the block's thread count.
    #[inline]
    pub(crate) fn linear(self) -> (usize, usize) {
        let [x, y, z] = self.thread;
        let [bx, by, bz] = self.block;
        let (x, y, z) = (x as usize, y as usize, z as usize);
        let (bx, by, bz) = (bx as usize, by as usize, bz as usize);
        ((z * by + y) * bx + x, bx * by * bz)
    }

    /// `(x, y, z)` of the thread and `(bx, by)` of the block, as `usize`.
    #[inline]
    fn xyz_and_plane(self) -> ([usize; 3], [usize; 2]) {
        let [x, y, z] = self.thread;
        let [bx, by, _] = self.block;
        (
            [x as usize, y as usize, z as usize],
            [bx as usize, by as usize],
        )
    }
}

/// The shape of a block-shared array and which thread owns each slot.
///
/// # Safety
/// An implementation promises, for every block shape:
/// - *ownership is a partition*: no slot is owned by two threads of a block (the
///   [`own_slot`](Self::own_slot) of two different positions never names one slot);
/// - *every slot has an owner*, and [`for_each_own`](Self::for_each_own) visits each slot its
///   thread owns, so that after every thread ran it every slot has been written;
/// - slots are below [`LEN`](Self::LEN), the number of `Elem`s in `Self`, laid out as an array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a block-shared array",
    label = "not an array",
    note = "a shared array is `Shared<[T; N]>`, `Shared<[[T; C]; R]>` (R rows of C), `Shared<PerWarp<[T; N]>>` (one writer per warp) or `Shared<WarpRegions<T, N, W>>` (a region per warp)"
)]
pub unsafe trait SharedLayout: Sized + 'static {
    /// The element type.
    type Elem: SharedElem;
    /// A position in the array: `usize` for `[T; N]`, `(row, col)` for `[[T; C]; R]`.
    type Index: Copy;
    /// Which of its slots a thread means: the `k` of its `k`-th slot (`usize` for `[T; N]`),
    /// or `(i, j)` for `[[T; C]; R]`.
    type Own: Copy;
    /// Elements in the array.
    const LEN: usize;
    /// The flat slot and the position of the thread's `own` slot, if it has one.
    fn own_slot(own: Self::Own, me: BlockPosition) -> Option<(usize, Self::Index)>;
    /// Calls `f` with the flat slot and the position of every slot the thread owns.
    fn for_each_own(me: BlockPosition, f: impl FnMut(usize, Self::Index));

    /// What every thread does when the kernel's body has returned: nothing, except for arrays
    /// that asynchronous copies may still be writing (`oxide::mma::Stages` waits for them).
    #[doc(hidden)]
    #[inline]
    fn end_of_kernel() {}
}

/// `[T; N]`: thread `t` of a block of `n` threads (numbered x fastest) owns slots `t`, `t + n`,
/// `t + 2n`, ... below `N`.
// SAFETY: slot `s` is owned by thread `s % n` alone (`t < n`), which exists; `for_each_own`
// visits `t, t + n, ...` below `N`, all of them.
unsafe impl<T: SharedElem + 'static, const N: usize> SharedLayout for [T; N] {
    type Elem = T;
    type Index = usize;
    type Own = usize;
    const LEN: usize = N;

    #[inline]
    fn own_slot(k: usize, me: BlockPosition) -> Option<(usize, usize)> {
        let (t, n) = me.linear();
        residue_slot::<N>(k, t, n)
    }

    #[inline]
    fn for_each_own(me: BlockPosition, f: impl FnMut(usize, usize)) {
        let (t, n) = me.linear();
        for_each_residue::<N>(t, n, f);
    }
}

/// The `k`-th of the slots `i, i + count, i + 2·count, ...` below `N` (as slot and position),
/// if there is one: member `i` of `count` writers owning an array of `N` by residue.
#[inline]
pub(super) fn residue_slot<const N: usize>(
    k: usize,
    i: usize,
    count: usize,
) -> Option<(usize, usize)> {
    let slot = k.checked_mul(count)?.checked_add(i)?;
    (slot < N).then_some((slot, slot))
}

/// Calls `f` with every slot `i, i + count, ...` below `N` (as slot and position).
#[inline]
pub(super) fn for_each_residue<const N: usize>(
    i: usize,
    count: usize,
    mut f: impl FnMut(usize, usize),
) {
    // A count of rounds that is a constant when `count` is (a `block = "..."` contract), so
    // that the loop unrolls and its loads are issued together.
    for k in 0..N.div_ceil(count) {
        let slot = i + k * count;
        if slot < N {
            f(slot, slot);
        }
    }
}

/// `[[T; C]; R]`, `R` rows of `C`: thread `(x, y, 0)` of a block of `bx × by` threads owns
/// `(y + i·by, x + j·bx)` for every `i`, `j` in range (a 32 × 8 block owns a 32 × 32 tile,
/// each thread four rows of one column). An array narrower than the block (`C < bx`) is owned
/// as its `R · C` slots in row-major order, as `[T; R · C]`: thread `t = x + bx·y` owns slots
/// `t`, `t + bx·by`, ... (its `(i, 0)`-th is the `i`-th of them), so that every thread takes a
/// share (by columns, a 128-thread block would leave 119 of its threads idle over a tile of 9
/// chunks a row, and 9 threads writing all 128 rows one after the other). Threads with `z > 0`
/// own nothing.
// SAFETY: where `C >= bx`, `(row, col)` is owned by thread `(col % bx, row % by, 0)` alone,
// which exists; where `C < bx`, slot `s` by thread `s % (bx·by)` of the plane `z = 0` alone.
// `for_each_own` visits every slot of the thread under the same rule; slot `< R * C`.
unsafe impl<T: SharedElem + 'static, const C: usize, const R: usize> SharedLayout for [[T; C]; R] {
    type Elem = T;
    type Index = (usize, usize);
    type Own = (usize, usize);
    const LEN: usize = R * C;

    #[inline]
    fn own_slot((i, j): (usize, usize), me: BlockPosition) -> Option<(usize, (usize, usize))> {
        let ([x, y, z], [bx, by]) = me.xyz_and_plane();
        if C < bx {
            let slot = i.checked_mul(bx * by)?.checked_add(y * bx + x)?;
            return (z == 0 && j == 0 && slot < R * C).then_some((slot, (slot / C, slot % C)));
        }
        let row = i.checked_mul(by)?.checked_add(y)?;
        let col = j.checked_mul(bx)?.checked_add(x)?;
        (z == 0 && row < R && col < C).then_some((row * C + col, (row, col)))
    }

    #[inline]
    fn for_each_own(me: BlockPosition, mut f: impl FnMut(usize, (usize, usize))) {
        let ([x, y, z], [bx, by]) = me.xyz_and_plane();
        if z != 0 {
            return;
        }
        if C < bx {
            // A count of rounds that is a constant when the block's shape is (as above).
            let (t, n) = (y * bx + x, bx * by);
            for k in 0..(R * C).div_ceil(n) {
                let slot = t + k * n;
                if slot < R * C {
                    f(slot, (slot / C, slot % C));
                }
            }
            return;
        }
        // Counts of rounds that are constants when the block's shape is (as above).
        for i in 0..R.div_ceil(by) {
            let row = y + i * by;
            for j in 0..C.div_ceil(bx) {
                let col = x + j * bx;
                if row < R && col < C {
                    f(row * C + col, (row, col));
                }
            }
        }
    }
}

/// Keeps a view on the thread that made it (`!Send`, `!Sync`) and invariant in `A`.
pub(super) type ThisThread<'k, A> = PhantomData<(&'k mut A, *mut ())>;

/// A block-shared array `A` (`[T; N]` or `[[T; C]; R]`), not written yet: the kernel
/// parameter. [`init`](Self::init) writes the slots this thread owns and starts the first write
/// phase.
///
/// `'k` is the kernel's call: a view cannot outlive it.
#[must_use = "a shared array is written with `init`"]
pub struct Shared<'k, A: SharedLayout> {
    pub(crate) base: *mut A::Elem,
    _view: ThisThread<'k, A>,
}

/// The write phase of a block-shared array: this thread may read and write the slots it owns,
/// and no others; [`sync`](Self::sync) (a block barrier) ends the phase.
#[must_use = "a write phase ends with `sync`"]
pub struct SharedWrite<'k, A: SharedLayout> {
    pub(super) base: *mut A::Elem,
    pub(super) _view: ThisThread<'k, A>,
}

/// The read phase of a block-shared array: every thread of the block may read every slot (it
/// derefs to `A`, so `tile[i]`, `tile[row][col]` and `tile.iter()` work); nobody writes, except
/// through the elements' own atomics. [`sync`](Self::sync) (a block barrier) ends the phase.
pub struct SharedRead<'k, A: SharedLayout> {
    pub(super) base: *mut A::Elem,
    pub(super) _view: ThisThread<'k, A>,
}

impl<'k, A: SharedLayout> Shared<'k, A> {
    /// The calling thread's view of its block's copy of `storage`. What `#[kernel]` calls, once
    /// per shared parameter at the start of the kernel.
    ///
    /// # Safety
    /// Called once per thread for `storage` in a launch, by the function the launch entered,
    /// and `storage` is used by nothing else: then this is the thread's only view of its
    /// block's copy.
    #[doc(hidden)]
    #[inline]
    pub unsafe fn claim(storage: &'static SharedArray<A, 1>, _call: &'k ()) -> Self {
        Shared {
            base: storage.as_mut_ptr().cast(),
            _view: PhantomData,
        }
    }

    /// Writes every slot this thread owns with `value(position)`, and starts the first write
    /// phase. (Every thread of the block does: the barrier that ends the phase needs all of
    /// them, so after it every slot of the array holds a value.)
    #[inline]
    pub fn init(self, mut value: impl FnMut(A::Index) -> A::Elem) -> SharedWrite<'k, A> {
        A::for_each_own(BlockPosition::current(), |slot, position| {
            // SAFETY: `slot < A::LEN`, owned by this thread alone (`SharedLayout`), and no
            // thread reads the array before the barrier that ends this phase.
            unsafe { self.base.add(slot).write(value(position)) };
        });
        SharedWrite {
            base: self.base,
            _view: PhantomData,
        }
    }

    /// [`init`](Self::init) with `value` in every slot.
    #[inline]
    pub fn fill(self, value: A::Elem) -> SharedWrite<'k, A>
    where
        A::Elem: Copy,
    {
        self.init(|_| value)
    }
}

impl<'k, A: SharedLayout> SharedWrite<'k, A> {
    /// The thread's `own`-th slot (see [`SharedLayout`]: for `[T; N]`, slot `t + own·n`), or
    /// `None` when the thread has no such slot.
    #[inline]
    pub fn own_mut(&mut self, own: A::Own) -> Option<&mut A::Elem> {
        let (slot, _) = A::own_slot(own, BlockPosition::current())?;
        // SAFETY: the slot is in the array and owned by this thread alone, in a write phase in
        // which no other thread reads it; `&mut self` allows one such borrow at a time.
        Some(unsafe { crate::element::element_mut(self.base, slot) })
    }

    /// The position in the array of the thread's `own`-th slot, if it has one.
    #[inline]
    pub fn own_position(&self, own: A::Own) -> Option<A::Index> {
        A::own_slot(own, BlockPosition::current()).map(|(_, position)| position)
    }

    /// Ends the write phase with a block barrier (`__syncthreads`): what every thread wrote is
    /// visible to all of them. Every thread of the block must reach it, as any barrier.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> SharedRead<'k, A> {
        thread::end_write_phase(self.base.cast());
        SharedRead {
            base: self.base,
            _view: PhantomData,
        }
    }
}

impl<'k, A: SharedLayout> SharedRead<'k, A> {
    /// Ends the read phase with a block barrier: after it, each thread may write its own slots
    /// again. Every thread of the block must reach it, as any barrier.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> SharedWrite<'k, A> {
        thread::end_read_phase(self.base.cast());
        SharedWrite {
            base: self.base,
            _view: PhantomData,
        }
    }
}

impl<A: SharedLayout> Deref for SharedRead<'_, A> {
    type Target = A;

    #[inline]
    fn deref(&self) -> &A {
        // SAFETY: every slot was written before the barrier that began this phase (`init`
        // reached every slot), nobody writes in a read phase except through atomics, and the
        // borrow ends with `self`, before the barrier that ends the phase.
        unsafe { &*self.base.cast::<A>() }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn pos(thread: [u32; 3], block: [u32; 3]) -> BlockPosition {
        BlockPosition { thread, block }
    }

    /// Every slot of `A` is owned by exactly one thread of `block`, and `own_slot` reaches the
    /// slots `for_each_own` visits.
    pub(in crate::shared) fn check_partition<A: SharedLayout>(
        block: [u32; 3],
        owns: impl Fn(BlockPosition) -> Vec<A::Own>,
    ) {
        let mut owner = vec![None; A::LEN];
        for z in 0..block[2] {
            for y in 0..block[1] {
                for x in 0..block[0] {
                    let me = pos([x, y, z], block);
                    let mut visited = Vec::new();
                    A::for_each_own(me, |slot, _| visited.push(slot));
                    for slot in &visited {
                        assert!(owner[*slot].is_none(), "slot {slot} has two owners");
                        owner[*slot] = Some(me);
                    }
                    let reached: Vec<usize> = owns(me)
                        .into_iter()
                        .filter_map(|own| A::own_slot(own, me).map(|(s, _)| s))
                        .collect();
                    assert_eq!(reached, visited, "thread {me:?}");
                }
            }
        }
        assert!(owner.iter().all(Option::is_some), "a slot without owner");
    }

    #[test]
    fn one_dimensional_ownership_is_a_partition() {
        let ks = |n: usize| move |_| (0..n).collect::<Vec<_>>();
        check_partition::<[u32; 256]>([256, 1, 1], ks(4));
        check_partition::<[u32; 1000]>([128, 1, 1], ks(16));
        check_partition::<[u32; 100]>([8, 4, 2], ks(8));
        check_partition::<[u32; 10]>([64, 1, 1], ks(2));
        assert_eq!(
            <[u32; 10]>::own_slot(usize::MAX, pos([1, 0, 0], [64, 1, 1])),
            None
        );
    }

    /// Every thread's `(i, j)` for `i < rows`, `j < cols`: the `own`s to try of a 2-D array.
    fn ij(rows: usize, cols: usize) -> impl Fn(BlockPosition) -> Vec<(usize, usize)> {
        move |_| {
            (0..rows)
                .flat_map(|i| (0..cols).map(move |j| (i, j)))
                .collect()
        }
    }

    #[test]
    fn two_dimensional_ownership_is_a_partition() {
        check_partition::<[[f32; 33]; 32]>([32, 8, 1], ij(4, 2));
        check_partition::<[[f32; 18]; 18]>([16, 16, 1], ij(2, 2));
        check_partition::<[[u8; 5]; 3]>([4, 2, 3], ij(2, 2));
        // A 32 x 8 block: thread (x, y) owns rows y, y + 8, y + 16, y + 24 of column x.
        let me = pos([5, 3, 0], [32, 8, 1]);
        assert_eq!(
            <[[f32; 33]; 32]>::own_slot((2, 0), me),
            Some((19 * 33 + 5, (19, 5)))
        );
        assert_eq!(<[[f32; 33]; 32]>::own_slot((4, 0), me), None);
        assert_eq!(
            <[[f32; 33]; 32]>::own_slot((0, 0), pos([5, 3, 1], [32, 8, 2])),
            None
        );
    }

    /// An array narrower than the block is shared out by its row-major slots, so every thread
    /// of the plane `z = 0` takes a share.
    #[test]
    fn a_narrow_array_is_owned_by_slots() {
        check_partition::<[[u32; 9]; 128]>([128, 1, 1], ij(10, 2));
        check_partition::<[[u32; 3]; 64]>([32, 4, 1], ij(3, 1));
        check_partition::<[[u8; 5]; 3]>([8, 2, 2], ij(2, 2));
        check_partition::<[[u8; 1]; 7]>([2, 1, 1], ij(4, 1));
        // Flash attention's Q tile of 9 chunks a row, 128 threads: thread 20 owns slots 20,
        // 148, ..., the 2nd of them row 16, chunk 4; every thread 9 slots, and only `(i, 0)`.
        let me = pos([20, 0, 0], [128, 1, 1]);
        assert_eq!(
            <[[u32; 9]; 128]>::own_slot((1, 0), me),
            Some((148, (16, 4)))
        );
        assert_eq!(<[[u32; 9]; 128]>::own_slot((1, 1), me), None);
        assert_eq!(<[[u32; 9]; 128]>::own_slot((9, 0), me), None);
        let mut count = 0;
        <[[u32; 9]; 128]>::for_each_own(me, |_, _| count += 1);
        assert_eq!(count, 9);
    }
}
