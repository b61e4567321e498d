//! Everything that can go wrong on the host side.

use cudarc::driver::DriverError;
use cudarc::driver::sys::CUresult;
use oxide_launch::{
    FailureKind, KernelFailure, LaunchConfigError, LaunchShapeError, ShapeError, contract::Breach,
};

/// An error of the host runtime. Nothing in [`crate`] panics; it returns one of these.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library could not be loaded (no NVIDIA driver on this machine).
    #[error("no NVIDIA driver found (libcuda.so could not be loaded): {0}")]
    NoDriver(String),
    /// The driver works but has no device of this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
    },
    /// The kernel crate was compiled without the oxide backend.
    #[error(
        "the crate `{crate_name}` was built without the oxide backend, so it carries no PTX; \
         build it with `cargo oxide build`"
    )]
    NoPtx {
        /// The crate whose PTX is missing.
        crate_name: &'static str,
    },
    /// The driver rejected the crate's PTX (bad PTX, or made for a newer GPU or driver).
    #[error("the driver could not load the PTX of crate `{crate_name}`: {}", describe(.source))]
    ModuleLoad {
        /// The crate whose PTX failed to load.
        crate_name: &'static str,
        /// The driver's reason.
        source: DriverError,
    },
    /// The crate's PTX has no entry of this name.
    #[error("the PTX of crate `{crate_name}` has no kernel `{kernel}`")]
    KernelNotFound {
        /// The crate whose PTX was searched.
        crate_name: &'static str,
        /// The kernel looked for.
        kernel: String,
    },
    /// The device is older than a kernel's `#[kernel(sm = ...)]` contract asks for; nothing was
    /// launched.
    #[error(
        "kernel `{kernel}` is declared `#[kernel(sm = {needs})]`: it needs a GPU of compute \
         capability {}.{} or later, and device {ordinal} ({device}) has {}.{}",
        needs / 10, needs % 10, has / 10, has % 10
    )]
    UnsupportedDevice {
        /// The kernel.
        kernel: String,
        /// The compute capability it needs, major·10 + minor.
        needs: u32,
        /// The device's ordinal and name.
        ordinal: usize,
        device: String,
        /// The device's compute capability, major·10 + minor.
        has: u32,
    },
    /// A grid or block shape the GPU cannot run.
    #[error("invalid launch shape: {0}")]
    LaunchShape(String),
    /// Arguments whose lengths break the kernel's `same_len` or `covers` contract; nothing was
    /// launched.
    #[error("argument lengths: {0}")]
    ArgumentLengths(String),
    /// Arguments that break the kernel's `requires` condition; nothing was launched.
    #[error("arguments: {0}")]
    Requires(String),
    /// More dynamic shared memory per block than a launch may have: above
    /// [`crate::MAX_DYNAMIC_SHARED_MEM_BYTES`] (227 KiB) anywhere, or above what the device
    /// gives a block once the kernel's static shared memory is taken; nothing was launched.
    #[error(
        "{requested} bytes of dynamic shared memory per block; a launch may have at most \
         {limit} here"
    )]
    SharedMemory {
        /// `shared_mem_bytes` of the launch.
        requested: u32,
        /// The most a launch may ask for.
        limit: u32,
    },
    /// A buffer of one [`super::Gpu`] was passed to a launch on another.
    #[error("a DeviceBuffer of GPU {buffer} was passed to a kernel launched on GPU {launch}")]
    WrongDevice {
        /// Ordinal of the buffer's GPU.
        buffer: usize,
        /// Ordinal of the launching GPU.
        launch: usize,
    },
    /// `Rows::new`/`Rows::with_pitch` was given a width of 0 or above the pitch, or a pitch
    /// that does not divide the buffer's length, `Rows::rect` an empty rectangle or one past
    /// its rows, `Pairs::new` a distance that is not a power of two, or `MatrixShape::new`
    /// a matrix that does not fit its buffer (oxide-launch's `ShapeError`).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// A buffer's or a view's device address is not aligned as kernels assume of a slice (the
    /// driver's allocations always are; docs/contracts.md, `oxide_contract::SLICE_ALIGN`).
    #[error(
        "device memory at address {address:#x} is not aligned to {align} bytes, which kernels \
         assume of every slice: start a view at a multiple of {align} bytes, or pass an output \
         that starts at any element as a rectangle of rows (`Rows::rect`, for a 2-D output)"
    )]
    MisalignedBuffer {
        /// The buffer's device address.
        address: u64,
        /// The alignment kernels assume.
        align: u64,
    },
    /// Device memory of one GPU was passed to a copy or fill queued on another.
    #[error("memory of GPU {buffer} was passed to a copy or fill on GPU {gpu}")]
    ForeignBuffer {
        /// Ordinal of the buffer's GPU.
        buffer: usize,
        /// Ordinal of the GPU the operation was queued on.
        gpu: usize,
    },
    /// [`Gpu::foreign_stream`](crate::Gpu::foreign_stream) was given a stream that is not one
    /// of this device's primary context.
    #[error(
        "CUDA stream 0x{stream:x} cannot be used on GPU {ordinal}: {reason}; pass a stream of \
         the device the tensors are on (`torch.cuda.current_stream(device)`)"
    )]
    ForeignStream {
        /// The stream handle, as given.
        stream: usize,
        /// The device it was to be used on.
        ordinal: usize,
        /// Why it cannot.
        reason: String,
    },
    /// [`Gpu::check_device_memory`](crate::Gpu::check_device_memory) found an address range
    /// that is not device memory of the GPU, inside one allocation.
    #[error(
        "the {bytes} bytes at address 0x{address:x} are not device memory of GPU {ordinal}: \
         {reason}"
    )]
    NotDeviceMemory {
        /// The first byte.
        address: u64,
        /// How many bytes.
        bytes: usize,
        /// The GPU they were to be device memory of.
        ordinal: usize,
        /// What they are instead.
        reason: String,
    },
    /// `slice(range)`/`slice_mut(range)` was given a range that is not within the buffer (or
    /// whose start is after its end); `usize::MAX` stands for a bound that overflows.
    #[error("range {start}..{end} is not within a buffer of {len} elements")]
    BadRange {
        /// The first element asked for.
        start: usize,
        /// One past the last element asked for.
        end: usize,
        /// The buffer's (or view's) length.
        len: usize,
    },
    /// A copy between memory of different lengths; nothing was copied.
    #[error(
        "{operation}: the source has {src} elements and the destination {dst}; they must be \
         equal"
    )]
    LengthMismatch {
        /// The copy (`memcpy_dtod`, `memcpy_htod_async`, ...).
        operation: &'static str,
        /// The source's length.
        src: usize,
        /// The destination's length.
        dst: usize,
    },
    /// An allocation of more bytes than an allocation can have (more than `isize::MAX`).
    #[error("{len} elements of {element_bytes} bytes are more bytes than one allocation can have")]
    AllocationSize {
        /// The element count asked for.
        len: usize,
        /// `size_of` the element type.
        element_bytes: usize,
    },
    /// A kernel failed while running: a panic (a trap on the GPU), or a barrier not every thread
    /// of a block reached. On the GPU this is reported by the next call that waits for the
    /// kernel (see [`crate`]); the emulator's [`KernelFailure`] converts into this too.
    #[error("kernel `{kernel}` failed {message}")]
    KernelFailed {
        /// The kernel's name (`scale::<f32>` for an instance of a generic kernel).
        kernel: String,
        /// Where and what: `on the GPU: <the CUDA error>; ...` or `in the emulator: <which
        /// thread of which block, and what happened>`.
        message: String,
    },
    /// [`Gpu::new`](crate::Gpu::new) cannot open the device: a kernel's fault lost its CUDA
    /// context, and the driver keeps that fault for the rest of the process (measured on the
    /// H200: no reset or new context clears it), so only a new process can use the device.
    /// `handles_alive` says whether handles of the lost context were still alive.
    #[error("{}", device_lost(*ordinal, kernel.as_deref(), reason, *handles_alive))]
    DeviceLost {
        /// The device asked for.
        ordinal: usize,
        /// The kernel blamed for the fault, when one was known.
        kernel: Option<String>,
        /// The driver's words.
        reason: String,
        /// Whether handles of the lost context were still alive.
        handles_alive: bool,
    },
    /// Work that a CUDA graph cannot hold was queued inside [`Gpu::capture`](crate::Gpu::capture)
    /// (a wait, an event, an allocation, a copy from or to host memory, a nested capture), or
    /// a graph was launched there; nothing was queued, and the capture fails.
    #[error("`{operation}` cannot be captured into a CUDA graph: {reason}")]
    NotCapturable {
        /// The call refused.
        operation: &'static str,
        /// Why, and what to do instead.
        reason: &'static str,
    },
    /// A launch or copy inside [`Gpu::capture`](crate::Gpu::capture) used device memory that
    /// was not given to the capture (or wrote memory given to it shared): the graph could
    /// outlive that memory. Nothing was queued, and the capture fails.
    #[error(
        "a launch or copy captured into a CUDA graph {} a buffer that was not given to \
         `Gpu::capture`{}; pass every buffer the graph uses in the capture's first argument \
         (`&buf` for one it reads, `&mut buf` for one it writes)",
        if *write { "writes" } else { "reads" },
        if *write { " as `&mut`" } else { "" }
    )]
    NotInGraph {
        /// Whether the refused access was a write.
        write: bool,
    },
    /// A [`Graph`](crate::Graph) captured on one GPU was launched on another.
    #[error("a CUDA graph captured on GPU {graph} was launched on GPU {gpu}")]
    GraphDevice {
        /// Ordinal of the GPU the graph was captured on.
        graph: usize,
        /// Ordinal of the GPU it was launched on.
        gpu: usize,
    },
    /// Any other failure reported by the CUDA driver.
    #[error("CUDA driver error: {}", describe(.0))]
    Driver(#[from] DriverError),
}

