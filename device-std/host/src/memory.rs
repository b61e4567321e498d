//! Device memory: [`DeviceBuffer`], views of part of one ([`DeviceView`], [`DeviceViewMut`]),
//! copies and fills, and the record of the work queued on each buffer that keeps asynchronous
//! work sound across streams (docs/host.md, "Asynchronous work is sound").

use std::ops::{Bound, RangeBounds};

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError, ValidAsZeroBits};

pub(crate) use crate::track::Tracker;
use crate::{Error, Gpu};

/// Device memory holding `len()` elements of `T`. Pass `&buf` for a kernel's `&[T]` argument
/// and `&mut buf` for its `DisjointSlice<T>` argument; [`DeviceBuffer::slice`] and
/// [`DeviceBuffer::slice_mut`] give a part of it that launches and copies accept the same way.
pub struct DeviceBuffer<T> {
    pub(crate) slice: CudaSlice<T>,
    /// The device address of the first element, 0 when empty.
    address: u64,
    /// The kernel's two parameters for this buffer, the pointer (never null, docs/contracts.md)
    /// and the element count; they live here so that the pointers a launch pushes to them stay
    /// valid for the launch.
    params: [u64; 2],
    /// The device address, when it breaks the alignment kernels assume
    /// ([`oxide_contract::SLICE_ALIGN`]); launches refuse such a buffer.
    misaligned: Option<u64>,
    tracker: Tracker,
}

impl<T> DeviceBuffer<T> {
    /// A buffer of freshly allocated `slice`, whose allocation (and initialisation) was queued
    /// on `gpu`'s stream: recorded as a write, so that other streams wait for it.
    pub(crate) fn new(slice: CudaSlice<T>, gpu: &Gpu) -> Result<Self, Error> {
        // The guard borrows `slice`, so it ends before `slice` moves.
        let (ptr, record) = slice.device_ptr(slice.stream());
        drop(record);
        let empty = slice.is_empty();
        let buf = DeviceBuffer {
            address: if empty { 0 } else { ptr },
            params: [
                non_null_param(if empty { 0 } else { ptr }, align_of::<T>()),
                slice.len() as u64,
            ],
            misaligned: misaligned(if empty { 0 } else { ptr }),
            tracker: Tracker::default(),
            slice,
        };
        if !empty {
            buf.tracker.record(&gpu.stream, true);
        }
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// The elements in `range`, read-only: what a launch takes for a kernel's `&[T]` and a copy
    /// for its source. [`Error::BadRange`] when the range is not within the buffer. A launch
    /// refuses a view whose first element is not 16-byte aligned
    /// ([`Error::MisalignedBuffer`]): start it at a multiple of `16 / size_of::<T>()`. A 2-D
    /// output may start at any element: lend it as a rectangle of the whole buffer
    /// (`Rows::rect`), which passes the buffer's own pointer and the rectangle's origin.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>, Error> {
        let (start, len) = bounds(range, self.len())?;
        let (address, params, misaligned) = view_params::<T>(self.address, start, len);
        Ok(DeviceView {
            buf: self,
            start,
            len,
            address,
            params,
            misaligned,
        })
    }

    /// The elements in `range`, writable: what a launch takes for a kernel's
    /// `DisjointSlice<T>` and a copy for its destination. It borrows the buffer mutably, so no
    /// other view of it (nor the buffer) can be passed beside it. Errors as
    /// [`DeviceBuffer::slice`].
    pub fn slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Result<DeviceViewMut<'_, T>, Error> {
        let (start, len) = bounds(range, self.len())?;
        let (address, params, misaligned) = view_params::<T>(self.address, start, len);
        Ok(DeviceViewMut {
            buf: self,
            start,
            len,
            address,
            params,
            misaligned,
        })
    }
}

impl<T> Drop for DeviceBuffer<T> {
    /// cudarc frees the memory on the stream that allocated it; that stream first waits for
    /// every access queued on any stream, so no queued work outlives the memory.
    fn drop(&mut self) {
        if self.slice.is_empty() {
            return;
        }
        let stream = self.slice.stream();
        if self.tracker.order(stream, true).is_err() {
            // Without the waits, only a whole-device wait keeps the free after the work.
            let _ = stream.context().synchronize();
        }
    }
}

