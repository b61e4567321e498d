//! `oxide-host`, the host runtime of oxide kernels (`oxide::host` to kernel authors): open a GPU, move data, launch kernels (over cudarc's driver API, loaded at run
//! time so that a machine without a driver gets [`Error::NoDriver`], never a panic).
//!
//! Ordering: a [`Gpu`] queues all its work on one stream; [`Gpu::new_stream`] gives a
//! [`Stream`], which derefs to a `Gpu` whose work goes to a stream of its own. Launches, copies
//! to the device, device-to-device copies, fills and copies with [`PinnedBuffer`]s are
//! asynchronous; [`Gpu::dtoh`], [`Gpu::memcpy_dtoh`], [`Gpu::synchronize`], [`Gpu::time`] and
//! [`Event::synchronize`] wait, so a result read back with `dtoh` is always complete. Work on
//! one buffer is never reordered, across streams included, and memory is never freed or given
//! back to the host before the work queued on it is done (docs/host.md).
//!
//! Kernel failures: a kernel that traps (a panic in device code: an index out of bounds, an
//! `unwrap` of `None`, `panic!`) fails asynchronously, so the error shows at the next call that
//! waits (or at any later call: the CUDA context is unusable after it). A `Gpu` remembers the
//! last kernel launched on it; while no wait has succeeded since a launch, such an error is
//! [`Error::KernelFailed`] naming that kernel rather than a bare driver error. The driver keeps
//! the fault for the rest of the process, so [`Gpu::new`] is then [`Error::DeviceLost`], naming
//! the kernel and saying to restart the process (module `open`).

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use oxide_contract::panic_message;

mod args;
mod descriptor;
mod error;
mod foreign;
mod graph;
mod launch;
mod memory;
mod open;
mod pinned;
mod properties;
mod stream;
mod track;

pub use args::LaunchArg;
#[doc(hidden)]
pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use error::Error;
pub use foreign::{
    ForeignArg, ForeignCall, ForeignParam, ForeignSignature, ForeignView, ForeignViewMut,
};
pub use graph::{Graph, GraphBuffers, Lend};
pub use launch::{KernelFunction, KernelModule, load_module};
#[doc(hidden)]
pub use launch::{Launch, generic_function, kernel_function};
#[doc(hidden)]
pub use memory::Region;
pub use memory::{
    AnyBitPattern, DeviceBuffer, DeviceMemory, DeviceMemoryMut, DeviceView, DeviceViewMut,
};
pub use oxide_launch::{
    LaunchConfig, LaunchConfigError, LaunchShapeError, MAX_DYNAMIC_SHARED_MEM_BYTES, MatrixShape,
    MatrixStorage, Pairs, RowShape, RowStorage, Rows, SHARED_MEM_BYTES_WITHOUT_OPT_IN, ShapeError,
    Wave,
};
pub use pinned::PinnedBuffer;
pub use properties::DeviceProperties;
use stream::LaunchLog;
pub use stream::{Event, Stream};

/// One CUDA device, with its primary context and the stream this handle's work goes to (the
/// device's default stream; a [`Stream`] is a `Gpu` of another stream).
pub struct Gpu {
    ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// This handle's stream, as the per-stream records of buffers and launches know it.
    pub(crate) stream_id: u64,
    /// Modules loaded so far, by PTX image, so a kernel's PTX is JIT-compiled once per Gpu
    /// (shared with its streams), each with the kernels looked up in it so far (a launch then
    /// costs no driver lookup).
    modules: Arc<Mutex<launch::ModuleCache<launch::LoadedModule>>>,
    /// The kernels launched so far, found by a launcher with one lookup (shared with the
    /// streams, as `modules`).
    kernels: Arc<Mutex<launch::KernelCache>>,
    /// Launches, and waits that succeeded, on this device's streams (those of every handle of
    /// its context): which kernel an asynchronous failure belongs to, and whether one has lost
    /// the context.
    launches: Arc<Mutex<LaunchLog>>,
    /// Read once, for the launch contract `#[kernel(sm = ...)]`.
    compute_capability: Arc<OnceLock<u32>>,
    /// Read once, for launches of more than 48 KiB of dynamic shared memory.
    shared_per_block_opt_in: Arc<OnceLock<u32>>,
    /// Set on the handle a [`Gpu::capture`] lends its closure: its stream is capturing, so its
    /// launches and device copies are recorded into the graph, and what a graph cannot hold is
    /// refused (module `graph`).
    capture: Option<Arc<graph::Recording>>,
}

