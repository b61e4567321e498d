//! Computed-slot steps of a block-shared array: phases in which a thread writes the slots a map
//! computes from its index, rather than the slots the residue rule gives it. A tree algorithm
//! is a sequence of them with a barrier between each two: a halving reduction (step `s`: thread
//! `t < s` adds slot `t + s` into slot `t`), a Blelloch scan's up-sweep (thread `t` of the step
//! of span `2d` adds slot `2d·t + d - 1` into slot `2d·t + 2d - 1`) and down-sweep, a wavefront
//! inside a tile.
//!
//! Why a step cannot race (docs/safety/synchronisation.md, "Computed-slot steps"):
//! - **One map, injective.** A [`SlotMap`] gives thread `t < writers` (numbered x fastest) the
//!   `len` slots from `stride·t + start`, with `len <= stride` when there is more than one
//!   writer, so no slot is given to two threads. Every thread of the block must use the same
//!   map: the backend rejects a kernel in which the map may differ between threads (it checks
//!   the map's four values as it checks a barrier's condition), and the CPU emulator refuses
//!   to pass the barrier that starts the step unless all the block's threads give it the same.
//! - **Reads see no write of the step.** A thread reads, besides its own slots, only slots
//!   that no thread of the block writes in the step ([`SharedStep::get`] tests it), so a read
//!   never meets a write of another thread.
//! - **Barriers between.** A step starts with a block barrier ([`SharedRead::step`],
//!   [`SharedStep::step`]) and ends with one ([`SharedStep::sync`], or the next step's), like
//!   the other phases, and the backend proves every thread reaches each of them.

use core::marker::PhantomData;

use super::phased::{BlockPosition, SharedElem, SharedRead, ThisThread};
use crate::thread;

/// Which slots each thread writes in a computed-slot step: thread `t` of the block (numbered x
/// fastest), for `t < writers`, owns the `len` slots `stride·t + start ..` (those below the
/// array's length). The same in every thread of the block (the backend checks it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotMap {
    stride: usize,
    start: usize,
    len: usize,
    writers: usize,
}

impl SlotMap {
    /// Thread `t < writers` owns the `len` consecutive slots from `stride·t + start`.
    ///
    /// # Panics
    /// If `len` is 0, or greater than `stride` while there are two writers or more (two threads'
    /// slots would overlap).
    #[track_caller]
    #[inline]
    pub fn new(stride: usize, start: usize, len: usize, writers: usize) -> SlotMap {
        assert!(len >= 1, "a step gives each writer at least one slot");
        assert!(
            len <= stride || writers <= 1,
            "a step's writers' slots overlap: each writer's `len` slots must fit in its `stride`"
        );
        SlotMap {
            stride,
            start,
            len,
            writers,
        }
    }

    /// Thread `t < writers` owns slot `stride·t + start` (a map of one slot each).
    #[track_caller]
    #[inline]
    pub fn affine(stride: usize, start: usize, writers: usize) -> SlotMap {
        SlotMap::new(stride, start, 1, writers)
    }

    /// The `i`-th slot of writer `t`, if it has one and it is below `n`.
    #[inline]
    fn slot(self, t: usize, i: usize, n: usize) -> Option<usize> {
        if t >= self.writers || i >= self.len {
            return None;
        }
        let slot = self.stride.checked_mul(t)?.checked_add(self.start)?;
        let slot = slot.checked_add(i)?;
        (slot < n).then_some(slot)
    }

    /// Whether some writer owns `slot`: `slot = stride·t + start + i` with `t < writers` and
    /// `i < len`. (A writer whose slots' arithmetic overflows owns none, and is counted as
    /// owning them here: reading such a slot is refused, which is safe.)
    #[inline]
    fn is_written(self, slot: usize) -> bool {
        let Some(from) = slot.checked_sub(self.start) else {
            return false;
        };
        if self.writers == 0 {
            return false;
        }
        if self.writers == 1 || self.stride == 0 {
            // One writer (`new` allows no other with `stride = 0`): its `len` slots from
            // `start`, which may reach past `stride`.
            return from < self.len;
        }
        // A tree's strides are powers of two: a shift and a mask instead of a 64-bit division
        // (about 70 instructions on the GPU). The branch is the same in every thread.
        let (t, i) = if self.stride.is_power_of_two() {
            let shift = self.stride.trailing_zeros();
            (from >> shift, from & (self.stride - 1))
        } else {
            (from / self.stride, from % self.stride)
        };
        t < self.writers && i < self.len
    }

    fn words(self) -> [usize; 4] {
        [self.stride, self.start, self.len, self.writers]
    }
}

/// A computed-slot step of a block-shared `[T; N]`: this thread may write the slots the step's
/// [`SlotMap`] gives it and read those and the slots nobody writes in the step.
/// [`sync`](Self::sync) ends it with a block barrier, [`step`](Self::step) starts the next one
/// with a barrier.
#[must_use = "a step ends with `sync` or the next `step`"]
pub struct SharedStep<'k, T: SharedElem + 'static, const N: usize> {
    base: *mut T,
    map: SlotMap,
    /// The calling thread's linear number in its block.
    t: usize,
    _view: ThisThread<'k, [T; N]>,
}