/// A read-only part of a [`DeviceBuffer`] ([`DeviceBuffer::slice`]); pass `&view` where
/// `&buf` goes.
pub struct DeviceView<'a, T> {
    buf: &'a DeviceBuffer<T>,
    start: usize,
    len: usize,
    address: u64,
    params: [u64; 2],
    misaligned: Option<u64>,
}

/// A writable part of a [`DeviceBuffer`] ([`DeviceBuffer::slice_mut`]); pass `&mut view` where
/// `&mut buf` goes, and `&view` where `&buf` goes.
pub struct DeviceViewMut<'a, T> {
    buf: &'a mut DeviceBuffer<T>,
    start: usize,
    len: usize,
    address: u64,
    params: [u64; 2],
    misaligned: Option<u64>,
}

/// What both views offer alike: their length, and read-only views of a part of them.
macro_rules! view_methods {
    ($($view:ident),*) => {$(
        impl<T> $view<'_, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view has no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// The elements of this view in `range` (relative to the view), read-only.
            pub fn slice(
                &self,
                range: impl RangeBounds<usize>,
            ) -> Result<DeviceView<'_, T>, Error> {
                let (start, len) = bounds(range, self.len)?;
                self.buf.slice(self.start + start..self.start + start + len)
            }
        }
    )*};
}

view_methods!(DeviceView, DeviceViewMut);

impl<T> DeviceViewMut<'_, T> {
    /// The elements of this view in `range` (relative to the view), writable.
    pub fn slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Result<DeviceViewMut<'_, T>, Error> {
        let (start, len) = bounds(range, self.len)?;
        self.buf
            .slice_mut(self.start + start..self.start + start + len)
    }
}

/// `range` of a length-`len` sequence as (start, length), or [`Error::BadRange`].
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize), Error> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(start), Some(end)) if start <= end && end <= len => Ok((start, end - start)),
        _ => Err(Error::BadRange {
            start: start.unwrap_or(usize::MAX),
            end: end.unwrap_or(usize::MAX),
            len,
        }),
    }
}

/// A view's address, kernel parameters and misalignment, `len` elements from element `start` of
/// a buffer at `base`.
fn view_params<T>(base: u64, start: usize, len: usize) -> (u64, [u64; 2], Option<u64>) {
    if len == 0 {
        return (0, [non_null_param(0, align_of::<T>()), 0], None);
    }
    // Within an allocation, so the sum does not overflow.
    let address = base + (start * size_of::<T>()) as u64;
    (address, [address, len as u64], misaligned(address))
}

fn misaligned(address: u64) -> Option<u64> {
    (!address.is_multiple_of(oxide_contract::SLICE_ALIGN)).then_some(address)
}

/// The pointer a kernel gets for a buffer at device address `ptr` with elements aligned to
/// `align`: `ptr` itself, or for the null pointer of an empty buffer a dangling non-null
/// pointer aligned to `align` and to [`oxide_contract::SLICE_ALIGN`] (a slice's pointer is never
/// null and always so aligned; the backend marks it `nonnull align`).
pub(crate) fn non_null_param(ptr: u64, align: usize) -> u64 {
    if ptr == 0 {
        (align as u64).max(oxide_contract::SLICE_ALIGN)
    } else {
        ptr
    }
}

/// Device memory a launch or a copy reads: a [`DeviceBuffer`], a [`DeviceView`], a
/// [`DeviceViewMut`], a [`crate::ForeignView`] or a [`crate::ForeignViewMut`]. Launchers take
/// `&impl DeviceMemory<T>` for a kernel's `&[T]`.
pub trait DeviceMemory<T>: sealed::Sealed {
    /// Number of elements.
    fn len(&self) -> usize;

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[doc(hidden)]
    fn region(&self) -> Region<'_>;
}

/// Device memory a launch or a copy writes: a [`DeviceBuffer`] or a [`DeviceViewMut`].
/// Launchers take `&mut impl DeviceMemoryMut<T>` for a kernel's `DisjointSlice<T>`; the
/// exclusive borrow is what keeps an output from aliasing any other argument.
pub trait DeviceMemoryMut<T>: DeviceMemory<T> {
    #[doc(hidden)]
    fn region_mut(&mut self) -> Region<'_>;
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::DeviceBuffer<T> {}
    impl<T> Sealed for super::DeviceView<'_, T> {}
    impl<T> Sealed for super::DeviceViewMut<'_, T> {}
    impl<T> Sealed for crate::ForeignView<'_, T> {}
    impl<T> Sealed for crate::ForeignViewMut<'_, T> {}
}

