//! What a field of a `#[derive(DeviceRepr)]` / `#[derive(ValidAsZeroBits)]` type may be
//! (docs/safety.md, "Derived device representations").
//!
//! The derives emit cudarc's `unsafe impl DeviceRepr` / `ValidAsZeroBits` only after checking
//! every field against these traits, not against cudarc's own: cudarc implements `DeviceRepr`
//! for scalars only (no arrays, no `PhantomData`), and the orphan rule forbids this workspace
//! from adding those impls to cudarc's traits. The derives implement these traits for the type
//! they derive, so derived types nest.

use core::marker::PhantomData;

/// A type whose values may be a field of a type with a derived device representation: the
/// same bytes mean the same value on the host and on the GPU, it holds no host address, and
/// copying its bytes makes a valid value.
///
/// Implemented for `bool`, the integers and floats cudarc's `DeviceRepr` covers, arrays of
/// such types, [`PhantomData`], and every `#[derive(DeviceRepr)]` type. Not for `char` and
/// tuples (cudarc has no `DeviceRepr` for them either: store a `u32`, or a `#[repr(C)]` struct),
/// references, raw pointers, `Cell` or anything with interior mutability.
///
/// # Safety
///
/// An implementation promises what cudarc's `DeviceRepr` promises, and more (`Copy`, the
/// supertrait, says that a bitwise copy of a value is a value and nothing is owned twice): its
/// layout is the same on the host and the GPU, its alignment is at most 256 bytes (the
/// alignment of a device allocation), and every byte pattern the GPU can store from a value of
/// the type is a value of it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a `#[derive(DeviceRepr)]` type",
    label = "not a device representation",
    note = "a field must be `bool`, an integer, a float, an array of those, `PhantomData`, or \
            a type that itself derives `oxide::DeviceRepr` (`#[repr(C)]` structs, fieldless \
            enums with an integer `#[repr]`); `char` and tuples are not: use `u32` and a \
            `#[repr(C)]` struct"
)]
pub unsafe trait ReprField: Copy {}

/// A type for which all-zero bytes are a value: a field type of a
/// `#[derive(ValidAsZeroBits)]` type.
///
/// Implemented for `bool`, the integers and floats, arrays of such types, [`PhantomData`],
/// and every `#[derive(ValidAsZeroBits)]` type (a fieldless enum only if a variant's
/// discriminant is 0).
///
/// # Safety
///
/// An implementation promises that a value whose bytes are all zero is a valid value of the
/// type, as cudarc's `ValidAsZeroBits` does.
#[diagnostic::on_unimplemented(
    message = "all-zero bytes are not known to be a value of `{Self}`, so it cannot be a field \
               of a `#[derive(ValidAsZeroBits)]` type",
    label = "not `ValidAsZeroBits`",
    note = "a field must be `bool`, an integer, a float, an array of those, `PhantomData`, or \
            a type that itself derives `oxide::ValidAsZeroBits`"
)]
pub unsafe trait ZeroableField {}

macro_rules! scalars {
    ($($t:ty),*) => {
        $(
            // SAFETY: a scalar cudarc's `DeviceRepr` and `ValidAsZeroBits` cover: no
            // padding, the same encoding on the host and the GPU, and 0 is a value.
            unsafe impl ReprField for $t {}
            unsafe impl ZeroableField for $t {}
        )*
    };
}

scalars!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

// SAFETY: `N` elements with no padding between them, each a field type; all-zero bytes are
// `N` zero elements.
unsafe impl<T: ReprField, const N: usize> ReprField for [T; N] {}
unsafe impl<T: ZeroableField, const N: usize> ZeroableField for [T; N] {}

// SAFETY: zero-sized, with alignment 1, and holds no value of `T`: its one value has no bytes.
unsafe impl<T: ?Sized> ReprField for PhantomData<T> {}
unsafe impl<T: ?Sized> ZeroableField for PhantomData<T> {}
