//! Atomics beyond `core::sync::atomic`: float atomics ([`AtomicF32`], [`AtomicF64`], CUDA's
//! `atomicAdd(float*)`), atomics at an explicit scope ([`ScopedAtomic`], CUDA's
//! `atomicAdd_system` / `atomicAdd_block`), and fences at each scope ([`fence_block`],
//! [`fence_device`], [`fence_system`], CUDA's `__threadfence_block/__threadfence/
//! __threadfence_system`).
//!
//! # Scopes
//! An atomic is atomic, and orders memory, with respect to the threads of its scope:
//! - `core::sync::atomic` and the unsuffixed methods here are **device**-scoped (PTX `.gpu`):
//!   every thread of the launch, what CUDA's `atomicAdd` is. Always correct on device memory.
//! - `_system` methods are **system**-scoped (`.sys`): also the host and other GPUs, for memory
//!   they share (mapped host memory). Safe: a wider scope is never wrong, only slower.
//! - `_block` methods are **block**-scoped (`.cta`): atomic only with respect to the threads of
//!   the calling block. Two blocks updating one location with them race (undefined behaviour in
//!   PTX's memory model), so they are `unsafe`: the caller promises no thread of another block
//!   accesses the location while the block uses it. On a relaxed operation they cost what a
//!   device-scoped one does; for a counter in block-shared memory (`Shared<[AtomicU32; N]>`),
//!   the device-scoped `fetch_add` is the safe choice and as fast.
//!
//! The scoped methods are relaxed (as CUDA's `atomic*_block`/`_system` are); order them with
//! the fences, or use `core`'s orderings at device scope.
//!
//! On the host (the CPU emulator, plain Rust) every scope is the whole process: `core`'s
//! atomics run them.

mod float;
mod ops;

pub use float::{AtomicF32, AtomicF64};

/// `__threadfence_block()`: a sequentially consistent fence among the threads of the block
/// (PTX `fence.sc.cta`).
#[inline]
pub fn fence_block() {
    ops::fence_block();
}

/// `__threadfence()`: a sequentially consistent fence among the threads of the launch (PTX
/// `fence.sc.gpu`), what `core::sync::atomic::fence(SeqCst)` is in a kernel.
#[inline]
pub fn fence_device() {
    ops::fence_device();
}

/// `__threadfence_system()`: a sequentially consistent fence that also orders with the host
/// and other devices (PTX `fence.sc.sys`).
#[inline]
pub fn fence_system() {
    ops::fence_system();
}

mod sealed {
    pub trait Sealed {}
}

/// An atomic a kernel may take a slice of (`counts: &[AtomicU32]`), and the plain value the
/// host's buffer holds for it (`Plain`): the launch passes a `&mut DeviceBuffer<Plain>`, the
/// emulator a `&mut [Plain]`. Sealed: `#[kernel]` relies on `Self` having the size, alignment
/// and bit validity of `Plain`.
///
/// # Safety
/// `Self` has the size, alignment and bit validity of `Plain`, and is `Sync`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an atomic a kernel can take a slice of",
    label = "`&mut buf` is what a launch takes for an atomic slice",
    note = "a `&[T]` of plain values takes `&buf`; `&mut buf` is for an output or an atomic slice",
    note = "a kernel's atomic slices are `&[AtomicU32]`, `&[AtomicI32]`, `&[AtomicU64]`, `&[AtomicI64]`, `&[AtomicUsize]`, `&[AtomicIsize]` (core::sync::atomic) and `&[AtomicF32]`, `&[AtomicF64]` (oxide::atomic)"
)]
pub unsafe trait AtomicElem: Sync + sealed::Sealed {
    /// The value the host's buffer holds.
    type Plain: Copy;
}

macro_rules! atomic_elems {
    ($($atomic:ty => $plain:ty),* $(,)?) => {$(
        // SAFETY: `core::sync::atomic` documents each atomic integer to have the size,
        // alignment and bit validity of its integer; `AtomicF32`/`AtomicF64` are transparent
        // over the atomic integer of their float's size, whose alignment the float has on
        // every 64-bit target (asserted in `float.rs`).
        unsafe impl AtomicElem for $atomic {
            type Plain = $plain;
        }
    )*};
}

impl sealed::Sealed for core::sync::atomic::AtomicUsize {}
impl sealed::Sealed for core::sync::atomic::AtomicIsize {}
impl sealed::Sealed for AtomicF32 {}
impl sealed::Sealed for AtomicF64 {}

atomic_elems! {
    core::sync::atomic::AtomicU32 => u32,
    core::sync::atomic::AtomicI32 => i32,
    core::sync::atomic::AtomicU64 => u64,
    core::sync::atomic::AtomicI64 => i64,
    core::sync::atomic::AtomicUsize => usize,
    core::sync::atomic::AtomicIsize => isize,
    AtomicF32 => f32,
    AtomicF64 => f64,
}

/// The integer atomics of `core` at system and block scope (see the module docs), each a
/// relaxed read-modify-write returning the previous value, as CUDA's `atomicAdd_system`,
/// `atomicCAS_block`...
///
/// ```
/// use core::sync::atomic::AtomicU32;
/// use oxide_device::atomic::ScopedAtomic;
/// let flag = AtomicU32::new(5);
/// assert_eq!(flag.fetch_add_system(2), 5);
/// assert_eq!(flag.compare_exchange_system(7, 1), Ok(7));
/// assert_eq!(flag.compare_exchange_system(7, 2), Err(1));
/// ```
pub trait ScopedAtomic: sealed::Sealed {
    /// The integer the atomic holds.
    type Value: Copy;