/// What a launch or a copy needs of device memory: where it is, the kernel's parameters for
/// it, and the record of the work queued on its buffer.
#[doc(hidden)]
pub struct Region<'a> {
    pub(crate) address: u64,
    pub(crate) len: usize,
    pub(crate) bytes: usize,
    pub(crate) params: &'a [u64; 2],
    pub(crate) misaligned: Option<u64>,
    pub(crate) ordinal: usize,
    pub(crate) tracker: &'a Tracker,
    pub(crate) write: bool,
}

impl<T> DeviceMemory<T> for DeviceBuffer<T> {
    fn len(&self) -> usize {
        self.slice.len()
    }
    fn region(&self) -> Region<'_> {
        Region {
            address: self.address,
            len: self.len(),
            bytes: self.len() * size_of::<T>(),
            params: &self.params,
            misaligned: self.misaligned,
            ordinal: self.slice.ordinal(),
            tracker: &self.tracker,
            write: false,
        }
    }
}

impl<T> DeviceMemoryMut<T> for DeviceBuffer<T> {
    fn region_mut(&mut self) -> Region<'_> {
        Region {
            write: true,
            ..self.region()
        }
    }
}

/// Both views read their buffer's record and their own range the same way.
macro_rules! view_memory {
    ($($view:ident),*) => {$(
        impl<T> DeviceMemory<T> for $view<'_, T> {
            fn len(&self) -> usize {
                self.len
            }
            fn region(&self) -> Region<'_> {
                Region {
                    address: self.address,
                    len: self.len,
                    bytes: self.len * size_of::<T>(),
                    params: &self.params,
                    misaligned: self.misaligned,
                    ordinal: self.buf.slice.ordinal(),
                    tracker: &self.buf.tracker,
                    write: false,
                }
            }
        }
    )*};
}

view_memory!(DeviceView, DeviceViewMut);

impl<T> DeviceMemoryMut<T> for DeviceViewMut<'_, T> {
    fn region_mut(&mut self) -> Region<'_> {
        Region {
            write: true,
            ..self.region()
        }
    }
}

/// Types every byte pattern is a valid value of, so that [`Gpu::memset_d8`] may fill them with
/// any byte: the integers, the floats, and arrays of them.
///
/// # Safety
/// Every sequence of `size_of::<Self>()` bytes, whatever their values, is a valid `Self`
/// (no padding, no niche, no invariant).
pub unsafe trait AnyBitPattern: DeviceRepr + ValidAsZeroBits {}

macro_rules! any_bit_pattern {
    ($($t:ty),*) => { $(
        // SAFETY: every bit pattern of an integer or a float is one of its values.
        unsafe impl AnyBitPattern for $t {}
    )* };
}
any_bit_pattern!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);
// SAFETY: every 16-bit pattern is a `bf16` or an `f16` (a NaN's among them).
unsafe impl AnyBitPattern for oxide_device::bf16 {}
unsafe impl AnyBitPattern for oxide_device::f16 {}
// SAFETY: every 8-bit pattern is an `e4m3` and an `e5m2` (a NaN's among them).
unsafe impl AnyBitPattern for oxide_device::e4m3 {}
unsafe impl AnyBitPattern for oxide_device::e5m2 {}
// SAFETY: an array has no padding between elements, each of which takes any bytes.
unsafe impl<T: AnyBitPattern, const N: usize> AnyBitPattern for [T; N] {}