fn device_lost(ordinal: usize, kernel: Option<&str>, reason: &str, handles_alive: bool) -> String {
    let by = kernel.map_or_else(|| "a kernel".to_owned(), |k| format!("kernel `{k}`"));
    // One remedy whether handles are left or not: the driver keeps a kernel's fault for the rest
    // of the process (measured on the H200, docs/host.md "After a kernel fails").
    let handles = if handles_alive {
        "handles of the lost context are still alive, and "
    } else {
        ""
    };
    format!(
        "device {ordinal}'s CUDA context was lost when {by} failed on the GPU ({reason}); \
         {handles}the CUDA driver keeps that fault for the rest of the process, so no new Gpu \
         can use device {ordinal}: restart the process (a server can run its GPU work in a \
         child process and restart that)"
    )
}

impl Error {
    /// Whether this machine or build cannot run kernels at all (no driver, no device, no PTX),
    /// as opposed to a kernel or driver call that failed. Programs report these differently.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            Error::NoDriver(_) | Error::NoDevice { .. } | Error::NoPtx { .. }
        )
    }
}

impl From<LaunchShapeError> for Error {
    fn from(LaunchShapeError(reason): LaunchShapeError) -> Error {
        Error::LaunchShape(reason)
    }
}

impl From<LaunchConfigError> for Error {
    fn from(e: LaunchConfigError) -> Error {
        match e {
            LaunchConfigError::Shape(shape) => shape.into(),
            LaunchConfigError::SharedMemory { requested, limit } => {
                Error::SharedMemory { requested, limit }
            }
            other => Error::LaunchShape(other.to_string()),
        }
    }
}

