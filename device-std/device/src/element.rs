//! An element of a launch's buffer, or of a block's shared array, as a reference — with the
//! one fact about its address the compiler cannot see for itself: it is not null.
//!
//! Every output shape and shared-memory phase hands a thread its element as `Option<&mut T>`,
//! and a `Matrix` input as `Option<&T>`, whose `None` is a null pointer. After inlining, the test of that option is a test of the
//! element's address against null, which LLVM folds only where it can see that the address is
//! an in-bounds offset from a pointer that is never null. A shared array's address is a global
//! variable's, cast to the generic space, and LLVM does not know that cast is not null: sgemm's
//! two refills per step of `k` each tested it (`cvta.to.shared` of 0 and a compare) until this
//! fact was stated. (Stores through global outputs can keep such a test where LICM has
//! reassociated the offsets and dropped `inbounds` before the fact is used: LLVM drops the
//! stated fact early, while it still follows from `inbounds`. sgemm's sixteen epilogue stores
//! and transpose's four each still test their address; docs/features.md.)

/// `&mut *base.add(index)`, its address stated not null to the compiler.
///
/// # Safety
/// `base.add(index)` is an element of a live buffer of a launch (whose pointer the launcher
/// never passes null, not even for an empty buffer: docs/contracts.md) or of a block's shared
/// array (whose generic address lies in the shared window, never at 0), and the caller may
/// borrow it mutably for `'a`.
#[inline(always)]
pub(crate) unsafe fn element_mut<'a, T>(base: *mut T, index: usize) -> &'a mut T {
    // SAFETY: in bounds of the buffer or array (the caller's promise).
    let p = unsafe { base.add(index) };
    // SAFETY: an element of a buffer or shared array is never at address 0 (see above).
    unsafe { core::hint::assert_unchecked(!p.is_null()) };
    // SAFETY: the caller's promise.
    unsafe { &mut *p }
}

/// `&*base.add(index)`, its address stated not null to the compiler: the shared counterpart of
/// [`element_mut`], for a read-only input's element (`Matrix::get`).
///
/// # Safety
/// `base.add(index)` is an element of a live buffer of a launch, as for [`element_mut`], that
/// nothing writes while the returned reference lives.
#[inline(always)]
pub(crate) unsafe fn element<'a, T>(base: *const T, index: usize) -> &'a T {
    // SAFETY: in bounds of the buffer (the caller's promise).
    let p = unsafe { base.add(index) };
    // SAFETY: an element of a buffer is never at address 0 (see the module docs).
    unsafe { core::hint::assert_unchecked(!p.is_null()) };
    // SAFETY: the caller's promise.
    unsafe { &*p }
}
