//! Writes of several elements per thread into a [`DisjointSlice`], each thread owning a set of
//! elements that no other thread of the launch owns:
//!
//! - [`DisjointSlice::grid_stride`]: elements `t`, `t + T`, `t + 2T`, ... for thread `t` of a
//!   grid of `T` threads (CUDA's grid-stride loop);
//! - [`DisjointSlice::grid_stride_chunks`]: chunks of `C` consecutive elements, chunk `t`,
//!   `t + T`, ... (one chunk per thread when the grid covers the slice); 16-byte chunks load and
//!   store as one vector instruction (slices are 16-byte aligned, `oxide_contract::SLICE_ALIGN`),
//!   so `grid_stride_chunks::<4>` over `f32` is CUDA's `float4` loop.
//!
//! Ownership is a function of the thread's [`ThreadIndex`] and of the grid's shape, which every
//! thread of a launch sees alike: `t ≡ i (mod T)` has one solution `t < T`. The iterators
//! borrow the slice mutably, so a thread holds one such view at a time.

use core::marker::PhantomData;

use crate::thread::threads_in_grid;
use crate::{DisjointSlice, ThreadIndex};

impl<'a, T> DisjointSlice<'a, T> {
    /// This thread's elements of a grid-stride loop: `(i, &mut element)` for `i = t, t + T,
    /// t + 2T, ...` below `len()`, where `t` is `idx` and `T` the grid's thread count.
    ///
    /// ```ignore
    /// for (i, out) in c.grid_stride(&idx) {
    ///     *out = a[i] + b[i];
    /// }
    /// ```
    #[inline]
    pub fn grid_stride(&mut self, idx: &ThreadIndex) -> GridStride<'_, T> {
        GridStride {
            ptr: self.ptr,
            len: self.len,
            next: idx.get(),
            stride: threads_in_grid(),
            _borrow: PhantomData,
        }
    }

    /// This thread's chunks of `C` consecutive elements in a grid-stride loop over chunks:
    /// `(first, &mut [T; C])` for chunk `t, t + T, ...`, `first` being the index of the chunk's
    /// first element; then [`GridStrideChunks::into_remainder`] gives the last `len() % C`
    /// elements to the one thread whose turn they are.
    ///
    /// ```ignore
    /// let mut chunks = c.grid_stride_chunks::<4>(&idx);
    /// for (first, out) in &mut chunks {
    ///     let (x, y) = (a[first..].first_chunk::<4>().unwrap(), ...);
    ///     ...
    /// }
    /// if let Some((first, tail)) = chunks.into_remainder() { ... }
    /// ```
    #[inline]
    pub fn grid_stride_chunks<const C: usize>(
        &mut self,
        idx: &ThreadIndex,
    ) -> GridStrideChunks<'_, T, C> {
        const { assert!(C > 0, "chunks have at least one element") };
        GridStrideChunks {
            ptr: self.ptr,
            len: self.len,
            first_chunk: idx.get(),
            next_chunk: idx.get(),
            stride: threads_in_grid(),
            _borrow: PhantomData,
        }
    }
}

/// The iterator of [`DisjointSlice::grid_stride`].
pub struct GridStride<'s, T> {
    ptr: *mut T,
    len: usize,
    next: usize,
    stride: usize,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<'s, T> Iterator for GridStride<'s, T> {
    type Item = (usize, &'s mut T);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'s mut T)> {
        let i = self.next;
        if i >= self.len {
            return None;
        }
        // `i < len <= isize::MAX` and the stride is at most the grid's thread count: no overflow.
        self.next = i + self.stride;
        // SAFETY: `i < len`; this thread alone owns the elements `≡ t (mod T)`, and the
        // iterator yields each of them once, while it borrows the slice mutably.
        Some((i, unsafe { &mut *self.ptr.add(i) }))
    }
}

