//! `#pragma unroll` for Rust loops: `for k in unroll(0..16) { ... }`.
//!
//! LLVM unrolls a loop with a constant trip count by itself only while the unrolled body stays
//! under its size threshold; a 16-step loop of a GEMM's inner product (16 loads and 16 FMAs per
//! step) is over it, where nvcc, and CUDA code with `#pragma unroll`, unrolls it. A loop over
//! [`unroll`]'s iterator is unrolled fully on the GPU whatever its size, when its trip count is
//! known at compile time (a loop whose count is not known stays a loop). The loop marked is the
//! one that calls the iterator's `next` itself: adapters go inside, `unroll(x.iter().enumerate())`
//! (an adapter around it, `unroll(x).enumerate()`, marks nothing). On the CPU, and in the
//! emulator, the iterator is the one it wraps.

/// The iterator `iter` gives, marked so that the loop over it is unrolled fully on the GPU: the
/// form of CUDA's `#pragma unroll` (docs/features.md, "Control flow").
///
/// ```
/// # use oxide_device::unroll;
/// let mut acc = [0.0f32; 4];
/// for k in unroll(0..16) {
///     acc[k % 4] += k as f32;
/// }
/// assert_eq!(acc, [24.0, 28.0, 32.0, 36.0]);
/// ```
#[inline(always)]
pub fn unroll<I: IntoIterator>(iter: I) -> Unroll<I::IntoIter> {
    Unroll(iter.into_iter())
}

/// The iterator of [`unroll`]: its items are the wrapped iterator's.
#[derive(Clone, Debug)]
pub struct Unroll<I>(I);

impl<I: Iterator> Iterator for Unroll<I> {
    type Item = I::Item;

    #[inline(always)]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.0.next();
        // Called on every step with whether the loop goes on, so the call sits in the loop over
        // this iterator, and its argument is that loop's test: a constant once LLVM has
        // unrolled the loop by itself (then the backend marks nothing).
        unroll_hint(item.is_some());
        item
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// Marks the loop around the call, whose test is `more`, to be unrolled fully; the backend
/// removes the call.
#[oxide_gpu::unroll_hint]
#[inline(never)]
fn unroll_hint(_more: bool) {}