    /// `atomicAdd_system`: adds (wrapping), at system scope.
    fn fetch_add_system(&self, value: Self::Value) -> Self::Value;
    /// Subtracts (wrapping), at system scope.
    fn fetch_sub_system(&self, value: Self::Value) -> Self::Value;
    /// Bitwise and, at system scope.
    fn fetch_and_system(&self, value: Self::Value) -> Self::Value;
    /// Bitwise or, at system scope.
    fn fetch_or_system(&self, value: Self::Value) -> Self::Value;
    /// Bitwise xor, at system scope.
    fn fetch_xor_system(&self, value: Self::Value) -> Self::Value;
    /// The larger (signed for signed types), at system scope.
    fn fetch_max_system(&self, value: Self::Value) -> Self::Value;
    /// The smaller, at system scope.
    fn fetch_min_system(&self, value: Self::Value) -> Self::Value;
    /// `atomicExch_system`: stores `value`, at system scope.
    fn swap_system(&self, value: Self::Value) -> Self::Value;
    /// `atomicCAS_system`: stores `new` if the value is `current`; `Ok(previous)` when it was,
    /// `Err(previous)` when not.
    fn compare_exchange_system(
        &self,
        current: Self::Value,
        new: Self::Value,
    ) -> Result<Self::Value, Self::Value>;

    /// `atomicAdd_block`: adds (wrapping), at block scope.
    ///
    /// # Safety
    /// While the calling block uses the atomic, no thread of another block accesses it (block
    /// scope is atomic only within the block: otherwise a data race).
    unsafe fn fetch_add_block(&self, value: Self::Value) -> Self::Value;
    /// Subtracts (wrapping), at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_sub_block(&self, value: Self::Value) -> Self::Value;
    /// Bitwise and, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_and_block(&self, value: Self::Value) -> Self::Value;
    /// Bitwise or, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_or_block(&self, value: Self::Value) -> Self::Value;
    /// Bitwise xor, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_xor_block(&self, value: Self::Value) -> Self::Value;
    /// The larger, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_max_block(&self, value: Self::Value) -> Self::Value;
    /// The smaller, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn fetch_min_block(&self, value: Self::Value) -> Self::Value;
    /// Stores `value`, at block scope.
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn swap_block(&self, value: Self::Value) -> Self::Value;
    /// Compare-exchange at block scope, as
    /// [`compare_exchange_system`](Self::compare_exchange_system).
    ///
    /// # Safety
    /// As [`fetch_add_block`](Self::fetch_add_block).
    unsafe fn compare_exchange_block(
        &self,
        current: Self::Value,
        new: Self::Value,
    ) -> Result<Self::Value, Self::Value>;
}

macro_rules! scoped_atomics {
    ($($atomic:ty => $t:ty, $ops:ident;)*) => {$(
        impl sealed::Sealed for $atomic {}

        impl ScopedAtomic for $atomic {
            type Value = $t;

            #[inline]
            fn fetch_add_system(&self, value: $t) -> $t {
                ops::$ops::add_system(self, value)
            }
            #[inline]
            fn fetch_sub_system(&self, value: $t) -> $t {
                ops::$ops::add_system(self, value.wrapping_neg())
            }
            #[inline]
            fn fetch_and_system(&self, value: $t) -> $t {
                ops::$ops::and_system(self, value)
            }
            #[inline]
            fn fetch_or_system(&self, value: $t) -> $t {
                ops::$ops::or_system(self, value)
            }
            #[inline]
            fn fetch_xor_system(&self, value: $t) -> $t {
                ops::$ops::xor_system(self, value)
            }
            #[inline]
            fn fetch_max_system(&self, value: $t) -> $t {
                ops::$ops::max_system(self, value)
            }
            #[inline]
            fn fetch_min_system(&self, value: $t) -> $t {
                ops::$ops::min_system(self, value)
            }
            #[inline]
            fn swap_system(&self, value: $t) -> $t {
                ops::$ops::swap_system(self, value)
            }
            #[inline]
            fn compare_exchange_system(&self, current: $t, new: $t) -> Result<$t, $t> {
                let previous = ops::$ops::cas_system(self, current, new);
                if previous == current { Ok(previous) } else { Err(previous) }
            }

            #[inline]
            unsafe fn fetch_add_block(&self, value: $t) -> $t {
                ops::$ops::add_block(self, value)
            }
            #[inline]
            unsafe fn fetch_sub_block(&self, value: $t) -> $t {
                ops::$ops::sub_block(self, value)
            }
            #[inline]
            unsafe fn fetch_and_block(&self, value: $t) -> $t {
                ops::$ops::and_block(self, value)
            }
            #[inline]
            unsafe fn fetch_or_block(&self, value: $t) -> $t {
                ops::$ops::or_block(self, value)
            }
            #[inline]
            unsafe fn fetch_xor_block(&self, value: $t) -> $t {
                ops::$ops::xor_block(self, value)
            }
            #[inline]
            unsafe fn fetch_max_block(&self, value: $t) -> $t {
                ops::$ops::max_block(self, value)
            }
            #[inline]
            unsafe fn fetch_min_block(&self, value: $t) -> $t {
                ops::$ops::min_block(self, value)
            }
            #[inline]
            unsafe fn swap_block(&self, value: $t) -> $t {
                ops::$ops::swap_block(self, value)
            }
            #[inline]
            unsafe fn compare_exchange_block(&self, current: $t, new: $t) -> Result<$t, $t> {
                let previous = ops::$ops::cas_block(self, current, new);
                if previous == current { Ok(previous) } else { Err(previous) }
            }
        }
    )*};
}

scoped_atomics! {
    core::sync::atomic::AtomicU32 => u32, u32_ops;
    core::sync::atomic::AtomicI32 => i32, i32_ops;
    core::sync::atomic::AtomicU64 => u64, u64_ops;
    core::sync::atomic::AtomicI64 => i64, i64_ops;
}
