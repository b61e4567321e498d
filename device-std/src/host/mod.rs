//! Host runtime: open a GPU, move data, launch kernels (over cudarc's driver API, loaded at run
//! time so that a machine without a driver gets [`Error::NoDriver`], never a panic).
//!
//! Ordering: everything runs on one stream per [`Gpu`]. Copies to the device and launches are
//! asynchronous; [`Gpu::dtoh`], [`Gpu::synchronize`] and [`Gpu::time`] wait for the stream, so
//! a result read back with `dtoh` is always complete.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream, DriverError};

pub mod bench;
mod error;
mod launch;

pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use error::Error;
#[doc(hidden)]
pub use launch::{ByValue, KernelArg, Launch};
pub use launch::{KernelFunction, KernelModule, LaunchConfig, load_module};

/// One CUDA device, with its primary context and the stream all work goes to.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Modules loaded so far, by crate name, so a kernel's PTX is JIT-compiled once per Gpu.
    modules: Mutex<Vec<(&'static str, Arc<CudaModule>)>>,
}

impl Gpu {
    /// Opens device `ordinal` (0 is the first GPU).
    pub fn new(ordinal: usize) -> Result<Gpu, Error> {
        // cudarc panics when libcuda is missing; look for it first.
        // SAFETY: only tries to dlopen the library names cudarc would use.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoDriver(
                "install the NVIDIA driver, or add the directory of libcuda.so to \
                 LD_LIBRARY_PATH"
                    .into(),
            ));
        }
        let count = guarded(CudaContext::device_count).map_err(|e| match e {
            Error::Driver(DriverError(CUresult::CUDA_ERROR_NO_DEVICE)) => {
                Error::NoDevice { ordinal, count: 0 }
            }
            Error::Driver(DriverError(CUresult::CUDA_ERROR_STUB_LIBRARY)) => Error::NoDriver(
                "the libcuda.so found is the CUDA toolkit's stub, not a driver".into(),
            ),
            e => e,
        })?;
        let count = usize::try_from(count).unwrap_or(0);
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = guarded(|| CudaContext::new(ordinal))?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            modules: Mutex::new(Vec::new()),
        })
    }

    /// The device's name, e.g. "NVIDIA H200".
    pub fn name(&self) -> Result<String, Error> {
        Ok(self.ctx.name()?)
    }

    /// The device ordinal this was opened with.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Copies `data` to a new device buffer.
    pub fn htod<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let slice = if data.is_empty() {
            self.stream.null()?
        } else {
            self.stream.clone_htod(data)?
        };
        Ok(DeviceBuffer::new(slice))
    }

    /// A new device buffer of `n` zeroes.
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<DeviceBuffer<T>, Error> {
        let slice = if n == 0 {
            self.stream.null()?
        } else {
            self.stream.alloc_zeros(n)?
        };
        Ok(DeviceBuffer::new(slice))
    }

    /// Copies a device buffer back, after all work queued before it (so it waits for kernels).
    pub fn dtoh<T: DeviceRepr>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>, Error> {
        if buf.is_empty() {
            return Ok(Vec::new());
        }
        let data = self.stream.clone_dtoh(&buf.slice)?;
        // The copy into pageable memory is queued on the stream; wait so `data` is complete.
        self.stream.synchronize()?;
        Ok(data)
    }

    /// Waits until all queued work has finished, and reports any asynchronous kernel error.
    pub fn synchronize(&self) -> Result<(), Error> {
        Ok(self.stream.synchronize()?)
    }

    /// Runs `f` (which queues work, e.g. launches) between two CUDA events and returns the GPU
    /// time between them in milliseconds. Waits for the work to finish.
    pub fn time(&self, f: impl FnOnce() -> Result<(), Error>) -> Result<f32, Error> {
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing)?;
        f()?;
        let end = self.stream.record_event(timing)?;
        Ok(start.elapsed_ms(&end)?)
    }
}

/// Runs a driver call that may panic inside cudarc (a missing driver symbol) and turns the
/// panic into [`Error::NoDriver`]. The default panic hook still prints the panic message.
fn guarded<R>(f: impl FnOnce() -> Result<R, DriverError>) -> Result<R, Error> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => Ok(result?),
        Err(payload) => Err(Error::NoDriver(panic_message(payload.as_ref()))),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the CUDA driver library could not be used".to_owned()
    }
}

/// Device memory holding `len()` elements of `T`. Pass `&buf` for a kernel's `&[T]` argument
/// and `&mut buf` for its `DisjointSlice<T>` argument.
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    /// The element count as the kernel's `u64` length parameter; it lives here so that the
    /// parameter pointer stays valid for the launch.
    len_param: u64,
}

impl<T> DeviceBuffer<T> {
    fn new(slice: CudaSlice<T>) -> Self {
        let len_param = slice.len() as u64;
        DeviceBuffer { slice, len_param }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }
}
