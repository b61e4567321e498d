//! Printing from a kernel: the runtime of `oxide::printf!` and `oxide::device_assert!`
//! (docs/debugging.md).
//!
//! `printf!` checks its C format at compile time and builds vprintf's argument buffer, a C
//! struct of the converted arguments (each value at its natural alignment), with the traits
//! here, one per C type a conversion reads: an argument of the wrong type is an error at the
//! argument that names the conversion. On the GPU [`vprintf`] is the driver's: the text goes
//! to a buffer the host prints at its next synchronisation, as CUDA's `printf`. On the host it
//! formats with the C library's `snprintf`, conversion by conversion, so the emulator prints
//! exactly what the GPU prints, and writes each call's text to stdout at once.

use core::ffi::CStr;

use oxide_contract::printf::{CType, conversions};

/// Prints `format` (NUL-terminated) with the argument buffer `args`: what `printf!` calls.
///
/// # Safety
/// `format` is NUL-terminated and its conversions read exactly the fields of `A`, a `repr(C)`
/// struct of `i32`/`u32`/`i64`/`u64`/`f64` values and valid C-string pointers, in order (what
/// `printf!` checks and builds).
#[doc(hidden)]
#[inline]
pub unsafe fn print_formatted<A>(format: &'static str, args: &A) {
    // SAFETY: forwarded to the caller.
    unsafe { vprintf(format.as_ptr(), (args as *const A).cast::<u8>()) };
}

/// CUDA's device `vprintf(format, args)`: prints the C `format` with the values of the
/// argument buffer `args`; the number of arguments printed, or a negative number on error.
///
/// # Safety
/// `format` is a NUL-terminated C format of `printf!`'s conversions and `args` points to a C
/// struct holding, in order, one value of the type each conversion reads (`int` for `%d`,
/// `double` for `%f`, a valid NUL-terminated string for `%s`...).
#[doc(hidden)]
#[oxide_gpu::device_runtime("vprintf")]
#[inline(never)]
pub unsafe fn vprintf(format: *const u8, args: *const u8) -> i32 {
    // SAFETY: forwarded to the caller.
    let format = unsafe { CStr::from_ptr(format.cast()) };
    let Ok(format) = format.to_str() else {
        return -1;
    };
    // SAFETY: forwarded to the caller.
    match unsafe { format_c(format, args) } {
        Some((text, count)) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            // Printing is best effort, as on the GPU (whose buffer may overflow). The bytes go
            // out as they are: a `%s` of bytes that are not UTF-8 prints them, as there.
            let _ = out.write_all(&text).and_then(|()| out.flush());
            count
        }
        None => -1,
    }
}

/// The text C's `printf` gives for `format` and the argument buffer `args`, and how many
/// arguments it read; `None` for a format `printf!` would have refused.
///
/// # Safety
/// As [`vprintf`].
unsafe fn format_c(format: &str, args: *const u8) -> Option<(Vec<u8>, i32)> {
    let found = conversions(format).ok()?;
    let mut text = Vec::new();
    let (mut copied, mut offset) = (0, 0usize);
    for conversion in &found {
        text.extend(unescape_percent(&format[copied..conversion.spec.start]).bytes());
        copied = conversion.spec.end;
        let size = conversion.ty.size();
        offset = offset.next_multiple_of(size);
        // SAFETY: the caller's buffer holds a value of this conversion's type at its natural
        // alignment after the previous ones.
        let value = unsafe { args.add(offset) };
        offset += size;
        let spec = &format[conversion.spec.clone()];
        // SAFETY: as above; the value's type is the conversion's.
        text.extend(unsafe { format_one(spec, conversion.ty, value) }?);
    }
    text.extend(unescape_percent(&format[copied..]).bytes());
    Some((text, found.len() as i32))
}

/// Literal text of a format: `%%` is one `%`.
fn unescape_percent(literal: &str) -> String {
    literal.replace("%%", "%")
}

