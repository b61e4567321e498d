//! `AtomicF32` and `AtomicF64`: floats every thread may update, as CUDA's `atomicAdd` on a
//! `float*`/`double*`.

use core::sync::atomic::Ordering::{self, AcqRel, Acquire, Relaxed, Release, SeqCst};
use core::sync::atomic::{AtomicU32, AtomicU64};

use super::ops;

macro_rules! float_atomic {
    (
        $(#[$doc:meta])*
        $name:ident($float:ty, $bits:ty);
        add: $relaxed:ident, $acquire:ident, $release:ident, $acq_rel:ident, $seq_cst:ident,
        system: $system:ident, block: $block:ident;
    ) => {
        $(#[$doc])*
        #[repr(transparent)]
        pub struct $name {
            bits: $bits,
        }

        impl $name {
            /// An atomic holding `value`.
            #[inline]
            pub const fn new(value: $float) -> Self {
                $name { bits: <$bits>::new(value.to_bits()) }
            }

            /// The atomic over a float the caller owns (as `AtomicU32::from_mut`).
            #[inline]
            pub fn from_mut(value: &mut $float) -> &mut Self {
                const { assert!(align_of::<$float>() == align_of::<Self>()) };
                // SAFETY: the atomic has the size and alignment of the float (transparent over
                // the atomic integer of its size, which has them) and every bit pattern is
                // valid for both; the unique borrow is passed on.
                unsafe { &mut *(value as *mut $float).cast::<Self>() }
            }

            /// The value, through a unique borrow (no atomic needed).
            #[inline]
            pub fn get_mut(&mut self) -> &mut $float {
                // SAFETY: as `from_mut`, the other way.
                unsafe { &mut *(self as *mut Self).cast::<$float>() }
            }

            /// The value.
            #[inline]
            pub fn into_inner(self) -> $float {
                <$float>::from_bits(self.bits.into_inner())
            }

            /// Loads the value (`core`'s orderings; `Release`/`AcqRel` panic, as on `AtomicU32`).
            #[inline]
            pub fn load(&self, order: Ordering) -> $float {
                <$float>::from_bits(self.bits.load(order))
            }

            /// Stores `value` (`Acquire`/`AcqRel` panic, as on `AtomicU32`).
            #[inline]
            pub fn store(&self, value: $float, order: Ordering) {
                self.bits.store(value.to_bits(), order)
            }

            /// Stores `value`, returning the previous value (`atomicExch`).
            #[inline]
            pub fn swap(&self, value: $float, order: Ordering) -> $float {
                <$float>::from_bits(self.bits.swap(value.to_bits(), order))
            }

            /// Stores `new` if the value's bits are `current`'s (so `-0.0` is not `0.0`, and a
            /// NaN matches its own bits), as `AtomicU32::compare_exchange` on the bits.
            #[inline]
            pub fn compare_exchange(
                &self,
                current: $float,
                new: $float,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$float, $float> {
                self.bits
                    .compare_exchange(current.to_bits(), new.to_bits(), success, failure)
                    .map(<$float>::from_bits)
                    .map_err(<$float>::from_bits)
            }

            /// `atomicAdd`: adds `value` at device scope, returning the previous value. One
            /// instruction on the GPU (`atom.add`), rounding to nearest even.
            #[inline]
            pub fn fetch_add(&self, value: $float, order: Ordering) -> $float {
                match order {
                    Relaxed => ops::$relaxed(&self.bits, value),
                    Acquire => ops::$acquire(&self.bits, value),
                    Release => ops::$release(&self.bits, value),
                    AcqRel => ops::$acq_rel(&self.bits, value),
                    _ => ops::$seq_cst(&self.bits, value),
                }
            }

            /// Subtracts `value` (adds `-value`), returning the previous value.
            #[inline]
            pub fn fetch_sub(&self, value: $float, order: Ordering) -> $float {
                self.fetch_add(-value, order)
            }

            /// Stores the larger of the value and `value` (`f32::max`'s rule: a NaN loses to a
            /// number), returning the previous value: a compare-exchange loop, as CUDA code
            /// writes it (PTX has no float atomic max).
            #[inline]
            pub fn fetch_max(&self, value: $float, order: Ordering) -> $float {
                self.fetch_update_with(order, |x| x.max(value))
            }

            /// Stores the smaller of the value and `value` (NaNs as in
            /// [`fetch_max`](Self::fetch_max)), returning the previous value.
            #[inline]
            pub fn fetch_min(&self, value: $float, order: Ordering) -> $float {
                self.fetch_update_with(order, |x| x.min(value))
            }

            /// `atomicAdd_system`: a relaxed add at system scope (also atomic with respect to
            /// the host, for mapped memory).
            #[inline]
            pub fn fetch_add_system(&self, value: $float) -> $float {
                ops::$system(&self.bits, value)
            }

            /// `atomicAdd_block`: a relaxed add at block scope.
            ///
            /// # Safety
            /// While the calling block uses the atomic, no thread of another block accesses it
            /// (block scope is atomic only within the block: otherwise a data race).
            #[inline]
            pub unsafe fn fetch_add_block(&self, value: $float) -> $float {
                ops::$block(&self.bits, value)
            }

            /// Replaces the value by `f(value)` in a compare-exchange loop; the previous value.
            #[inline]
            fn fetch_update_with(&self, order: Ordering, f: impl Fn($float) -> $float) -> $float {
                let failure = match order {
                    Release | Relaxed => Relaxed,
                    AcqRel | Acquire => Acquire,
                    _ => SeqCst,
                };
                let mut seen = self.bits.load(failure);
                loop {
                    let new = f(<$float>::from_bits(seen)).to_bits();
                    match self.bits.compare_exchange_weak(seen, new, order, failure) {
                        Ok(previous) => return <$float>::from_bits(previous),
                        Err(now) => seen = now,
                    }
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::new(0.0)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(&self.load(Relaxed), f)
            }
        }
    };
}

float_atomic! {
    /// An `f32` every thread may update atomically: a kernel argument `sums: &[AtomicF32]`
    /// (the launch passes a `&mut DeviceBuffer<f32>`), an element of block-shared memory
    /// (`Shared<[AtomicF32; 256]>`), or a thread's own element ([`from_mut`](Self::from_mut)).
    ///
    /// `fetch_add` is CUDA's `atomicAdd(float*, float)`: one `atom.add.f32`, which rounds to
    /// nearest even and flushes subnormal operands and results to zero (the host does too, so
    /// that the emulator agrees with the GPU). The order in which threads add is not fixed, so
    /// a sum over many threads may differ between runs in its last bits, on the GPU as on the
    /// emulator.
    ///
    /// ```
    /// use core::sync::atomic::Ordering::Relaxed;
    /// use oxide_device::atomic::AtomicF32;
    /// let total = AtomicF32::new(1.5);
    /// assert_eq!(total.fetch_add(2.0, Relaxed), 1.5);
    /// assert_eq!(total.fetch_max(-1.0, Relaxed), 3.5);
    /// assert_eq!(total.load(Relaxed), 3.5);
    /// ```
    AtomicF32(f32, AtomicU32);
    add: add_f32_relaxed, add_f32_acquire, add_f32_release, add_f32_acq_rel, add_f32_seq_cst,
    system: add_f32_system, block: add_f32_block;
}

float_atomic! {
    /// An `f64` every thread may update atomically, as [`AtomicF32`]; `fetch_add` is
    /// `atom.add.f64` (CUDA's `atomicAdd(double*, double)`), which keeps subnormals.
    AtomicF64(f64, AtomicU64);
    add: add_f64_relaxed, add_f64_acquire, add_f64_release, add_f64_acq_rel, add_f64_seq_cst,
    system: add_f64_system, block: add_f64_block;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_adds_flush_subnormals_as_the_gpu_does() {
        let tiny = f32::from_bits(1);
        let a = AtomicF32::new(tiny);
        assert_eq!(a.fetch_add(tiny, Relaxed).to_bits(), 1);
        assert_eq!(a.load(Relaxed).to_bits(), 0);
        let b = AtomicF32::new(-1.0);
        b.fetch_add(1.0, SeqCst);
        assert_eq!(b.load(Relaxed).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn f64_adds_keep_subnormals() {
        let tiny = f64::from_bits(1);
        let a = AtomicF64::new(tiny);
        a.fetch_add(tiny, AcqRel);
        assert_eq!(a.load(Relaxed).to_bits(), 2);
    }

    #[test]
    fn max_and_min_skip_nans_and_compare_exchange_compares_bits() {
        let a = AtomicF32::new(f32::NAN);
        a.fetch_max(2.0, Relaxed);
        assert_eq!(a.load(Relaxed), 2.0);
        a.fetch_min(-3.0, Relaxed);
        assert_eq!(a.load(Relaxed), -3.0);
        let z = AtomicF64::new(0.0);
        assert!(z.compare_exchange(-0.0, 1.0, SeqCst, SeqCst).is_err());
        assert_eq!(z.compare_exchange(0.0, 1.0, SeqCst, SeqCst), Ok(0.0));
        let mut x = 4.0f32;
        *AtomicF32::from_mut(&mut x).get_mut() += 1.0;
        assert_eq!(x, 5.0);
    }

    #[test]
    fn concurrent_adds_are_all_counted() {
        let total = AtomicF64::new(0.0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        total.fetch_add(1.0, Relaxed);
                    }
                });
            }
        });
        assert_eq!(total.load(Relaxed), 4000.0);
    }
}
