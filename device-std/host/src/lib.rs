//! `oxide-host`, the host runtime of oxide kernels (`oxide::host` to kernel authors): open a GPU, move data, launch kernels (over cudarc's driver API, loaded at run
//! time so that a machine without a driver gets [`Error::NoDriver`], never a panic).
//!
//! Ordering: everything runs on one stream per [`Gpu`]. Copies to the device and launches are
//! asynchronous; [`Gpu::dtoh`], [`Gpu::synchronize`] and [`Gpu::time`] wait for the stream, so
//! a result read back with `dtoh` is always complete.
//!
//! Kernel failures: a kernel that traps (a panic in device code: an index out of bounds, an
//! `unwrap` of `None`, `panic!`) fails asynchronously, so the error shows at the next call that
//! waits (or at any later call: the CUDA context is unusable after it). A `Gpu` remembers the
//! last kernel launched on it; while no wait has succeeded since a launch, such an error is
//! [`Error::KernelFailed`] naming that kernel rather than a bare driver error.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError};

mod error;
mod launch;
mod rows;

pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use error::Error;
#[doc(hidden)]
pub use launch::{ByValue, KernelArg, Launch, generic_function};
pub use launch::{KernelFunction, KernelModule, load_module};
pub use oxide_emulator::launch::{
    LaunchConfig, LaunchConfigError, LaunchShapeError, MAX_DYNAMIC_SHARED_MEM_BYTES,
    SHARED_MEM_BYTES_WITHOUT_OPT_IN,
};
pub use rows::{Pairs, RowStorage, Rows, Wave};

/// One CUDA device, with its primary context and the stream all work goes to.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Modules loaded so far, by PTX image, so a kernel's PTX is JIT-compiled once per Gpu,
    /// each with the kernels looked up in it so far (a launch then costs no driver lookup).
    modules: Mutex<launch::ModuleCache<launch::LoadedModule>>,
    /// Launches, and waits that succeeded: which kernel an asynchronous failure belongs to.
    launches: Mutex<LaunchLog>,
    /// Read once, for the launch contract `#[kernel(sm = ...)]`.
    compute_capability: std::sync::OnceLock<u32>,
    /// Read once, for launches of more than 48 KiB of dynamic shared memory.
    shared_per_block_opt_in: std::sync::OnceLock<u32>,
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
            modules: Mutex::new(launch::ModuleCache::new()),
            launches: Mutex::new(LaunchLog::default()),
            compute_capability: std::sync::OnceLock::new(),
            shared_per_block_opt_in: std::sync::OnceLock::new(),
        })
    }

    /// The device's name, e.g. "NVIDIA H200".
    pub fn name(&self) -> Result<String, Error> {
        Ok(self.ctx.name()?)
    }

    /// The device's compute capability as major·10 + minor: 90 for an H200 (9.0).
    pub fn compute_capability(&self) -> Result<u32, Error> {
        if let Some(&cc) = self.compute_capability.get() {
            return Ok(cc);
        }
        let (major, minor) = self.ctx.compute_capability()?;
        let cc = u32::try_from(major * 10 + minor).unwrap_or(0);
        Ok(*self.compute_capability.get_or_init(|| cc))
    }

    /// The most shared memory a block of this device can have, static and dynamic together,
    /// once a kernel opts in (`cudaDevAttrMaxSharedMemoryPerBlockOptin`): 232448 bytes
    /// (227 KiB) on an H200.
    pub fn max_shared_memory_per_block_opt_in(&self) -> Result<u32, Error> {
        if let Some(&bytes) = self.shared_per_block_opt_in.get() {
            return Ok(bytes);
        }
        let attribute =
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
        let bytes = u32::try_from(self.ctx.attribute(attribute)?).unwrap_or(0);
        Ok(*self.shared_per_block_opt_in.get_or_init(|| bytes))
    }

    /// The device ordinal this was opened with.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// Copies `data` to a new device buffer.
    pub fn htod<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let slice = if data.is_empty() {
            self.stream.null()
        } else {
            self.stream.clone_htod(data)
        };
        Ok(DeviceBuffer::new(slice.map_err(|e| self.blame(e))?))
    }

    /// A new device buffer of `n` zeroes.
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<DeviceBuffer<T>, Error> {
        let slice = if n == 0 {
            self.stream.null()
        } else {
            self.stream.alloc_zeros(n)
        };
        Ok(DeviceBuffer::new(slice.map_err(|e| self.blame(e))?))
    }

    /// Copies a device buffer back, after all work queued before it (so it waits for kernels).
    /// A kernel that failed since the last wait gives [`Error::KernelFailed`].
    pub fn dtoh<T: DeviceRepr>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>, Error> {
        if buf.is_empty() {
            return Ok(Vec::new());
        }
        let seen = self.launch_count();
        let data = self
            .stream
            .clone_dtoh(&buf.slice)
            .map_err(|e| self.blame(e))?;
        // The copy into pageable memory is queued on the stream; wait so `data` is complete.
        self.stream.synchronize().map_err(|e| self.blame(e))?;
        self.waited(seen);
        Ok(data)
    }

    /// Waits until all queued work has finished, and reports any asynchronous kernel error
    /// ([`Error::KernelFailed`] when a kernel failed since the last wait).
    pub fn synchronize(&self) -> Result<(), Error> {
        let seen = self.launch_count();
        self.stream.synchronize().map_err(|e| self.blame(e))?;
        self.waited(seen);
        Ok(())
    }

    /// Runs `f` (which queues work, e.g. launches) between two CUDA events and returns the GPU
    /// time between them in milliseconds. Waits for the work to finish; a kernel that failed
    /// gives [`Error::KernelFailed`].
    pub fn time(&self, f: impl FnOnce() -> Result<(), Error>) -> Result<f32, Error> {
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self
            .stream
            .record_event(timing)
            .map_err(|e| self.blame(e))?;
        f()?;
        let seen = self.launch_count();
        let end = self
            .stream
            .record_event(timing)
            .map_err(|e| self.blame(e))?;
        // Waits for both events, so for everything queued before `end`.
        let ms = start.elapsed_ms(&end).map_err(|e| self.blame(e))?;
        self.waited(seen);
        Ok(ms)
    }

    fn launch_log(&self) -> std::sync::MutexGuard<'_, LaunchLog> {
        // A poisoned lock only means another thread panicked while holding it; the log is whole.
        self.launches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Launches so far; taken before a wait, given to [`Gpu::waited`] after it succeeds.
    fn launch_count(&self) -> u64 {
        self.launch_log().launches
    }

    /// A wait that started after `seen` launches succeeded: they all finished.
    fn waited(&self, seen: u64) {
        self.launch_log().waited(seen);
    }

    /// Records a launch of `kernel` (the name errors give).
    pub(crate) fn launched(&self, kernel: &Arc<str>) {
        self.launch_log().launched(kernel);
    }

    /// The error for a failed driver call on this GPU: [`Error::KernelFailed`] naming the last
    /// kernel launched when the call reports a kernel's failure and no wait has succeeded since
    /// that launch, [`Error::Driver`] otherwise.
    pub(crate) fn blame(&self, e: DriverError) -> Error {
        error::after_launch(self.launch_log().pending(), e)
    }
}