unsafe extern "C" {
    fn snprintf(
        buf: *mut core::ffi::c_char,
        size: usize,
        format: *const core::ffi::c_char,
        ...
    ) -> core::ffi::c_int;
}

/// One conversion (`spec`, e.g. `%-8.3f`) of the value of type `ty` at `value`, by the C
/// library's `snprintf`.
///
/// # Safety
/// `value` points to a value of the type `ty` reads (unaligned is fine), and a `%s` value is a
/// pointer to a NUL-terminated string.
unsafe fn format_one(spec: &str, ty: CType, value: *const u8) -> Option<Vec<u8>> {
    let spec = std::ffi::CString::new(spec).ok()?;
    let mut buf = vec![0u8; 512];
    loop {
        let (out, size) = (buf.as_mut_ptr().cast(), buf.len());
        // SAFETY: `buf` has `size` writable bytes; `spec` is one conversion of the C type
        // `ty`, given a value of that type (read unaligned from the caller's buffer).
        let written = unsafe {
            match ty {
                CType::Int => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<i32>().read_unaligned(),
                ),
                CType::Uint => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<u32>().read_unaligned(),
                ),
                CType::Long => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<i64>().read_unaligned(),
                ),
                CType::Ulong => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<u64>().read_unaligned(),
                ),
                CType::Double => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<f64>().read_unaligned(),
                ),
                CType::Str | CType::Pointer => snprintf(
                    out,
                    size,
                    spec.as_ptr(),
                    value.cast::<*const u8>().read_unaligned(),
                ),
            }
        };
        let written = usize::try_from(written).ok()?;
        if written < buf.len() {
            buf.truncate(written);
            return Some(buf);
        }
        buf.resize(written + 1, 0);
    }
}

/// The path of the source file `file!()` names, as the C string `%s` prints
/// (`device_assert!`'s first argument, evaluated at compile time); `?` if it holds a NUL.
pub const fn source_file(file_with_nul: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(file_with_nul.as_bytes()) {
        Ok(file) => file,
        Err(_) => c"?",
    }
}

mod sealed {
    /// Only the conversions here: `printf!` relies on what each gives (a valid C string for
    /// `%s`).
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => {$( impl Sealed for $t {} )*};
    }
    sealed!(
        i8,
        i16,
        i32,
        i64,
        isize,
        u8,
        u16,
        u32,
        u64,
        usize,
        f32,
        f64,
        char,
        crate::bf16,
        crate::f16,
        crate::e4m3,
        crate::e5m2
    );
    impl<T: ?Sized> Sealed for *const T {}
    impl<T: ?Sized> Sealed for *mut T {}
    impl<T: ?Sized> Sealed for &T {}
}

macro_rules! c_conversion {
    ($(#[$doc:meta])* $trait:ident :: $method:ident -> $c:ty, $label:literal: $($t:ty),*) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(
            message = "`printf!`'s {Self} argument does not match its conversion",
            label = $label,
            note = "`%d` takes an i32, `%u`/`%x` a u32, `%lld` an i64, `%llu`/`%llx` a u64, `%f`/`%e`/`%g` an f64 or f32, `%s` a `&CStr` (c\"...\"), `%p` a pointer; narrower integers widen"
        )]
        pub trait $trait: sealed::Sealed {
            /// The value as the C type the conversion reads.
            fn $method(self) -> $c;
        }
        $(
            impl $trait for $t {
                #[inline]
                fn $method(self) -> $c {
                    <$c>::from(self)
                }
            }
        )*
    };
}

