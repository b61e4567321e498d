//! [`PinnedBuffer`]: page-locked host memory (`cudaMallocHost`), and the asynchronous copies
//! between it and the device (`cudaMemcpyAsync`).

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, DeviceRepr, PinnedHostSlice, ValidAsZeroBits};

use crate::memory::{DeviceMemory, DeviceMemoryMut, allocation_bytes};
use crate::{Error, Gpu};

/// `len()` elements of `T` in page-locked host memory ([`Gpu::alloc_pinned`]), which the GPU
/// copies from and to without staging, asynchronously: [`Gpu::memcpy_htod_async`] and
/// [`Gpu::memcpy_dtoh_async`] return at once, and [`PinnedBuffer::as_slice`] /
/// [`PinnedBuffer::as_mut_slice`] first wait for the copies queued on it, so the host never
/// sees memory the GPU is still reading or writing.
pub struct PinnedBuffer<T> {
    /// `None` when empty: the driver gives no allocation of 0 bytes.
    host: Option<PinnedHostSlice<T>>,
    /// The host address (cudarc's accessors each wait on an event of its own, which it
    /// records only when several streams exist, so they cannot be what this waits on).
    ptr: *mut T,
    /// The last copy queued on the buffer; every copy waits for the one before it.
    last: Option<CudaEvent>,
}

// SAFETY: the memory is owned like a `Box<[T]>`'s; `&PinnedBuffer` only gives `&[T]`, and
// every copy takes `&mut PinnedBuffer`, so the usual `Send`/`Sync` of `T` carry over.
unsafe impl<T: Send> Send for PinnedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for PinnedBuffer<T> {}

impl<T: ValidAsZeroBits> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.host.as_ref().map_or(0, |h| h.len())
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements, once every copy queued on the buffer is done.
    pub fn as_slice(&self) -> Result<&[T], Error> {
        self.wait()?;
        if self.ptr.is_null() {
            return Ok(&[]);
        }
        // SAFETY: `ptr` is `len()` initialised elements (zeroed at allocation, then written
        // only by copies of `T`s), no copy is running (just waited for), and none can be
        // queued while this borrow lasts (copies take `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len()) })
    }

    /// The elements, writable, once every copy queued on the buffer is done.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], Error> {
        self.wait()?;
        if self.ptr.is_null() {
            return Ok(&mut []);
        }
        // SAFETY: as in `as_slice`, and the borrow is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len()) })
    }

    fn wait(&self) -> Result<(), Error> {
        match &self.last {
            Some(event) => Ok(event.synchronize()?),
            None => Ok(()),
        }
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        let (Some(host), Some(event)) = (&self.host, &self.last) else {
            return;
        };
        if event.synchronize().is_err() {
            // The copies' state is unknown: wait for the whole device rather than free memory
            // a copy may still use.
            let _ = host.context().synchronize();
        }
    }
}

impl Gpu {
    /// `n` zeroes in page-locked host memory (`cudaMallocHost`, then set to zero: the driver
    /// gives the memory uninitialised).
    pub fn alloc_pinned<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<PinnedBuffer<T>, Error> {
        allocation_bytes::<T>(n)?;
        if n == 0 || size_of::<T>() == 0 {
            return Ok(PinnedBuffer {
                host: None,
                ptr: std::ptr::null_mut(),
                last: None,
            });
        }
        // Not write-combined (cudarc's default): the host reads this memory back.
        // SAFETY: the memory is zeroed below before any `T` is read from it.
        let mut host =
            unsafe { self.ctx.alloc_pinned_with_flags::<T>(n, 0) }.map_err(|e| self.blame(e))?;
        // No work has been queued on the allocation, so cudarc's wait returns at once.
        let ptr = host.as_mut_ptr().map_err(|e| self.blame(e))?;
        // SAFETY: `ptr` is `n` elements of fresh memory; zero bytes are a valid `T`.
        unsafe { std::ptr::write_bytes(ptr, 0, n) };
        Ok(PinnedBuffer {
            host: Some(host),
            ptr,
            last: None,
        })
    }