/// Which kernel an asynchronous failure belongs to: launches so far, the waits that succeeded,
/// and the last kernel launched.
#[derive(Debug, Default)]
struct LaunchLog {
    /// Launches queued so far.
    launches: u64,
    /// Every launch up to this count has finished (a wait that began after it succeeded).
    finished: u64,
    /// The kernel launched last.
    last: Option<Arc<str>>,
}

impl LaunchLog {
    fn launched(&mut self, kernel: &Arc<str>) {
        self.launches += 1;
        self.last = Some(Arc::clone(kernel));
    }

    /// A wait that began after `seen` launches has succeeded. A launch queued meanwhile (from
    /// another thread) stays pending.
    fn waited(&mut self, seen: u64) {
        self.finished = self.finished.max(seen);
    }

    /// The last kernel launched, if it may not have finished (no wait since has succeeded).
    fn pending(&self) -> Option<&str> {
        self.last
            .as_deref()
            .filter(|_| self.launches > self.finished)
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
    /// The pointer parameter of an empty buffer: never null (docs/contracts.md).
    empty_ptr_param: u64,
    /// The device address, when it breaks the alignment kernels assume
    /// ([`oxide_contract::SLICE_ALIGN`]); launches refuse such a buffer.
    misaligned: Option<u64>,
}

impl<T> DeviceBuffer<T> {
    fn new(slice: CudaSlice<T>) -> Self {
        let len_param = slice.len() as u64;
        // A fresh buffer: the stream's events this records are the allocation's (the guard
        // borrows `slice`, so it ends before `slice` moves).
        let (ptr, record) = slice.device_ptr(slice.stream());
        let (empty_ptr_param, misaligned) = if slice.is_empty() {
            (non_null_param(ptr, align_of::<T>()), None)
        } else {
            (0, (ptr % oxide_contract::SLICE_ALIGN != 0).then_some(ptr))
        };
        drop(record);
        DeviceBuffer {
            slice,
            len_param,
            empty_ptr_param,
            misaligned,
        }
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

/// The pointer a kernel gets for a buffer at device address `ptr` with elements aligned to
/// `align`: `ptr` itself, or for the null pointer of an empty buffer a dangling non-null
/// pointer aligned to `align` and to [`oxide_contract::SLICE_ALIGN`] (a slice's pointer is never
/// null and always so aligned; the backend marks it `nonnull align`).
fn non_null_param(ptr: u64, align: usize) -> u64 {
    if ptr == 0 {
        (align as u64).max(oxide_contract::SLICE_ALIGN)
    } else {
        ptr
    }
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
    fn the_pending_kernel_is_the_last_launched_until_a_wait() {
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        let mut log = LaunchLog::default();
        assert_eq!(log.pending(), None);
        log.launched(&a);
        assert_eq!(log.pending(), Some("a"));
        log.launched(&b);
        assert_eq!(log.pending(), Some("b"));
        // A wait that began after both launches succeeded.
        log.waited(2);
        assert_eq!(log.pending(), None);
        // A wait that began before a launch does not cover it.
        let seen = log.launches;
        log.launched(&a);
        log.waited(seen);
        assert_eq!(log.pending(), Some("a"));
        // An older wait finishing late changes nothing.
        log.waited(1);
        assert_eq!(log.pending(), Some("a"));
        log.waited(3);
        assert_eq!(log.pending(), None);
    }
}
