//! [`DisjointChunks<T, C>`]: an output written in chunks of `C` consecutive elements, chunk `q`
//! by thread `q mod T` of a grid of `T` threads (one chunk per thread when the grid covers the
//! slice). 16-byte chunks load and store as one vector instruction (slices are 16-byte aligned,
//! `oxide_contract::SLICE_ALIGN`): `DisjointChunks<f32, 4>` is CUDA's `float4` loop.

use core::marker::PhantomData;

use crate::ThreadIndex;
use crate::thread::threads_in_grid;

/// An output slice that the threads of a launch write in chunks of `C` consecutive elements:
/// chunk `q` (elements `q·C .. q·C + C`) belongs to thread `q mod T`, `T` being the grid's
/// thread count; the last `len() % C` elements, a partial chunk, to the thread whose turn it is.
///
/// The chunk size is part of the type, so every thread of a launch uses the same one. The
/// launch passes a `&mut DeviceBuffer<T>` for it, as for a `DisjointSlice<T>`, and has the same
/// layout and ABI (docs/contracts.md).
#[repr(C)]
pub struct DisjointChunks<'a, T, const C: usize> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<&'a mut [T]>,
}

crate::param::output_param!(DisjointChunks<'a, T, const C>, words 0, counted);

impl<'a, T, const C: usize> DisjointChunks<'a, T, C> {
    /// Wraps `len` elements at `ptr` for `'a`. Kernels never call this: their arguments are
    /// built by the launch. It exists for the host emulator and for tests.
    ///
    /// # Safety
    /// As [`crate::DisjointSlice::from_raw_parts`]: valid for `'a`, the same `ptr` and `len` in
    /// every thread, distinct thread indices, nothing else accessing the memory meanwhile.
    #[inline]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        const { assert!(C > 0, "chunks have at least one element") };
        DisjointChunks {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    len_methods!("of the whole slice");

    /// This thread's whole chunks, `(first, &mut [T; C])` for chunk `t, t + T, ...` (`first` is
    /// the index of the chunk's first element); then [`ChunkStride::into_remainder`] gives the
    /// partial last chunk to its thread.
    ///
    /// ```ignore
    /// let mut chunks = c.grid_stride(&idx);
    /// for (first, out) in &mut chunks { /* out: &mut [f32; 4] */ }
    /// if let Some((first, tail)) = chunks.into_remainder() { /* tail: &mut [f32] */ }
    /// ```
    #[inline]
    pub fn grid_stride(&mut self, idx: &ThreadIndex) -> ChunkStride<'_, T, C> {
        ChunkStride {
            ptr: self.ptr,
            len: self.len,
            first_chunk: idx.get(),
            next_chunk: idx.get(),
            stride: threads_in_grid(),
            _borrow: PhantomData,
        }
    }
}

/// The iterator of [`DisjointChunks::grid_stride`].
pub struct ChunkStride<'s, T, const C: usize> {
    ptr: *mut T,
    len: usize,
    first_chunk: usize,
    next_chunk: usize,
    stride: usize,
    _borrow: PhantomData<&'s mut [T]>,
}

impl<'s, T, const C: usize> Iterator for ChunkStride<'s, T, C> {
    type Item = (usize, &'s mut [T; C]);

    #[track_caller]
    #[inline]
    fn next(&mut self) -> Option<(usize, &'s mut [T; C])> {
        let chunk = self.next_chunk;
        if chunk >= self.len / C {
            return None;
        }
        // Saturating, as in `GridStride`: a wrapped sum would be another thread's chunk.
        self.next_chunk = chunk.saturating_add(self.stride);
        let first = chunk * C;
        report_writes::<T>(self.ptr, first, C);
        // SAFETY: elements `first..first + C` are in the slice (`chunk < len / C`); this thread
        // alone owns the chunks `≡ t (mod T)`, each yielded once while the slice is borrowed.
        Some((first, unsafe {
            crate::element::element_mut(self.ptr.add(first).cast::<[T; C]>(), 0)
        }))
    }
}

impl<'s, T, const C: usize> ChunkStride<'s, T, C> {
    /// The last `len() % C` elements, `(first, &mut tail)`, when there are some and this thread
    /// owns them: the partial chunk `len() / C` is this thread's when it is `≡ t (mod T)`.
    #[track_caller]
    #[inline]
    pub fn into_remainder(self) -> Option<(usize, &'s mut [T])> {
        let tail_chunk = self.len / C;
        let first = tail_chunk * C;
        let mine = tail_chunk >= self.first_chunk
            && (tail_chunk - self.first_chunk).is_multiple_of(self.stride);
        if first == self.len || !mine {
            return None;
        }
        report_writes::<T>(self.ptr, first, self.len - first);
        // SAFETY: `first..len` is in the slice and is the partial chunk `len / C`, which this
        // thread alone owns (it is `≡ t (mod T)`); `self` borrowed the slice and is consumed.
        Some((first, unsafe {
            core::slice::from_raw_parts_mut(self.ptr.add(first), self.len - first)
        }))
    }
}

/// Tells the emulator's race detector that the calling thread writes the `count` elements from
/// `first` (no instruction on the GPU, where the loop is empty). Zero-sized elements have no
/// memory to race on, and a chunk of them may be longer than any loop should run.
#[track_caller]
#[inline]
pub(super) fn report_writes<T>(ptr: *mut T, first: usize, count: usize) {
    if size_of::<T>() != 0 {
        for k in first..first + count {
            crate::race::global_write(ptr.addr(), k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::each_thread;

    #[test]
    fn chunks_and_the_remainder_write_every_element_once() {
        for (len, blocks, threads) in [
            (1000, 3, 64),
            (1003, 2, 32),
            (7, 4, 8),
            (3, 1, 2),
            (4096, 4, 256),
        ] {
            let mut data = vec![0u32; len];
            each_thread([blocks, 1, 1], [threads, 1, 1], || {
                // SAFETY: the threads run one after another.
                let mut out =
                    unsafe { DisjointChunks::<u32, 4>::from_raw_parts(data.as_mut_ptr(), len) };
                let mut chunks = out.grid_stride(&ThreadIndex::linear());
                let write = |first: usize, values: &mut [u32]| {
                    for (k, v) in values.iter_mut().enumerate() {
                        assert_eq!(*v, 0, "element {} written twice", first + k);
                        *v = (first + k) as u32 + 1;
                    }
                };
                for (first, out) in &mut chunks {
                    write(first, out);
                }
                if let Some((first, tail)) = chunks.into_remainder() {
                    write(first, tail);
                }
            });
            let expected: Vec<u32> = (1..=len as u32).collect();
            assert_eq!(data, expected, "{len} {blocks} {threads}");
        }
    }
}