    /// Queues a copy of `src` into device memory of the same length (`cudaMemcpyAsync` host to
    /// device) and returns; `src` is readable meanwhile through `as_slice`, which waits.
    /// [`Error::LengthMismatch`] otherwise.
    pub fn memcpy_htod_async<T: DeviceRepr + ValidAsZeroBits, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        src: &mut PinnedBuffer<T>,
        dst: &mut D,
    ) -> Result<(), Error> {
        let dst = dst.region_mut();
        if src.len() != dst.len {
            return Err(Error::LengthMismatch {
                operation: "memcpy_htod_async",
                src: src.len(),
                dst: dst.len,
            });
        }
        let ptr = src.ptr;
        self.pinned_copy(src, &dst, |stream| {
            // SAFETY: `ptr` is `dst.len` elements that no host code touches until the copy's
            // event is waited for (`src` is borrowed mutably here, and its accessors wait).
            let host = unsafe { std::slice::from_raw_parts(ptr, dst.len) };
            // SAFETY: `dst` is `dst.len` elements of `T` on this device.
            unsafe { cudarc::driver::result::memcpy_htod_async(dst.address, host, stream) }
        })
    }

    /// Queues a copy of device memory into `dst`, of the same length (`cudaMemcpyAsync` device
    /// to host) and returns; `dst.as_slice()` waits for it. [`Error::LengthMismatch`]
    /// otherwise.
    pub fn memcpy_dtoh_async<T: DeviceRepr + ValidAsZeroBits, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut PinnedBuffer<T>,
    ) -> Result<(), Error> {
        let src = src.region();
        if src.len != dst.len() {
            return Err(Error::LengthMismatch {
                operation: "memcpy_dtoh_async",
                src: src.len,
                dst: dst.len(),
            });
        }
        let ptr = dst.ptr;
        self.pinned_copy(dst, &src, |stream| {
            // SAFETY: as in `memcpy_htod_async`; the device writes `T`s a device buffer of `T`
            // holds, valid for `T: DeviceRepr`.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr, src.len) };
            // SAFETY: `src` is `src.len` elements of `T` on this device.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(host, src.address, stream) }
        })
    }

    /// Queues `copy` between `pinned` and device memory `region`: after the copy queued on
    /// `pinned` before (on any stream), and recorded as `pinned`'s last.
    fn pinned_copy<T>(
        &self,
        pinned: &mut PinnedBuffer<T>,
        region: &crate::Region<'_>,
        copy: impl FnOnce(cudarc::driver::sys::CUstream) -> Result<(), cudarc::driver::DriverError>,
    ) -> Result<(), Error> {
        self.refuse_in_capture(
            "a copy with a PinnedBuffer",
            crate::error::not_capturable::HOST_MEMORY,
        )?;
        if let Some(host) = &pinned.host
            && host.context().ordinal() != self.ordinal()
        {
            return Err(Error::ForeignBuffer {
                buffer: host.context().ordinal(),
                gpu: self.ordinal(),
            });
        }
        let previous = pinned.last.take();
        let result = self.access(&[region], |stream| {
            if let Some(event) = &previous {
                stream.wait(event)?;
            }
            copy(stream.cu_stream())?;
            let event = match &previous {
                Some(event) => {
                    event.record(stream)?;
                    None
                }
                None => Some(stream.record_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC))?),
            };
            Ok(event)
        });
        match result {
            Ok(Some(new)) => pinned.last = Some(new),
            Ok(None) => pinned.last = previous,
            Err(e) => {
                // The copy may be queued with no event after it: wait for it here, so that
                // the buffer's accessors, which wait on `last`, are not ahead of it.
                let _ = self.stream.synchronize();
                pinned.last = previous;
                return Err(e);
            }
        }
        Ok(())
    }
}
