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
/// As a block-wide array (`init` and `sync` of `Shared`) each slot of a warp's region has the
/// owner it has in the warp's own phases (lane `l` of the warp's `L` lanes: slots `l, l + L,
/// ...` of the region), and the regions of warps the block does not have are shared out by the
/// residue rule: so one warp may use its region in phases of its own while another writes its
/// region in a block-wide write phase, and no slot has two writers.
#[repr(transparent)]
pub struct WarpRegions<T, const N: usize, const W: usize>([[T; N]; W]);

/// In a block-wide read phase (after `Shared`'s barrier, which every thread of the block
/// reaches) the regions read as `[[T; N]; W]`.
impl<T, const N: usize, const W: usize> Deref for WarpRegions<T, N, W> {
    type Target = [[T; N]; W];

    #[inline]
    fn deref(&self) -> &[[T; N]; W] {
        &self.0
    }
}

/// The block-wide ownership of [`WarpRegions`] for thread `t` of `n`: its slots in its warp's
/// region (if the warp has one), then its residues of the regions past the block's warps.
struct BlockWide {
    /// The first slot of the thread's warp's region, and the thread's lane and the warp's lanes
    /// (`None` for a warp past the `W`-th).
    region: Option<(usize, usize, usize)>,
    /// The first slot past the block's warps' regions (the residue rule's from there on).
    spare: usize,
    t: usize,
    n: usize,
}

impl BlockWide {
    fn of<const N: usize, const W: usize>(me: BlockPosition) -> Self {
        let (t, n) = me.linear();
        let warp = WARP_SIZE as usize;
        let w = t / warp;
        let lanes = (n - w * warp).min(warp);
        let warps = n.div_ceil(warp);
        BlockWide {
            region: (w < W).then_some((w * N, t % warp, lanes)),
            spare: warps.min(W) * N,
            t,
            n,
        }
    }
}

// SAFETY: a slot of region `w`, for `w` below both `W` and the block's warp count, is lane
// `j % L` of warp `w`'s (`j` its place in the region, `L` the warp's lanes): one thread, which
// exists. A slot `s` past the block's warps' regions is thread `(s - spare) % n`'s alone. So
// ownership is a partition and covers every slot; `for_each_own` visits the thread's slots of
// both kinds, which `own_slot` numbers in the same order; slots are below `N·W`.
unsafe impl<T: SharedElem + 'static, const N: usize, const W: usize> SharedLayout
    for WarpRegions<T, N, W>
{
    type Elem = T;
    type Index = usize;
    type Own = usize;
    const LEN: usize = N * W;

    #[inline]
    fn own_slot(k: usize, me: BlockPosition) -> Option<(usize, usize)> {
        let b = BlockWide::of::<N, W>(me);
        let mut k = k;
        if let Some((first, lane, lanes)) = b.region {
            let in_region = N.saturating_sub(lane).div_ceil(lanes);
            if k < in_region {
                let (j, _) = residue_slot::<N>(k, lane, lanes)?;
                return Some((first + j, first + j));
            }
            k -= in_region;
        }
        let slot = k.checked_mul(b.n)?.checked_add(b.t)?.checked_add(b.spare)?;
        (slot < Self::LEN).then_some((slot, slot))
    }

    #[inline]
    fn for_each_own(me: BlockPosition, mut f: impl FnMut(usize, usize)) {
        let b = BlockWide::of::<N, W>(me);
        if let Some((first, lane, lanes)) = b.region {
            for_each_residue::<N>(lane, lanes, |j, _| f(first + j, first + j));
        }
        let mut slot = b.spare + b.t;
        while slot < Self::LEN {
            f(slot, slot);
            slot += b.n;
        }
    }
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

impl<'k, T: SharedElem + 'static, const N: usize> WarpWrite<'k, T, N> {
    /// Ends this write phase with `__syncwarp` and begins the next, for a phase of the
    /// library's own (the warp-collective stores of `oxide::mma`).
    #[track_caller]
    #[inline]
    pub(crate) fn next_phase(self) -> WarpWrite<'k, T, N> {
        end_warp_phase(self.base, self.phase);
        WarpWrite {
            base: self.base,
            phase: self.phase + 1,
            _view: PhantomData,
        }
    }

    /// The region's first slot, for an instruction that writes the region as a whole warp.
    #[inline]
    pub(crate) fn first_slot(&self) -> *mut T {
        self.base
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

    /// Block-wide, every slot has one owner, whatever the block: fewer warps than regions
    /// (the spare regions shared out), more, a partial last warp.
    #[test]
    fn block_wide_ownership_is_a_partition() {
        let ks = |n: usize| move |_| (0..n).collect::<Vec<_>>();
        check_partition::<WarpRegions<u32, 40, 3>>([96, 1, 1], ks(8));
        check_partition::<WarpRegions<u32, 40, 3>>([80, 1, 1], ks(8));
        check_partition::<WarpRegions<u32, 7, 5>>([20, 1, 1], ks(8));
        check_partition::<WarpRegions<u32, 33, 2>>([128, 1, 1], ks(8));
        check_partition::<WarpRegions<u32, 5, 4>>([8, 3, 2], ks(16));
    }

    /// Block-wide, a warp's region is owned as in the warp's own phases: lane `l` of `L` has
    /// slots `l, l + L, ...` of it. (So a warp in its own phases and a warp in a block-wide
    /// write phase never write one slot.)
    #[test]
    fn block_wide_owners_of_a_region_are_its_warps_lanes() {
        let block = [80, 1, 1];
        for t in 0..80u32 {
            let me = BlockPosition {
                thread: [t, 0, 0],
                block,
            };
            let (w, lane, lanes) = (
                t as usize / 32,
                t as usize % 32,
                (80 - t as usize / 32 * 32).min(32),
            );
            let mut mine = Vec::new();
            <WarpRegions<u32, 50, 4>>::for_each_own(me, |slot, _| mine.push(slot));
            let in_region: Vec<_> = mine.iter().copied().filter(|&s| s / 50 == w).collect();
            let expected: Vec<_> = (lane..50).step_by(lanes).map(|j| w * 50 + j).collect();
            assert_eq!(in_region, expected, "thread {t}");
            assert!(
                mine.iter().all(|&s| s / 50 == w || s >= 3 * 50),
                "thread {t}"
            );
        }
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
