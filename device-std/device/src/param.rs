//! [`KernelParam`]: what a type that a kernel takes as a parameter is, declared once beside the
//! type (docs/contracts.md, "Kernel parameter ABI").
//!
//! Each kind says here how it crosses a launch ([`ParamAbi`]); its host side (`oxide-host`'s
//! `LaunchArg`, `oxide-emulator`'s `EmulatorArg`) says what the host passes for it. The
//! `#[kernel]` macro names no parameter type: it asks these traits, and the backend checks each
//! parameter's layout against the kind declared here.

use oxide_contract::{ParamAbi, SliceAccess};

use crate::DeviceData;

/// A type a kernel may take as a parameter, and how the launch passes it.
///
/// Implemented by device-std only (the trait is sealed): by `&[T]` (a pointer and a length,
/// read by every thread), by [`crate::Matrix`] (the same and its shape words), by every output shape of [`crate::outputs`] (a pointer, a length and
/// the shape's words, each element written by one thread), and by every `Copy` type that is
/// [`DeviceData`] (its bytes). A new kind of parameter is a type in device-std with an impl of
/// this trait, and its host side.
#[rustc_diagnostic_item = "oxide_kernel_param"]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a slice, a `Matrix`, an output of `oxide::outputs` or `Copy` plain device data",
    note = "a kernel takes `&[T]`, a `Matrix<T>`, an output (`DisjointSlice<T>`...), shared memory \
            (`Shared<A>`, `DynShared<T>`) or a `Copy` value of plain device data \
            (`oxide::DeviceData`: no references, pointers or interior mutability)"
)]
pub trait KernelParam: sealed::Sealed {
    /// How the launch passes it.
    const ABI: ParamAbi;

    /// [`Self::ABI`] as the number the backend reads ([`ParamAbi::code`]).
    #[doc(hidden)]
    const ABI_CODE: u32 = Self::ABI.code();
}

/// The kernel parameter that a launcher's key names, at the lifetime `'a` of one launch.
///
/// The launchers `#[kernel]` writes key each argument by its parameter's type `P` as the kernel
/// writes it, elided lifetimes included: a `&[T]` by `[T]`, anything else by `fn(P)`
/// (`fn(DisjointSlice<f32>)`, `fn(u32)`), a function pointer type being where Rust lets the
/// macro write a type with elided lifetimes. This trait turns the key back into the type, for
/// the argument each emulated thread gets.
pub trait ParamKey<'a> {
    /// The parameter, borrowing the launch's memory for `'a`.
    type Param: 'a;
}

/// A parameter whose element count the launch contracts `same_len` and `covers` can check: a
/// `&[T]` (atomic slices too), `DisjointSlice<T>`, `DisjointChunks<T, C>`, `BlockWindows<T, W>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no length the launch contracts can check",
    label = "named in `same_len` or `covers`",
    note = "`same_len` and `covers` take `&[T]`, atomic slices, `DisjointSlice`, \
            `DisjointChunks` and `BlockWindows` arguments"
)]
pub trait CountedParam: KernelParam {
    /// The number of elements the parameter covers: what the launch compares for `same_len`
    /// (the buffer's length, as the host's `LaunchArg::elements`), so that the kernel's entry
    /// can tell the compiler the lengths it checked are equal.
    #[doc(hidden)]
    fn elements(&self) -> usize;
}

/// A parameter with an element count the host measures at each launch (its buffer's length,
/// as the host's `LaunchArg::elements`): a slice, a `Matrix` or an output. What a
/// `requires = "..."` condition reads as `name.len()` (docs/contracts.md); a marker, since the
/// host measures the count, not the kernel.
pub trait MeasuredParam: KernelParam {}

impl<T> MeasuredParam for &[T] {}

/// The ABI of an output: an exclusive slice with `words` shape words.
pub(crate) const fn output(words: u8) -> ParamAbi {
    ParamAbi::Slice {
        access: SliceAccess::Exclusive,
        words,
    }
}

pub(crate) mod sealed {
    /// Only device-std's kinds are kernel parameters.
    pub trait Sealed {}
}

impl<T: DeviceData + Copy> sealed::Sealed for T {}

