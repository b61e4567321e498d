//! Compare-exchange networks: an output seen as pairs of elements a power of two apart, each
//! pair owned by one thread (a step of a bitonic sort, of an odd-even merge).

use core::marker::PhantomData;

use crate::ThreadIndex;

/// An output written as pairs: with the launch's distance `d` (a power of two, from the host's
/// `oxide::host::Pairs::new(&mut buf, d)?`), thread `p` (its linear index in the grid) owns
/// the pair `(lo, hi = lo + d)` where `lo` is `p` with a zero bit inserted at `d`'s position:
/// `lo = (p & !(d - 1)) << 1 | (p & (d - 1))`, so `lo` has bit `d` clear and `hi = lo ^ d`
/// (CUDA's "thread `i` swaps `i` and `i ^ j` when `i < i ^ j`", with one thread per pair
/// instead of one per element). Every element is in exactly one pair: the pairs partition the
/// buffer, and the last pairs of a buffer whose length is not a multiple of `2d` are incomplete
/// and nobody's.
///
/// Layout: as [`DisjointRows`](crate::DisjointRows), the distance in the place of the width
/// (docs/contracts.md).
#[repr(C)]
pub struct DisjointPairs<'a, T> {
    ptr: *mut T,
    len: usize,
    distance: usize,
    _marker: PhantomData<&'a mut [T]>,
}

crate::param::output_param!(DisjointPairs<'a, T>, words 1);

impl<'a, T> DisjointPairs<'a, T> {
    /// Wraps `len` elements at `ptr` as pairs `distance` apart for `'a`. Kernels never call
    /// this: their arguments are built by the launch. It exists for the host emulator and for
    /// tests.
    ///
    /// # Safety
    /// As [`crate::DisjointSlice::from_raw_parts`], and `distance` is a power of two; every
    /// thread sees the same `ptr`, `len` and `distance`.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, distance: usize) -> Self {
        DisjointPairs {
            ptr,
            len,
            distance,
            _marker: PhantomData,
        }
    }

    len_methods!("of the whole buffer");

    /// How far apart the elements of a pair are.
    #[inline]
    pub fn distance(&self) -> usize {
        self.distance
    }

    /// This thread's pair: `(lo, &mut element lo, &mut element lo + distance)`, or `None`
    /// when the pair does not lie wholly inside the buffer.
    #[track_caller]
    #[inline]
    pub fn pair_mut(&mut self, idx: ThreadIndex) -> Option<(usize, &mut T, &mut T)> {
        let p = idx.get();
        let low_bits = self.distance - 1;
        let lo = (p & !low_bits).checked_mul(2)? | (p & low_bits);
        let hi = lo.checked_add(self.distance)?;
        if hi < self.len {
            crate::race::global_write(self.ptr.addr(), lo);
            crate::race::global_write(self.ptr.addr(), hi);
            // SAFETY: `lo < hi < len`; the map from a thread's index to its pair is one to one
            // and no two pairs share an element (the distance is a power of two, which the
            // host checked), and `idx` is this thread's own index, so no other thread reaches
            // either element; `&mut self` lends them once, and they are distinct.
            Some(unsafe {
                (
                    lo,
                    crate::element::element_mut(self.ptr, lo),
                    crate::element::element_mut(self.ptr, hi),
                )
            })
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::each_thread;

    #[test]
    fn the_pairs_partition_the_buffer() {
        for (len, distance, blocks, threads) in [
            (64, 1, 1, 32),
            (64, 8, 2, 16),
            (100, 4, 4, 16),
            (8, 16, 1, 8),
        ] {
            let mut seen = vec![0u32; len];
            each_thread([blocks, 1, 1], [threads, 1, 1], || {
                // SAFETY: the threads run one after another; `distance` is a power of two.
                let mut pairs =
                    unsafe { DisjointPairs::from_raw_parts(seen.as_mut_ptr(), len, distance) };
                if let Some((lo, a, b)) = pairs.pair_mut(ThreadIndex::linear()) {
                    assert_eq!(lo & distance, 0, "lo has the distance's bit clear");
                    *a += 1;
                    *b += 1;
                }
            });
            let complete = len / (2 * distance) * 2 * distance;
            let threads_total = (blocks * threads) as usize;
            for (e, &count) in seen.iter().enumerate() {
                // An element of a complete pair is written once, if its pair's thread exists.
                let pair = (e / (2 * distance)) * distance + e % distance;
                let expected = u32::from(e < complete && pair < threads_total);
                assert_eq!(count, expected, "{len} {distance}: element {e}");
            }
        }
    }
}