impl<'k, T: SharedElem + 'static, const N: usize> SharedRead<'k, [T; N]> {
    /// Ends the read phase with a block barrier and starts a step in which each thread writes
    /// the slots `map` gives it (docs/safety/synchronisation.md, "Computed-slot steps").
    ///
    /// Every thread of the block must call it, with the same `map`: the backend rejects a kernel
    /// whose map may differ between the threads of a block.
    #[track_caller]
    #[inline]
    pub fn step(self, map: SlotMap) -> SharedStep<'k, T, N> {
        SharedStep::begin(self.base, map)
    }
}

impl<'k, T: SharedElem + 'static, const N: usize> SharedStep<'k, T, N> {
    #[track_caller]
    #[inline]
    fn begin(base: *mut T, map: SlotMap) -> Self {
        let [stride, start, len, writers] = map.words();
        thread::require_block_uniform(stride, start, len, writers);
        thread::begin_step(base.cast(), map.words());
        SharedStep {
            base,
            map,
            t: BlockPosition::current().linear().0,
            _view: PhantomData,
        }
    }

    /// The step's map.
    #[inline]
    pub fn map(&self) -> SlotMap {
        self.map
    }

    /// The slot of this thread's `i`-th slot in the step (`stride·t + start + i`), if it has
    /// it.
    #[inline]
    pub fn own_slot(&self, i: usize) -> Option<usize> {
        self.map.slot(self.t, i, N)
    }

    /// This thread's `i`-th slot in the step, `(slot, &mut element)`, if it has it.
    #[inline]
    pub fn own_mut(&mut self, i: usize) -> Option<(usize, &mut T)> {
        let slot = self.own_slot(i)?;
        // SAFETY: `slot < N`, and the step's map (the same in every thread of the block, the
        // backend proved) gives it to this thread alone; nobody else reads it in the step
        // (`get` refuses written slots of others); `&mut self` lends it once at a time.
        Some((slot, unsafe {
            crate::element::element_mut(self.base, slot)
        }))
    }

    /// Slot `slot`, if this thread may read it in the step: one of its own, or one that no
    /// thread writes in it.
    #[inline]
    pub fn get(&self, slot: usize) -> Option<&T> {
        if slot >= N {
            return None;
        }
        let own = slot
            .checked_sub(self.map.start)
            .zip(self.map.stride.checked_mul(self.t))
            .and_then(|(from, first)| from.checked_sub(first))
            .is_some_and(|i| i < self.map.len && self.t < self.map.writers);
        if !own && self.map.is_written(slot) {
            return None;
        }
        // SAFETY: `slot < N`; every slot was written before the phase began (a step starts
        // from a read phase, which only `init` reaches); the slot is this thread's or nobody
        // writes it in this step, and the borrow ends with `&self`, before the barrier that
        // ends the step.
        Some(unsafe { &*self.base.add(slot) })
    }

    /// Ends the step with a block barrier: every thread may read every slot.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> SharedRead<'k, [T; N]> {
        thread::end_write_phase(self.base.cast());
        SharedRead {
            base: self.base,
            _view: PhantomData,
        }
    }

    /// Ends the step with a block barrier and starts the next one with `map`.
    #[track_caller]
    #[inline]
    pub fn step(self, map: SlotMap) -> SharedStep<'k, T, N> {
        SharedStep::begin(self.base, map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No slot below `n` is given to two threads, `is_written` says exactly which are given to
    /// someone, and `slot` names each of them.
    fn check(map: SlotMap, threads: usize, n: usize) {
        let mut owner = vec![None; n];
        for t in 0..threads {
            for i in 0..map.len {
                if let Some(slot) = map.slot(t, i, n) {
                    assert!(owner[slot].is_none(), "{map:?}: slot {slot} twice");
                    owner[slot] = Some(t);
                }
            }
        }
        for (slot, owner) in owner.iter().enumerate() {
            assert_eq!(map.is_written(slot), owner.is_some(), "{map:?} slot {slot}");
        }
    }

    #[test]
    fn maps_give_each_slot_to_one_thread_at_most() {
        for (stride, start, len, writers) in [
            (1, 0, 1, 128),   // a halving step: t < 128 writes t
            (2, 1, 1, 128),   // up-sweep, span 2: slot 2t + 1
            (16, 15, 1, 16),  // up-sweep, span 16
            (16, 0, 16, 16),  // down-sweep groups of 16
            (5, 3, 4, 50),    // groups of 4 in strides of 5
            (0, 7, 3, 1),     // one writer, no stride
            (1, 0, 64, 1),    // one writer, a serial pass over the array
            (2, 5, 9, 1),     // one writer, more slots than its stride
            (3, 0, 1, 0),     // no writers
            (7, 300, 2, 100), // past the array
        ] {
            check(SlotMap::new(stride, start, len, writers), 256, 256);
        }
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn overlapping_groups_are_refused() {
        let _ = SlotMap::new(2, 0, 3, 2);
    }

    #[test]
    fn overflowing_writers_own_nothing() {
        let map = SlotMap::new(usize::MAX / 2, 0, 1, 4);
        assert_eq!(map.slot(3, 0, usize::MAX), None);
        assert_eq!(map.slot(1, 0, usize::MAX), Some(usize::MAX / 2));
    }
}