impl From<Breach> for Error {
    fn from(breach: Breach) -> Error {
        match breach {
            Breach::LaunchShape(reason) => Error::LaunchShape(reason),
            Breach::ArgumentLengths(reason) => Error::ArgumentLengths(reason),
            Breach::Requires(reason) => Error::Requires(reason),
            Breach::SharedMemory { requested, limit } => Error::SharedMemory { requested, limit },
        }
    }
}

impl From<KernelFailure> for Error {
    fn from(f: KernelFailure) -> Error {
        match f.kind {
            FailureKind::LaunchShape(reason) => Error::LaunchShape(reason),
            FailureKind::ArgumentLengths(reason) => Error::ArgumentLengths(reason),
            FailureKind::Requires(reason) => Error::Requires(reason),
            FailureKind::SharedMemory { requested, limit } => {
                Error::SharedMemory { requested, limit }
            }
            kind => Error::KernelFailed {
                kernel: f.kernel.to_owned(),
                message: format!("in the emulator: {kind}"),
            },
        }
    }
}

/// The error for a failed driver call made after kernel `pending` was launched with no
/// successful wait since: [`Error::KernelFailed`] naming it when the call reports a kernel's
/// failure (which the driver reports at whichever call comes next), [`Error::Driver`] otherwise.
pub(crate) fn after_launch(pending: Option<&str>, e: DriverError) -> Error {
    match pending {
        Some(kernel) if is_kernel_fault(e.0) => Error::KernelFailed {
            kernel: kernel.to_owned(),
            message: format!(
                "on the GPU: {}; a panic in device code (index out of bounds, unwrap on None, \
                 explicit panic!) traps",
                describe(&e)
            ),
        },
        _ => Error::Driver(e),
    }
}

