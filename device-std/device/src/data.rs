//! [`DeviceData`]: which values may cross from the host to a kernel.

use core::cell::UnsafeCell;
use core::marker::PhantomData;

/// Plain device data: a value that means the same on the GPU as on the host, and that every
/// thread of a launch may use at once. A kernel's by-value arguments and the elements of its
/// slices must be `DeviceData`; the launcher and the emulator `#[kernel]` generates check it for
/// each type they are called with, generic or not.
///
/// It is an auto trait, so a type is `DeviceData` when everything it holds is, with no derive:
/// scalars, `bool`, `char`, arrays, tuples, and structs, enums, unions and closures made of
/// those. It is not implemented by what would carry a host address or share mutable state:
///
/// - references (`&T`, `&mut T`) and raw pointers (`*const T`, `*mut T`): a host address means
///   nothing on the GPU (device buffers are passed as `&[T]` and `DisjointSlice<T>`, which the
///   launcher turns into device pointers itself);
/// - [`UnsafeCell`], hence `Cell`, `RefCell`, atomics and every other interior mutability: a
///   by-value argument is one value shared by every thread, so mutating it through `&self` is a
///   data race;
/// - everything that holds one of those: `Box`, `Vec`, `String`, `Rc` and `NonNull` hold a
///   pointer, `Option<&T>` a reference, a closure that captures `&x` the reference.
///
/// [`PhantomData`] holds nothing, so it is `DeviceData` whatever it marks.
///
/// An auto trait cannot exclude function pointers (`fn(u32) -> u32` is one type per
/// signature, with no generic impl to negate): a function pointer passes this check, and the
/// backend rejects every call through one ("a function pointer cannot run on the GPU"), so
/// holding one in device code is harmless and calling it does not compile.
///
/// # Safety
///
/// Implementing it by hand (`unsafe impl DeviceData for MyType {}`) promises that every value
/// of the type is valid on the GPU, byte for byte: whatever addresses it holds are device
/// addresses the kernel may use for as long as the launch runs, and every thread of the launch
/// may use the value at once without a data race.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not plain device data, so it cannot be passed to a kernel",
    label = "holds a reference, a raw pointer or interior mutability (`Cell`, `UnsafeCell`)",
    note = "a kernel argument is copied byte for byte to the GPU, where a host address means \
            nothing, and shared by every thread: pass the values themselves, device buffers \
            as `&[T]` or `DisjointSlice<T>`, and closures that capture by value (`move`)",
    note = "a type whose addresses are device addresses can promise it with \
            `unsafe impl oxide::DeviceData for ...` (see its safety contract)"
)]
pub unsafe auto trait DeviceData {}

impl<T: ?Sized> !DeviceData for &T {}
impl<T: ?Sized> !DeviceData for &mut T {}
impl<T: ?Sized> !DeviceData for *const T {}
impl<T: ?Sized> !DeviceData for *mut T {}
impl<T: ?Sized> !DeviceData for UnsafeCell<T> {}

// SAFETY: a `PhantomData` is zero-sized and holds no value of `T`.
unsafe impl<T: ?Sized> DeviceData for PhantomData<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;
    use core::sync::atomic::AtomicU32;

    // Host-side checks of the trait's reach; the compile-fail side is in
    // device-std/oxide/tests/ui (kernel_host_references.rs and others). Method lookup on a
    // `&Probe<T>` tries `IsDeviceData::get` (receiver `&Probe<T>`, only when `T: DeviceData`)
    // before autoref reaches `NotDeviceData::get` (receiver `&&Probe<T>`).
    struct Probe<T: ?Sized>(PhantomData<T>);

    trait IsDeviceData {
        fn get(&self) -> bool {
            true
        }
    }

    impl<T: ?Sized + DeviceData> IsDeviceData for Probe<T> {}

    trait NotDeviceData {
        fn get(&self) -> bool {
            false
        }
    }

    impl<T: ?Sized> NotDeviceData for &Probe<T> {}

    fn probe<T: ?Sized>() -> &'static Probe<T> {
        &Probe(PhantomData)
    }

    fn probe_of<T>(_: &T) -> &'static Probe<T> {
        &Probe(PhantomData)
    }

    #[derive(Clone, Copy)]
    #[allow(dead_code)]
    struct Plain {
        a: u32,
        b: [f64; 3],
        c: (i8, bool, char),
        d: Option<u64>,
        e: PhantomData<&'static u8>,
    }

    #[derive(Clone, Copy)]
    #[allow(dead_code)]
    struct WithRef {
        data: &'static [u32],
    }

    #[allow(dead_code)]
    enum Shape {
        Dot,
        Line(f32, f32),
    }

    // Closures made in other functions: their captures are known when the probe is resolved.
    fn by_value(k: u32) -> impl Fn(u32) -> u32 + Copy {
        move |x| x * k
    }

    fn by_reference(k: &'static u32) -> impl Fn(u32) -> u32 + Copy {
        move |x| x * *k
    }

    #[test]
    fn plain_data_is_device_data() {
        assert!(probe::<u32>().get());
        assert!(probe::<u128>().get());
        assert!(probe::<f64>().get());
        assert!(probe::<()>().get());
        assert!(probe::<[u16; 8]>().get());
        assert!(probe::<(u8, f32, bool, char)>().get());
        assert!(probe::<Plain>().get());
        assert!(probe::<Shape>().get());
        assert!(probe::<Option<Plain>>().get());
        assert!(probe_of(&by_value(3)).get());
    }

    #[test]
    fn host_addresses_and_interior_mutability_are_not() {
        assert!(!probe::<&'static u32>().get());
        assert!(!probe::<&'static mut u32>().get());
        assert!(!probe::<*const u32>().get());
        assert!(!probe::<*mut u8>().get());
        assert!(!probe::<Option<&'static u32>>().get());
        assert!(!probe::<WithRef>().get());
        assert!(!probe::<Cell<u32>>().get());
        assert!(!probe::<AtomicU32>().get());
        assert!(!probe::<core::ptr::NonNull<u8>>().get());
        assert!(!probe::<crate::DisjointSlice<'static, u32>>().get());
        assert!(!probe_of(&by_reference(&3)).get());
    }
}