/// Copies, fills and allocations, each queued on this handle's stream (a [`crate::Stream`]
/// derefs to a [`Gpu`], so they run on a stream the same way).
impl Gpu {
    /// Copies `data` to a new device buffer (`cudaMalloc` + `cudaMemcpy` host to device), and
    /// returns when the copy is done, as `cudaMemcpy` does: `data` is then free to change, even
    /// when it is a `PinnedBuffer`'s slice, which the driver would read asynchronously.
    pub fn htod<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        self.refuse_in_capture("htod", crate::error::not_capturable::ALLOCATES)?;
        let slice = if data.is_empty() {
            self.stream.null()
        } else {
            self.stream.clone_htod(data)
        };
        let buffer = DeviceBuffer::new(slice.map_err(|e| self.blame(e))?, self)?;
        self.wait_for_host_source(data)?;
        Ok(buffer)
    }

    /// Waits for the copy just queued from `src` when `src` may still be read by it. A copy
    /// from pageable memory has consumed it when the driver call returns, but `src` may be the
    /// slice of a `PinnedBuffer` (`as_slice`), which the driver reads asynchronously: without
    /// this wait the host could rewrite or free it while the GPU reads (as `cudaMemcpy` does,
    /// the call returns when the copy is done).
    fn wait_for_host_source<T>(&self, src: &[T]) -> Result<(), Error> {
        if src.is_empty() {
            return Ok(());
        }
        self.synchronize()
    }

    /// A new device buffer of `n` zeroes.
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<DeviceBuffer<T>, Error> {
        self.refuse_in_capture("alloc_zeroed", crate::error::not_capturable::ALLOCATES)?;
        allocation_bytes::<T>(n)?;
        let slice = if n == 0 {
            self.stream.null()
        } else {
            self.stream.alloc_zeros(n)
        };
        DeviceBuffer::new(slice.map_err(|e| self.blame(e))?, self)
    }

    /// Copies device memory back, after all work queued before it on this stream and all
    /// writes of it queued on any stream (so it waits for kernels). A kernel that failed since
    /// the last wait gives [`Error::KernelFailed`].
    pub fn dtoh<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
    ) -> Result<Vec<T>, Error> {
        let mut data = Vec::with_capacity(src.len());
        // SAFETY: `memcpy_dtoh` writes every element before `data` is read or returned, and
        // drops nothing: `T: DeviceRepr` is plain data; on failure `data` is dropped empty.
        #[allow(clippy::uninit_vec)]
        unsafe {
            data.set_len(src.len())
        };
        match self.memcpy_dtoh(src, &mut data) {
            Ok(()) => Ok(data),
            Err(e) => {
                // SAFETY: shrinking; the elements may be unwritten, and are never read.
                unsafe { data.set_len(0) };
                Err(e)
            }
        }
    }

    /// Copies `src` into existing device memory of the same length (`cudaMemcpy` host to
    /// device). [`Error::LengthMismatch`] otherwise.
    pub fn memcpy_htod<T: DeviceRepr, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        src: &[T],
        dst: &mut D,
    ) -> Result<(), Error> {
        self.refuse_in_capture("memcpy_htod", crate::error::not_capturable::HOST_MEMORY)?;
        let dst = dst.region_mut();
        check_lengths("memcpy_htod", src.len(), dst.len)?;
        // SAFETY: `dst` is `src.len()` elements of `T` on this device; `src` stays borrowed
        // until the copy is done (`wait_for_host_source`).
        self.access(&[&dst], |stream| unsafe {
            cudarc::driver::result::memcpy_htod_async(dst.address, src, stream.cu_stream())
        })?;
        self.wait_for_host_source(src)
    }

    /// Copies device memory into `dst`, of the same length, and waits for it (`cudaMemcpy`
    /// device to host). [`Error::LengthMismatch`] otherwise.
    pub fn memcpy_dtoh<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut [T],
    ) -> Result<(), Error> {
        self.refuse_in_capture("memcpy_dtoh", crate::error::not_capturable::HOST_MEMORY)?;
        let src = src.region();
        check_lengths("memcpy_dtoh", src.len, dst.len())?;
        let seen = self.launch_count();
        // SAFETY: `src` is `dst.len()` elements of `T` on this device, and `T: DeviceRepr`
        // takes the bytes a device buffer of `T` holds.
        self.access(&[&src], |stream| unsafe {
            cudarc::driver::result::memcpy_dtoh_async(dst, src.address, stream.cu_stream())
        })?;
        // The copy is queued; `dst` is the caller's again only once it is done.
        self.stream.synchronize().map_err(|e| self.blame(e))?;
        self.waited(seen);
        Ok(())
    }

    /// Copies device memory into device memory of the same length (`cudaMemcpy` device to
    /// device), queued. [`Error::LengthMismatch`] otherwise.
    pub fn memcpy_dtod<T, S: DeviceMemory<T> + ?Sized, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<(), Error> {
        let (src, dst) = (src.region(), dst.region_mut());
        check_lengths("memcpy_dtod", src.len, dst.len)?;
        // SAFETY: both are `src.bytes` bytes of this device; `dst` is borrowed mutably, so it
        // is not `src`'s buffer.
        self.access(&[&src, &dst], |stream| unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                dst.address,
                src.address,
                src.bytes,
                stream.cu_stream(),
            )
        })
    }

    /// A new device buffer holding a copy of `src`.
    pub fn clone_dtod<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
    ) -> Result<DeviceBuffer<T>, Error> {
        self.refuse_in_capture("clone_dtod", crate::error::not_capturable::ALLOCATES)?;
        allocation_bytes::<T>(src.len())?;
        let slice = if src.is_empty() {
            self.stream.null()
        } else {
            // SAFETY: every element is written by the copy below before anything reads it.
            unsafe { self.stream.alloc::<T>(src.len()) }
        };
        let mut dst = DeviceBuffer::new(slice.map_err(|e| self.blame(e))?, self)?;
        self.memcpy_dtod(src, &mut dst)?;
        Ok(dst)
    }

    /// Sets every element to zero (`cudaMemset(ptr, 0, bytes)`), queued.
    pub fn memset_zeros<T: ValidAsZeroBits, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
    ) -> Result<(), Error> {
        self.memset_bytes(dst.region_mut(), 0)
    }

    /// Sets every byte to `byte` (`cudaMemset`), queued; only for element types that take any
    /// bytes ([`AnyBitPattern`]). [`Gpu::fill`] sets elements of any type to a value.
    pub fn memset_d8<T: AnyBitPattern, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
        byte: u8,
    ) -> Result<(), Error> {
        self.memset_bytes(dst.region_mut(), byte)
    }

    fn memset_bytes(&self, dst: Region<'_>, byte: u8) -> Result<(), Error> {
        // SAFETY: `dst` is `dst.bytes` bytes of this device, of a type that takes these bytes
        // (the callers' bounds).
        self.access(&[&dst], |stream| unsafe {
            cudarc::driver::result::memset_d8_async(
                dst.address,
                byte,
                dst.bytes,
                stream.cu_stream(),
            )
        })
    }

    /// Sets every element to `value`, queued: one copy of it from the host, then copies of
    /// what is already filled doubling each time (log₂ n copies on the device).
    pub fn fill<T: DeviceRepr + Copy, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
        value: T,
    ) -> Result<(), Error> {
        // Its first copy reads `value` from the host, where the graph would read it later.
        self.refuse_in_capture("fill", crate::error::not_capturable::HOST_MEMORY)?;
        let dst = dst.region_mut();
        let size = size_of::<T>();
        // SAFETY: all the copies stay within `dst`'s `dst.len` elements of `T`, and each copies
        // from elements already set to `value`'s bytes to elements after them, not overlapping.
        self.access(&[&dst], |stream| unsafe {
            let stream = stream.cu_stream();
            cudarc::driver::result::memcpy_htod_async(dst.address, &[value], stream)?;
            let mut filled = 1;
            while filled < dst.len {
                let n = filled.min(dst.len - filled);
                let to = dst.address + (filled * size) as u64;
                cudarc::driver::result::memcpy_dtod_async(to, dst.address, n * size, stream)?;
                filled += n;
            }
            Ok(())
        })
    }

    /// Queues `op` on this stream, ordered after the work on `regions` it must follow (on any
    /// stream) and recorded for the work that must follow it. Nothing is queued for empty
    /// regions, nor for memory of another device ([`Error::ForeignBuffer`]). On a capture's
    /// handle `op` is captured instead: the regions must be the capture's (module `graph`),
    /// and each launch of the graph orders them; the callers that touch host memory have
    /// refused to be captured before.
    pub(crate) fn access<R: Default>(
        &self,
        regions: &[&Region<'_>],
        op: impl FnOnce(&CudaStream) -> Result<R, DriverError>,
    ) -> Result<R, Error> {
        for region in regions {
            if region.ordinal != self.ordinal() {
                return Err(Error::ForeignBuffer {
                    buffer: region.ordinal,
                    gpu: self.ordinal(),
                });
            }
        }
        if let Some(recording) = &self.capture {
            regions.iter().try_for_each(|r| recording.allow(r))?;
        }
        if regions.iter().any(|r| r.len == 0) {
            return Ok(R::default());
        }
        let blame = |e| self.blame(e);
        self.ctx.bind_to_thread().map_err(blame)?;
        if let Some(recording) = &self.capture {
            let result = op(&self.stream);
            recording.captured(regions.iter().map(|r| (r.tracker, r.write)), None);
            return result.map_err(blame);
        }
        for region in regions {
            region
                .tracker
                .order(&self.stream, region.write)
                .map_err(blame)?;
        }
        let result = op(&self.stream);
        // Recorded even when `op` failed: part of it may be queued.
        for region in regions {
            region.tracker.record(&self.stream, region.write);
        }
        result.map_err(blame)
    }
}