c_conversion! {
    /// What `%d` and `%i` print: an `i32`, or a narrower integer.
    CInt::to_c_int -> i32, "`%d` and `%i` print an `i32` (or a narrower integer), not a `{Self}`": i8, i16, i32, u8, u16
}
c_conversion! {
    /// What `%u`, `%x`, `%X`, `%o` and `%c` print: a `u32`, or a narrower unsigned integer.
    CUint::to_c_uint -> u32, "`%u`, `%x`, `%o` and `%c` print a `u32` (or a narrower unsigned integer), not a `{Self}`": u8, u16, u32
}
c_conversion! {
    /// What `%lld` prints: an `i64`, or a narrower integer.
    CLong::to_c_long -> i64, "`%lld` prints an `i64` (or a narrower integer), not a `{Self}`": i8, i16, i32, i64, u8, u16, u32
}
c_conversion! {
    /// What `%llu` and `%llx` print: a `u64`, or a narrower unsigned integer.
    CUlong::to_c_ulong -> u64, "`%llu` and `%llx` print a `u64` (or a narrower unsigned integer), not a `{Self}`": u8, u16, u32, u64
}
c_conversion! {
    /// What `%f`, `%e`, `%g` and `%a` print: an `f64`, or an `f32`, `bf16`, `f16`, `e4m3` or
    /// `e5m2` (widened, as C's varargs do with a `float`).
    CDouble::to_c_double -> f64, "`%f`, `%e`, `%g` and `%a` print an `f64` or an `f32`, not a `{Self}`": f32, f64, crate::bf16, crate::f16, crate::e4m3, crate::e5m2
}

impl CLong for isize {
    #[inline]
    fn to_c_long(self) -> i64 {
        self as i64
    }
}
impl CUlong for usize {
    #[inline]
    fn to_c_ulong(self) -> u64 {
        self as u64
    }
}
impl CUint for char {
    #[inline]
    fn to_c_uint(self) -> u32 {
        u32::from(self)
    }
}

/// What `%s` prints: a NUL-terminated string (`c"..."`, a `&CStr`). Not a raw pointer: the
/// driver would read memory up to a NUL through it, so safe code could read anywhere.
#[diagnostic::on_unimplemented(
    message = "`printf!`'s {Self} argument does not match its conversion",
    label = "`%s` prints a NUL-terminated string: a `&CStr` such as c\"...\", not a `{Self}`"
)]
pub trait CString: sealed::Sealed {
    /// The string's first byte.
    fn to_c_string(self) -> *const u8;
}

impl CString for &CStr {
    #[inline]
    fn to_c_string(self) -> *const u8 {
        self.as_ptr().cast()
    }
}

/// What `%p` prints: a pointer or a reference, as its address.
#[diagnostic::on_unimplemented(
    message = "`printf!`'s {Self} argument does not match its conversion",
    label = "`%p` prints a pointer or a reference, not a `{Self}`"
)]
pub trait CPointer: sealed::Sealed {
    /// The address.
    fn to_c_pointer(self) -> usize;
}

impl<T> CPointer for *const T {
    #[inline]
    fn to_c_pointer(self) -> usize {
        self as usize
    }
}
impl<T> CPointer for *mut T {
    #[inline]
    fn to_c_pointer(self) -> usize {
        self as usize
    }
}
impl<T> CPointer for &T {
    #[inline]
    fn to_c_pointer(self) -> usize {
        self as *const T as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C)]
    struct Args(i32, f64, u32, *const u8, u64);

    #[test]
    fn the_host_formats_as_c_does() {
        let name = c"GPU";
        let args = Args(-42, 2.5, 0xbeef, name.as_ptr().cast(), u64::MAX);
        let format = "d=%5d f=%.3f x=%#x s=%s llu=%llu 100%%\n";
        let (text, count) = unsafe { format_c(format, (&args as *const Args).cast()) }.unwrap();
        let expected = format!("d=  -42 f=2.500 x=0xbeef s=GPU llu={} 100%\n", u64::MAX);
        assert_eq!(text, expected.into_bytes());
        assert_eq!(count, 5);
    }

    #[test]
    fn long_conversions_are_not_cut() {
        #[repr(C)]
        struct Wide(f64);
        let args = Wide(1e300);
        let (text, _) = unsafe { format_c("%f", (&args as *const Wide).cast()) }.unwrap();
        assert_eq!(text.len(), 308);
    }
}
