//! [`WarpRegions`]: a block-shared array cut into one region per warp, which each warp uses in
//! phases of its own with `__syncwarp` between them (CUDA's "each warp caches its row in its own
//! slice of shared memory, then `__syncwarp()`"), without stopping the block.
//!
//! Why it cannot race (docs/safety/synchronisation.md, "A warp's shared region"):
//! - **One warp per region.** Warp `w` of the block reaches region `w` only
//!   ([`Shared::warp_region`] computes it from `warp::warp_in_block()`, the same in every lane).
//! - **Ownership in a write phase.** Lane `l` of a warp of `L` lanes owns the region's slots
//!   `l, l + L, ...` (the residue rule over the warp), a partition of the region.
//! - **Warp barriers.** A phase ends with `__syncwarp` over the warp's lanes, a warp collective
//!   that the backend proves every lane reaches ("Warp collectives are warp-uniform"), and
//!   which orders the lanes' memory accesses before it with those after it. The CPU emulator
//!   also checks that the lanes meeting there end the same phase of the same region.
//! - **Initialised.** The first write phase is reached only through `init`, which has every
//!   lane write every slot it owns, so the region holds values when it is first read.

use core::marker::PhantomData;
use core::ops::Deref;

use super::phased::{
    BlockPosition, Shared, SharedElem, SharedLayout, ThisThread, for_each_residue, residue_slot,
};
use crate::host_context;
use crate::warp::{self, WARP_SIZE};

/// `W` regions of `N` slots, one per warp of the block (warp `w` has slots `w·N .. w·N + N`):
/// `Shared<WarpRegions<T, N, W>>`, used through [`Shared::warp_region`]. A block of more than
/// `W` warps leaves its later warps without a region.
///
/// As a block-wide array (`init` and `sync` of `Shared`) its slots are owned by the residue
/// rule of `[T; N·W]`.
#[repr(transparent)]
pub struct WarpRegions<T, const N: usize, const W: usize>([[T; N]; W]);

// SAFETY: as `[T; N·W]`'s: slot `s` is thread `s % n`'s alone, `for_each_own` visits every slot
// of the thread, slots are below `N·W`, and the type is laid out as `N·W` elements.
unsafe impl<T: SharedElem + 'static, const N: usize, const W: usize> SharedLayout
    for WarpRegions<T, N, W>
{
    type Elem = T;
    type Index = usize;
    type Own = usize;
    const LEN: usize = N * W;

    #[inline]
    fn own_slot(k: usize, me: BlockPosition) -> Option<(usize, usize)> {
        let (t, n) = me.linear();
        residue_slot_of(Self::LEN, k, t, n)
    }

    #[inline]
    fn for_each_own(me: BlockPosition, mut f: impl FnMut(usize, usize)) {
        let (t, n) = me.linear();
        let mut slot = t;
        while slot < Self::LEN {
            f(slot, slot);
            slot += n;
        }
    }
}

/// `residue_slot` for a length that is not a const parameter.
#[inline]
fn residue_slot_of(len: usize, k: usize, i: usize, count: usize) -> Option<(usize, usize)> {
    let slot = k.checked_mul(count)?.checked_add(i)?;
    (slot < len).then_some((slot, slot))
}

impl<'k, T: SharedElem + 'static, const N: usize, const W: usize> Shared<'k, WarpRegions<T, N, W>> {
    /// This warp's region, not written yet, or `None` for a warp past the `W`-th. The same in
    /// every lane of a warp, so a branch on it is warp-uniform: warp collectives (and the
    /// region's phases) may follow `let Some(region) = regions.warp_region() else { return };`.
    #[inline]
    pub fn warp_region(self) -> Option<WarpShared<'k, T, N>> {
        let w = warp::warp_in_block() as usize;
        (w < W).then(|| WarpShared {
            // SAFETY (of the region's later accesses): `w < W`, so the region's `N` slots are
            // in the array; only warp `w` computes this `w`.
            base: self.base.wrapping_add(w * N),
            _view: PhantomData,
        })
    }
}

/// A warp's region of a [`WarpRegions`] array, not written yet: [`init`](Self::init) writes it.
#[must_use = "a warp's region is written with `init`"]
pub struct WarpShared<'k, T: SharedElem + 'static, const N: usize> {
    base: *mut T,
    _view: ThisThread<'k, [T; N]>,
}

/// A write phase of a warp's region: lane `l` of the warp's `L` lanes may read and write its
/// slots `l, l + L, ...`; [`sync`](Self::sync) (`__syncwarp`) ends it.
#[must_use = "a write phase ends with `sync`"]
pub struct WarpWrite<'k, T: SharedElem + 'static, const N: usize> {
    base: *mut T,
    /// The phases of the region this lane has ended (the emulator compares it between lanes).
    phase: u64,
    _view: ThisThread<'k, [T; N]>,
}

/// A read phase of a warp's region: every lane of the warp reads every slot (it derefs to
/// `[T; N]`); [`sync`](Self::sync) (`__syncwarp`) ends it.
pub struct WarpRead<'k, T: SharedElem + 'static, const N: usize> {
    base: *mut T,
    phase: u64,
    _view: ThisThread<'k, [T; N]>,
}