fn check_lengths(operation: &'static str, src: usize, dst: usize) -> Result<(), Error> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            operation,
            src,
            dst,
        })
    }
}

/// The bytes of `n` elements of `T`, or [`Error::AllocationSize`] when they overflow what an
/// allocation can have (cudarc would panic or wrap).
pub(crate) fn allocation_bytes<T>(n: usize) -> Result<usize, Error> {
    n.checked_mul(size_of::<T>())
        .filter(|&bytes| bytes <= isize::MAX as usize)
        .ok_or(Error::AllocationSize {
            len: n,
            element_bytes: size_of::<T>(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_buffers_get_a_dangling_pointer() {
        assert_eq!(non_null_param(0, 4), 16);
        assert_eq!(non_null_param(0, 1), 16);
        assert_eq!(non_null_param(0, 16), 16);
        assert_eq!(non_null_param(0, 64), 64);
        assert_eq!(non_null_param(0x7f00_0000_0200, 8), 0x7f00_0000_0200);
    }

    #[test]
    fn ranges_within_the_length() {
        assert_eq!(bounds(.., 10).unwrap(), (0, 10));
        assert_eq!(bounds(2..5, 10).unwrap(), (2, 3));
        assert_eq!(bounds(2..=5, 10).unwrap(), (2, 4));
        assert_eq!(bounds(..=9, 10).unwrap(), (0, 10));
        assert_eq!(bounds(10.., 10).unwrap(), (10, 0));
        assert_eq!(bounds(3..3, 10).unwrap(), (3, 0));
        let e = bounds(5..11, 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "range 5..11 is not within a buffer of 10 elements"
        );
        assert!(matches!(
            bounds((Bound::Included(6), Bound::Excluded(5)), 10),
            Err(Error::BadRange {
                start: 6,
                end: 5,
                len: 10
            })
        ));
        assert!(matches!(
            bounds(..=usize::MAX, 10),
            Err(Error::BadRange {
                end: usize::MAX,
                ..
            })
        ));
        let past = (Bound::Excluded(usize::MAX), Bound::Unbounded);
        assert!(bounds(past, 10).is_err());
    }

    #[test]
    fn views_are_aligned_or_refused() {
        let base = 0x7f00_0000_0000;
        // f32 elements: every fourth starts 16 bytes apart.
        let (address, params, misaligned) = view_params::<f32>(base, 4, 8);
        assert_eq!(
            (address, params, misaligned),
            (base + 16, [base + 16, 8], None)
        );
        let (address, _, misaligned) = view_params::<f32>(base, 1, 8);
        assert_eq!(misaligned, Some(address));
        assert_eq!(address, base + 4);
        // An empty view passes the dangling pointer, which is aligned.
        let (address, params, misaligned) = view_params::<f32>(base, 3, 0);
        assert_eq!((address, params, misaligned), (0, [16, 0], None));
        let (_, _, misaligned) = view_params::<[f64; 2]>(base, 1, 1);
        assert_eq!(misaligned, None);
    }

    #[test]
    fn lengths_must_match() {
        assert!(check_lengths("memcpy_dtod", 4, 4).is_ok());
        let e = check_lengths("memcpy_dtod", 4, 5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "memcpy_dtod: the source has 4 elements and the destination 5; they must be equal"
        );
    }

    #[test]
    fn allocations_that_overflow_are_errors() {
        assert_eq!(allocation_bytes::<u32>(10).unwrap(), 40);
        let e = allocation_bytes::<u64>(usize::MAX / 4).unwrap_err();
        assert!(matches!(
            e,
            Error::AllocationSize {
                element_bytes: 8,
                ..
            }
        ));
        assert!(e.to_string().contains("elements of 8 bytes"), "{e}");
        assert!(allocation_bytes::<u8>(isize::MAX as usize + 1).is_err());
    }
}
