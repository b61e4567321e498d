//! `#pragma unroll` for Rust loops: `for k in unroll(0..16) { ... }`.
//!
//! LLVM unrolls a loop with a constant trip count by itself only while the unrolled body stays
//! under its size threshold; a 16-step loop of a GEMM's inner product (16 loads and 16 FMAs per
//! step) is over it, where nvcc, and CUDA code with `#pragma unroll`, unrolls it. A loop over
//! [`unroll`]'s iterator is unrolled fully on the GPU whatever its size, when its trip count is
//! known at compile time (a loop whose count is not known stays a loop). The loop marked is the
//! one that calls the iterator's `next` itself: adapters go inside, `unroll(x.iter().enumerate())`
//! (an adapter around it, `unroll(x).enumerate()`, marks nothing, and warns). On the CPU, and in the
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
        // The call marks this function: the backend marks the loop around each call of it
        // (docs/contracts.md, `unroll_hint`).
        unroll_hint(item.is_some());
        item
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// What a loop over an adapter of [`unroll`]'s iterator gets: the adapter's `next`, not the
/// loop, calls [`Unroll`]'s, so the backend marks no loop (it marks the loops around the calls
/// of `Unroll::next`). These shadow [`Iterator`]'s adapters with a warning at the user's line;
/// each does what the adapter does (the CPU and the emulator are unchanged).
macro_rules! adapters_not_marked {
    ($($(#[$doc:meta])* fn $name:ident<$($g:ident),*>($($arg:ident: $ty:ty),*) -> $ret:ty
        $(where [$($w:tt)*])?;)*) => {
        impl<I: Iterator> Unroll<I> {
            $(
                $(#[$doc])*
                #[deprecated(note = "the loop over an adapter of `unroll(..)` is not unrolled: \
                                     put the adapter inside, `unroll(x.enumerate())`")]
                #[inline(always)]
                pub fn $name<$($g),*>(self, $($arg: $ty),*) -> $ret $(where $($w)*)? {
                    Iterator::$name(self, $($arg),*)
                }
            )*
        }
    };
}

adapters_not_marked! {
    /// [`Iterator::enumerate`], with a warning: write `unroll(x.enumerate())`.
    fn enumerate<>() -> core::iter::Enumerate<Self>;
    /// [`Iterator::zip`], with a warning: write `unroll(x.zip(y))`.
    fn zip<U>(other: U) -> core::iter::Zip<Self, U::IntoIter> where [U: IntoIterator];
    /// [`Iterator::map`], with a warning: write `unroll(x.map(f))`.
    fn map<B, F>(f: F) -> core::iter::Map<Self, F> where [F: FnMut(I::Item) -> B];
    /// [`Iterator::step_by`], with a warning: write `unroll(x.step_by(n))`.
    fn step_by<>(step: usize) -> core::iter::StepBy<Self>;
    /// [`Iterator::skip`], with a warning: write `unroll(x.skip(n))`.
    fn skip<>(n: usize) -> core::iter::Skip<Self>;
    /// [`Iterator::take`], with a warning: write `unroll(x.take(n))`.
    fn take<>(n: usize) -> core::iter::Take<Self>;
    /// [`Iterator::chain`], with a warning: write `unroll(x.chain(y))`.
    fn chain<U>(other: U) -> core::iter::Chain<Self, U::IntoIter>
        where [U: IntoIterator<Item = I::Item>];
    /// [`Iterator::filter`], with a warning: write `unroll(x.filter(p))`.
    fn filter<P>(predicate: P) -> core::iter::Filter<Self, P> where [P: FnMut(&I::Item) -> bool];
}

/// Marks the loop around the call, whose test is `more`, to be unrolled fully; the backend
/// removes the call.
#[oxide_gpu::unroll_hint]
#[inline(never)]
fn unroll_hint(_more: bool) {}
