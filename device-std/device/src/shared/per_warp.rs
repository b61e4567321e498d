//! [`PerWarp`]: a block-shared array that one lane of each warp writes (CUDA's "lane 0 writes
//! `partial[warp]`").

use core::ops::Deref;

use super::phased::{BlockPosition, SharedElem, SharedLayout, for_each_residue, residue_slot};
use crate::warp::WARP_SIZE;

/// A block-shared array written by the first lane of each warp: `Shared<PerWarp<[T; N]>>`.
/// Slot `s` belongs to lane 0 of warp `s % W` of a block of `W` warps (warps cut from the
/// thread numbering, x fastest, as the hardware cuts them), so each warp writes slots `w`,
/// `w + W`, ... and the other lanes write nothing:
///
/// ```ignore
/// #[kernel(block = "256")]
/// pub fn block_sums(xs: &[f32], mut out: DisjointSlice<f32>, partial: Shared<PerWarp<[f32; 8]>>) {
///     let idx = ThreadIndex::linear();
///     let mine = xs.get(idx.get()).copied().unwrap_or(0.0);
///     let warp_sum = warp::sum(mine);
///     // Lane 0 of warp w writes slot w.
///     let partial = partial.init(|_slot| warp_sum).sync();
///     let block_sum: f32 = partial.iter().sum();
///     ...
/// }
/// ```
///
/// After the barrier every thread reads the whole array (`PerWarp` derefs to it). A block of
/// fewer than `N` warps has its first warps write the remaining slots too (warp `s % W`):
/// `init`'s closure gets the slot, so it can write a neutral value past the block's warps.
/// The rules are `Shared`'s (docs/safety.md, "Shared memory is race-free"): the ownership is a
/// partition of the slots among the block's lane-0 threads, and every slot has an owner.
#[repr(transparent)]
pub struct PerWarp<A>(A);

impl<A> Deref for PerWarp<A> {
    type Target = A;

    #[inline]
    fn deref(&self) -> &A {
        &self.0
    }
}

/// The calling thread's warp and the block's warp count when it is its warp's lane 0.
#[inline]
fn lane_zero(me: BlockPosition) -> Option<(usize, usize)> {
    let (t, n) = me.linear();
    let warp = WARP_SIZE as usize;
    (t % warp == 0).then(|| (t / warp, n.div_ceil(warp)))
}

// SAFETY: slot `s` is owned by thread `32 · (s % W)` alone (lane 0 of warp `s % W`, which exists:
// `32 · (W - 1) < n`); other threads own nothing; `for_each_own` visits `w, w + W, ...` below
// `N`, all of the thread's slots; slots are below `N`, the array's length.
unsafe impl<T: SharedElem + 'static, const N: usize> SharedLayout for PerWarp<[T; N]> {
    type Elem = T;
    type Index = usize;
    type Own = usize;
    const LEN: usize = N;

    #[inline]
    fn own_slot(k: usize, me: BlockPosition) -> Option<(usize, usize)> {
        let (w, warps) = lane_zero(me)?;
        residue_slot::<N>(k, w, warps)
    }

    #[inline]
    fn for_each_own(me: BlockPosition, f: impl FnMut(usize, usize)) {
        if let Some((w, warps)) = lane_zero(me) {
            for_each_residue::<N>(w, warps, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::phased::tests::check_partition;

    #[test]
    fn per_warp_ownership_is_a_partition_among_lane_zeros() {
        let ks = |n: usize| move |_| (0..n).collect::<Vec<_>>();
        check_partition::<PerWarp<[f32; 8]>>([256, 1, 1], ks(1));
        check_partition::<PerWarp<[f32; 8]>>([100, 1, 1], ks(2));
        check_partition::<PerWarp<[u32; 3]>>([32, 4, 2], ks(1));
        check_partition::<PerWarp<[u32; 40]>>([1024, 1, 1], ks(2));
        let me = |t: u32| BlockPosition {
            thread: [t, 0, 0],
            block: [256, 1, 1],
        };
        assert_eq!(PerWarp::<[f32; 8]>::own_slot(0, me(64)), Some((2, 2)));
        assert_eq!(PerWarp::<[f32; 8]>::own_slot(0, me(65)), None);
        assert_eq!(PerWarp::<[f32; 16]>::own_slot(1, me(224)), Some((15, 15)));
        assert_eq!(PerWarp::<[f32; 8]>::own_slot(usize::MAX, me(0)), None);
    }
}
