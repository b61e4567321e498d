//! A grid-stride loop over a [`DisjointSlice`]: thread `t` of a grid of `T` threads owns the
//! elements `t`, `t + T`, `t + 2T`, ..., that is element `e` belongs to thread `e mod T`, the
//! same rule as [`DisjointSlice::get_mut`] (thread `t` writes element `t < T`), so a kernel may
//! mix the two freely.

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
        // Saturating: `i + stride` wraps when the grid has more than `2^64 - len` threads (a
        // grid of over 2^63 threads, or a long slice of zero-sized elements), and the wrapped
        // index would be another thread's element. The true sum is then past `len`, as is
        // `usize::MAX`, so the thread's elements end there either way.
        self.next = i.saturating_add(self.stride);
        crate::race::global_write(self.ptr.addr(), i);
        // SAFETY: `i < len`; this thread alone owns the elements `≡ t (mod T)`, and the
        // iterator yields each of them once, while it borrows the slice mutably.
        Some((i, unsafe { crate::element::element_mut(self.ptr, i) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::each_thread;

    #[test]
    fn grid_stride_writes_every_element_once() {
        for (len, blocks, threads) in [(1000, 3, 64), (10, 4, 8), (5, 1, 1), (0, 2, 2)] {
            let mut data = vec![0u32; len];
            each_thread([blocks, 1, 1], [threads, 1, 1], || {
                // SAFETY: the threads run one after another.
                let mut slice = unsafe { DisjointSlice::from_raw_parts(data.as_mut_ptr(), len) };
                for (i, out) in slice.grid_stride(&ThreadIndex::linear()) {
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
}