/// The calling lane's number in its warp and the warp's lane count.
#[inline]
fn lane_and_lanes() -> (usize, usize) {
    let lanes = warp::existing_lanes().count_ones() as usize;
    (warp::lane_id() as usize, lanes)
}

impl<'k, T: SharedElem + 'static, const N: usize> WarpShared<'k, T, N> {
    /// Writes every slot this lane owns with `value(slot)`, and starts the first write phase.
    #[inline]
    pub fn init(self, mut value: impl FnMut(usize) -> T) -> WarpWrite<'k, T, N> {
        let (lane, lanes) = lane_and_lanes();
        for_each_residue::<N>(lane, lanes, |slot, _| {
            // SAFETY: `slot < N`, in this warp's region, owned by this lane alone (residue
            // `lane` of the warp's lanes); no lane reads the region before the `__syncwarp`
            // that ends this phase.
            unsafe { self.base.add(slot).write(value(slot)) };
        });
        WarpWrite {
            base: self.base,
            phase: 0,
            _view: PhantomData,
        }
    }

    /// [`init`](Self::init) with `value` in every slot.
    #[inline]
    pub fn fill(self, value: T) -> WarpWrite<'k, T, N>
    where
        T: Copy,
    {
        self.init(|_| value)
    }
}

impl<'k, T: SharedElem + 'static, const N: usize> WarpWrite<'k, T, N> {
    /// The lane's `k`-th slot (slot `lane + k·L`), if the region has it.
    #[inline]
    pub fn own_mut(&mut self, k: usize) -> Option<&mut T> {
        let (lane, lanes) = lane_and_lanes();
        let (slot, _) = residue_slot::<N>(k, lane, lanes)?;
        // SAFETY: the slot is in this warp's region and this lane's alone, in a write phase in
        // which no lane reads it; `&mut self` lends it once at a time.
        Some(unsafe { crate::element::element_mut(self.base, slot) })
    }

    /// Ends the write phase with `__syncwarp`: what every lane wrote is visible to all of them.
    /// Every lane of the warp must reach it (the backend checks it, as for a warp collective).
    #[track_caller]
    #[inline]
    pub fn sync(self) -> WarpRead<'k, T, N> {
        end_warp_phase(self.base, self.phase);
        WarpRead {
            base: self.base,
            phase: self.phase + 1,
            _view: PhantomData,
        }
    }
}

impl<'k, T: SharedElem + 'static, const N: usize> WarpRead<'k, T, N> {
    /// Ends the read phase with `__syncwarp`: after it each lane may write its slots again.
    #[track_caller]
    #[inline]
    pub fn sync(self) -> WarpWrite<'k, T, N> {
        end_warp_phase(self.base, self.phase);
        WarpWrite {
            base: self.base,
            phase: self.phase + 1,
            _view: PhantomData,
        }
    }
}

impl<T: SharedElem + 'static, const N: usize> Deref for WarpRead<'_, T, N> {
    type Target = [T; N];

    #[inline]
    fn deref(&self) -> &[T; N] {
        // SAFETY: every slot was written before the `__syncwarp` that began this phase (`init`
        // reached every slot of the region); nobody writes it in a read phase except through
        // the elements' own atomics, and the borrow ends with `self`, before the `__syncwarp`
        // that ends the phase.
        unsafe { &*self.base.cast::<[T; N]>() }
    }
}

/// Ends phase `phase` of the warp's region at `base`: `__syncwarp` over the warp's lanes (a
/// warp collective), after the emulator's check that they all end the same phase of it.
#[track_caller]
#[inline]
fn end_warp_phase<T>(base: *mut T, phase: u64) {
    let tag = (base.addr() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ phase;
    check_warp_phase(warp::existing_lanes(), tag);
    warp::sync();
}

/// The emulator's check (nothing on the GPU, where the backend proved every lane reaches the
/// `__syncwarp` in the same place): the lanes of `mask` publish `tag` (the region and the phase
/// each ends) and each compares the others' with its own.
#[oxide_gpu::emulator_check]
#[track_caller]
#[inline(never)]
fn check_warp_phase(mask: u32, tag: u64) {
    let Some(values) = host_context::warp_exchange(mask, tag) else {
        return;
    };
    for lane in 0..WARP_SIZE {
        if mask & (1 << lane) != 0 && values.get(lane) != Some(tag) {
            panic!(
                "the lanes of a warp end different phases of their warp's shared region at one \
                 `__syncwarp`: lane {lane} ends another phase (or another region) than lane {}",
                warp::lane_id()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::phased::tests::check_partition;

    #[test]
    fn block_wide_ownership_is_the_flat_residue_rule() {
        check_partition::<WarpRegions<u32, 40, 3>>([96, 1, 1], |_| (0..2).collect());
        check_partition::<WarpRegions<u32, 7, 5>>([20, 1, 1], |_| (0..2).collect());
    }

    #[test]
    fn lanes_own_their_residues_of_the_region() {
        // A warp of 20 lanes over 50 slots: every slot once.
        let mut owner = [None; 50];
        for lane in 0..20 {
            for k in 0..3 {
                if let Some((slot, _)) = residue_slot::<50>(k, lane, 20) {
                    assert!(owner[slot].is_none());
                    owner[slot] = Some(lane);
                }
            }
        }
        assert!(owner.iter().all(Option::is_some));
    }
}