/// Whether the driver reports a fault of a running kernel: these errors come from a kernel's
/// execution (a `trap` gives `CUDA_ERROR_LAUNCH_FAILED` or `CUDA_ERROR_ILLEGAL_INSTRUCTION`) and
/// leave the context unusable, so every later call reports them too.
pub(crate) fn is_kernel_fault(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
    )
}

/// `CUDA_ERROR_NAME: the driver's description`, or just the code when the driver cannot say.
pub(crate) fn describe(e: &DriverError) -> String {
    // Asking the driver for the text panics inside cudarc when libcuda is absent.
    // SAFETY: only tries to dlopen the library.
    if unsafe { cudarc::driver::sys::is_culib_present() }
        && let (Ok(name), Ok(text)) = (e.error_name(), e.error_string())
    {
        return format!("{}: {}", name.to_string_lossy(), text.to_string_lossy());
    }
    format!("{:?} (code {})", e.0, e.0 as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        let e = Error::NoPtx {
            crate_name: "vecadd",
        };
        assert_eq!(
            e.to_string(),
            "the crate `vecadd` was built without the oxide backend, so it carries no PTX; \
             build it with `cargo oxide build`"
        );
        assert!(e.is_unavailable());
        let e = Error::NoDriver("details".into());
        assert_eq!(
            e.to_string(),
            "no NVIDIA driver found (libcuda.so could not be loaded): details"
        );
        assert!(e.is_unavailable());
        let e = Error::LaunchShape("block x = 0".into());
        assert_eq!(e.to_string(), "invalid launch shape: block x = 0");
        assert!(!e.is_unavailable());
        let e = Error::KernelNotFound {
            crate_name: "vecadd",
            kernel: "nope".into(),
        };
        assert_eq!(
            e.to_string(),
            "the PTX of crate `vecadd` has no kernel `nope`"
        );
        let e = Error::KernelFailed {
            kernel: "vecadd".into(),
            message: "boom".into(),
        };
        assert_eq!(e.to_string(), "kernel `vecadd` failed boom");
        assert!(!e.is_unavailable());
        let e = Error::NoDevice {
            ordinal: 3,
            count: 1,
        };
        assert_eq!(
            e.to_string(),
            "no CUDA device 3: the driver reports 1 device(s)"
        );
        let e = Error::from(DriverError(
            cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_FOUND,
        ));
        assert!(e.to_string().starts_with("CUDA driver error: "), "{e}");
        assert!(e.to_string().contains("NOT_FOUND"), "{e}");
        let e = Error::MisalignedBuffer {
            address: 0x7f00_0000_0004,
            align: 16,
        };
        assert_eq!(
            e.to_string(),
            "device memory at address 0x7f0000000004 is not aligned to 16 bytes, which kernels \
             assume of every slice: start a view at a multiple of 16 bytes, or pass an output \
             that starts at any element as a rectangle of rows (`Rows::rect`, for a 2-D output)"
        );
    }

    #[test]
    fn shape_errors_and_emulator_failures_convert() {
        let shape = crate::LaunchConfig::for_num_elems(10, 0).unwrap_err();
        let e = Error::from(shape.clone());
        assert!(matches!(&e, Error::LaunchShape(r) if *r == shape.0), "{e}");
        let failure = KernelFailure {
            kernel: "k",
            kind: FailureKind::LaunchShape("grid x = 0".into()),
        };
        assert!(matches!(Error::from(failure), Error::LaunchShape(r) if r == "grid x = 0"));
        let too_much = crate::LaunchConfig {
            shared_mem_bytes: u32::MAX,
            ..crate::LaunchConfig::for_num_elems(10, 32).unwrap()
        };
        let e = Error::from(too_much.validate().unwrap_err());
        assert!(
            matches!(
                e,
                Error::SharedMemory {
                    requested: u32::MAX,
                    limit: 232448
                }
            ),
            "{e}"
        );
        assert!(!e.is_unavailable());
        let failure = KernelFailure {
            kernel: "k",
            kind: FailureKind::SharedMemory {
                requested: 65536,
                limit: 49152,
            },
        };
        assert!(matches!(
            Error::from(failure),
            Error::SharedMemory {
                requested: 65536,
                limit: 49152
            }
        ));
        let failure = KernelFailure {
            kernel: "k",
            kind: FailureKind::WarpDivergence {
                block: [0; 3],
                thread: [1, 0, 0],
                mask: !0,
                missing: [2, 0, 0],
            },
        };
        let e = Error::from(failure);
        let Error::KernelFailed { kernel, message } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(kernel, "k");
        assert!(
            message.starts_with("in the emulator: thread [1, 0, 0]"),
            "{message}"
        );
    }

    #[test]
    fn faults_after_a_launch_name_the_kernel() {
        let fault = DriverError(CUresult::CUDA_ERROR_LAUNCH_FAILED);
        let e = after_launch(Some("scale::<f32>"), fault);
        let Error::KernelFailed { kernel, message } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(kernel, "scale::<f32>");
        assert!(message.starts_with("on the GPU: "), "{message}");
        assert!(message.contains("LAUNCH_FAILED"), "{message}");
        let text = e.to_string();
        assert!(
            text.starts_with("kernel `scale::<f32>` failed on the GPU: "),
            "{text}"
        );
        assert!(
            text.ends_with(
                "; a panic in device code (index out of bounds, unwrap on None, explicit \
                 panic!) traps"
            ),
            "{text}"
        );
        assert!(!e.is_unavailable());
        for code in [
            CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
            CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
            CUresult::CUDA_ERROR_ASSERT,
        ] {
            let e = after_launch(Some("k"), DriverError(code));
            assert!(
                matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "k"),
                "{e}"
            );
        }
    }

    #[test]
    fn other_errors_stay_driver_errors() {
        // No launch since the last successful wait: nothing to blame.
        let e = after_launch(None, DriverError(CUresult::CUDA_ERROR_LAUNCH_FAILED));
        assert!(matches!(e, Error::Driver(_)), "{e}");
        // Errors a kernel's execution does not cause.
        for code in [
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            CUresult::CUDA_ERROR_NOT_FOUND,
        ] {
            let e = after_launch(Some("k"), DriverError(code));
            assert!(
                matches!(e, Error::Driver(DriverError(c)) if c == code),
                "{e}"
            );
        }
    }
}

/// Why each kind of call is refused inside a capture ([`Error::NotCapturable`]'s `reason`),
/// beside the error so that the modules that refuse need not know the graph's.
pub(crate) mod not_capturable {
    pub(crate) const WAITS: &str = "nothing captured runs before the graph is launched; wait \
                                    after `Graph::launch`";
    pub(crate) const EVENTS: &str = "a graph's launches are ordered by the buffers it holds; \
                                     record or wait for events around `Graph::launch`";
    pub(crate) const ALLOCATES: &str = "it allocates device memory; allocate before the capture \
                                        and give the buffer to it";
    pub(crate) const HOST_MEMORY: &str = "the graph would copy from or to that host memory at every \
                                          launch; copy before or after `Graph::launch`";
}