/// The iterator of [`DisjointSlice::grid_stride_chunks`].
pub struct GridStrideChunks<'s, T, const C: usize> {
    ptr: *mut T,
    len: usize,
    first_chunk: usize,
    next_chunk: usize,
    stride: usize,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<'s, T, const C: usize> Iterator for GridStrideChunks<'s, T, C> {
    type Item = (usize, &'s mut [T; C]);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'s mut [T; C])> {
        let full_chunks = self.len / C;
        let chunk = self.next_chunk;
        if chunk >= full_chunks {
            return None;
        }
        self.next_chunk = chunk + self.stride;
        let first = chunk * C;
        // SAFETY: elements `first..first + C` are in the slice (`chunk < len / C`); this thread
        // alone owns the chunks `≡ t (mod T)`, each yielded once while the slice is borrowed.
        Some((first, unsafe { &mut *self.ptr.add(first).cast::<[T; C]>() }))
    }
}

impl<'s, T, const C: usize> GridStrideChunks<'s, T, C> {
    /// The last `len() % C` elements, `(first, &mut tail)`, when there are some and this thread
    /// owns them: the partial chunk `len() / C` is this thread's when it is `≡ t (mod T)`.
    #[inline]
    pub fn into_remainder(self) -> Option<(usize, &'s mut [T])> {
        let tail_chunk = self.len / C;
        let first = tail_chunk * C;
        let mine = tail_chunk >= self.first_chunk
            && (tail_chunk - self.first_chunk).is_multiple_of(self.stride);
        if first == self.len || !mine {
            return None;
        }
        // SAFETY: `first..len` is in the slice and is the partial chunk `len / C`, which this
        // thread alone owns (it is `≡ t (mod T)`); `self` borrowed the slice and is consumed.
        Some((first, unsafe {
            core::slice::from_raw_parts_mut(self.ptr.add(first), self.len - first)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_context::{ThreadContext, with_thread_context};

    /// The `(index, value written)` of every element written by every thread of a grid, and
    /// the final contents.
    fn run_grid(
        len: usize,
        blocks: u32,
        threads: u32,
        write: impl Fn(&mut DisjointSlice<'_, u32>, &ThreadIndex),
    ) -> Vec<u32> {
        let mut data = vec![0u32; len];
        for b in 0..blocks {
            for t in 0..threads {
                let ctx = ThreadContext {
                    thread_idx: [t, 0, 0],
                    block_idx: [b, 0, 0],
                    block_dim: [threads, 1, 1],
                    grid_dim: [blocks, 1, 1],
                };
                with_thread_context(ctx, || {
                    // SAFETY: the threads run one after another here.
                    let mut slice =
                        unsafe { DisjointSlice::from_raw_parts(data.as_mut_ptr(), len) };
                    write(&mut slice, &ThreadIndex::linear());
                });
            }
        }
        data
    }

    #[test]
    fn grid_stride_writes_every_element_once() {
        for (len, blocks, threads) in [(1000, 3, 64), (10, 4, 8), (5, 1, 1), (0, 2, 2)] {
            let data = run_grid(len, blocks, threads, |s, idx| {
                for (i, out) in s.grid_stride(idx) {
                    assert!(i < len);
                    *out += 1;
                }
            });
            assert!(
                data.iter().all(|&v| v == 1),
                "{len} {blocks} {threads}: {data:?}"
            );
        }
    }

    #[test]
    fn chunks_and_the_remainder_write_every_element_once() {
        for (len, blocks, threads) in [
            (1000, 3, 64),
            (1003, 2, 32),
            (7, 4, 8),
            (3, 1, 2),
            (4096, 4, 256),
        ] {
            let data = run_grid(len, blocks, threads, |s, idx| {
                let mut chunks = s.grid_stride_chunks::<4>(idx);
                for (first, out) in &mut chunks {
                    for (k, v) in out.iter_mut().enumerate() {
                        assert_eq!(*v, 0);
                        *v = (first + k) as u32 + 1;
                    }
                }
                if let Some((first, tail)) = chunks.into_remainder() {
                    for (k, v) in tail.iter_mut().enumerate() {
                        assert_eq!(*v, 0);
                        *v = (first + k) as u32 + 1;
                    }
                }
            });
            let expected: Vec<u32> = (1..=len as u32).collect();
            assert_eq!(data, expected, "{len} {blocks} {threads}");
        }
    }
}