/// The contexts the handles of this process use (module `open`).
static CONTEXTS: Mutex<open::Registry<CudaContext>> = Mutex::new(open::Registry::new());

/// The CUDA driver, as module `open` uses it.
struct Cuda;

impl open::Driver<CudaContext> for Cuda {
    fn open(&mut self, ordinal: usize) -> Result<Arc<CudaContext>, Error> {
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
        guarded(|| CudaContext::new(ordinal))
    }

    fn probe(&mut self, context: &CudaContext) -> Result<(), Error> {
        // Nothing of this process's handles is queued on a context none of them uses, so this
        // returns at once, with the lost context's fault if it is one.
        guarded(|| context.synchronize())
    }
}

impl Gpu {
    /// Opens device `ordinal` (0 is the first GPU): its primary context, shared with the other
    /// handles of the device. After a kernel's fault lost that context, this is
    /// [`Error::DeviceLost`] for the rest of the process, naming the kernel: the driver keeps
    /// the fault (docs/host.md, "After a kernel fails").
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
        let (ctx, launches) = CONTEXTS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open(ordinal, &mut Cuda)?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            stream_id: stream::next_stream_id(),
            modules: Arc::new(Mutex::new(launch::ModuleCache::new())),
            kernels: Arc::new(Mutex::new(Vec::new())),
            launches,
            compute_capability: Arc::new(OnceLock::new()),
            shared_per_block_opt_in: Arc::new(OnceLock::new()),
            capture: None,
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

    /// Waits until all work queued on this handle's stream has finished (`cudaStreamSynchronize`;
    /// [`Gpu::synchronize_device`] waits for every stream), and reports any asynchronous kernel error
    /// ([`Error::KernelFailed`] when a kernel failed since the last wait).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.refuse_in_capture("synchronize", crate::error::not_capturable::WAITS)?;
        let seen = self.launch_count();
        self.stream.synchronize().map_err(|e| self.blame(e))?;
        self.waited(seen);
        Ok(())
    }

    /// Runs `f` (which queues work, e.g. launches) between two CUDA events and returns the GPU
    /// time between them in milliseconds. Waits for the work to finish; a kernel that failed
    /// gives [`Error::KernelFailed`].
    pub fn time(&self, f: impl FnOnce() -> Result<(), Error>) -> Result<f32, Error> {
        self.refuse_in_capture("time", crate::error::not_capturable::EVENTS)?;
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

    pub(crate) fn kernels(&self) -> std::sync::MutexGuard<'_, launch::KernelCache> {
        // A poisoned lock only means another thread panicked while holding it; the list holds
        // only loaded kernels.
        self.kernels.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn launch_log(&self) -> std::sync::MutexGuard<'_, LaunchLog> {
        // A poisoned lock only means another thread panicked while holding it; the log is whole.
        self.launches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Launches on this stream so far; taken before a wait, given to [`Gpu::waited`] after it
    /// succeeds.
    fn launch_count(&self) -> u64 {
        self.launch_log().count(self.stream_id)
    }

    /// A wait on this stream that started after `seen` launches succeeded: they all finished.
    fn waited(&self, seen: u64) {
        self.launch_log().waited(self.stream_id, seen);
    }

    /// Records a launch of `kernel` (the name errors give) on this stream.
    pub(crate) fn launched(&self, kernel: &Arc<str>) {
        self.launch_log().launched(self.stream_id, kernel);
    }

    /// The error for a failed driver call on this GPU: [`Error::KernelFailed`] naming the last
    /// kernel launched when the call reports a kernel's failure and no wait has succeeded since
    /// that launch, [`Error::Driver`] otherwise.
    pub(crate) fn blame(&self, e: DriverError) -> Error {
        self.launch_log().blame(e)
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