/// Plain device data, copied to the GPU byte for byte and shared by every thread.
impl<T: DeviceData + Copy> KernelParam for T {
    const ABI: ParamAbi = ParamAbi::Value;
}

/// A value. Only `Copy` is asked here, so that a generic kernel's launcher can name the
/// parameter of its by-value type parameters; the host sides ask `DeviceData` too.
impl<'a, T: Copy + 'a> ParamKey<'a> for fn(T) {
    type Param = T;
}

impl<T> sealed::Sealed for &[T] {}

/// A slice every thread reads (or, for `&[AtomicU32]` and the other atomics, updates
/// atomically): the data pointer and the length.
impl<T> KernelParam for &[T] {
    const ABI: ParamAbi = ParamAbi::Slice {
        access: SliceAccess::Shared,
        words: 0,
    };
}

impl<T> CountedParam for &[T] {
    #[inline(always)]
    fn elements(&self) -> usize {
        self.len()
    }
}

impl<'a, T: 'a> ParamKey<'a> for [T] {
    type Param = &'a [T];
}

/// `impl KernelParam` for an output type of this crate, beside its definition:
/// `kernel_param!(DisjointSlice<'a, T>, words 0, counted)`.
macro_rules! output_param {
    ($name:ident<'a, T $(, const $c:ident)* $(, type $o:ident: $bound:path)?>, words $words:literal) => {
        impl<'a, T $(, const $c: usize)* $(, $o: $bound)?> $crate::param::sealed::Sealed
            for $name<'a, T $(, $c)* $(, $o)?> {}

        impl<'a, T $(, const $c: usize)* $(, $o: $bound)?> $crate::param::KernelParam
            for $name<'a, T $(, $c)* $(, $o)?>
        {
            const ABI: oxide_contract::ParamAbi = $crate::param::output($words);
        }

        impl<'a, T $(, const $c: usize)* $(, $o: $bound)?> $crate::param::MeasuredParam
            for $name<'a, T $(, $c)* $(, $o)?> {}

        impl<'a, T: 'a $(, const $c: usize)* $(, $o: $bound)?> $crate::param::ParamKey<'a>
            for fn($name<'_, T $(, $c)* $(, $o)?>)
        {
            type Param = $name<'a, T $(, $c)* $(, $o)?>;
        }
    };
    ($name:ident<'a, T $(, const $c:ident)*>, words $words:literal, counted) => {
        $crate::param::output_param!($name<'a, T $(, const $c)*>, words $words);

        impl<'a, T $(, const $c: usize)*> $crate::param::CountedParam for $name<'a, T $(, $c)*> {
            // The field, not `len()`: some kinds have `len()` only under bounds on `T`.
            #[inline(always)]
            fn elements(&self) -> usize {
                self.len
            }
        }
    };
}
pub(crate) use output_param;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockTiles, DisjointPairs, DisjointRows, DisjointSlice};
    use core::sync::atomic::AtomicU32;

    #[test]
    fn kinds() {
        assert_eq!(<u32 as KernelParam>::ABI, ParamAbi::Value);
        assert_eq!(<(f32, [u8; 3]) as KernelParam>::ABI, ParamAbi::Value);
        let shared = ParamAbi::Slice {
            access: SliceAccess::Shared,
            words: 0,
        };
        assert_eq!(<&[f32] as KernelParam>::ABI, shared);
        assert_eq!(<&[AtomicU32] as KernelParam>::ABI, shared);
        assert_eq!(<DisjointSlice<'_, f32> as KernelParam>::ABI, output(0));
        assert_eq!(<DisjointRows<'_, f32> as KernelParam>::ABI, output(5));
        assert_eq!(<BlockTiles<'_, f32, 4, 8> as KernelParam>::ABI, output(5));
        assert_eq!(<DisjointPairs<'_, f32> as KernelParam>::ABI, output(1));
        let matrix = ParamAbi::Slice {
            access: SliceAccess::Shared,
            words: 3,
        };
        assert_eq!(<crate::Matrix<'_, f32> as KernelParam>::ABI, matrix);
        assert_eq!(
            ParamAbi::from_code(<DisjointRows<'_, u8> as KernelParam>::ABI_CODE),
            Some(output(5))
        );
    }
}
