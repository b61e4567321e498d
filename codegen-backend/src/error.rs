//! Errors of the device path. Each carries the MIR span it came from so that it reaches the user
//! as a spanned rustc diagnostic.

use rustc_span::Span;

/// Why heap allocations cannot run on the GPU (the registry says the same of `Box::new`...).
pub(crate) const NO_HEAP: &str = "device code has no heap; use values, arrays and slices";

/// Why a kernel (or a function it calls) could not be compiled for the GPU.
#[derive(thiserror::Error, Debug, Clone)]
pub(crate) enum DeviceErrorKind {
    #[error("{construct} is not supported in GPU kernels yet")]
    Unsupported { construct: String },
    #[error("{construct} cannot run on the GPU: {why}")]
    NotOnGpu { construct: String, why: String },
    #[error("calls `{callee}`, whose MIR is not available, so it cannot be compiled for the GPU")]
    NoMir { callee: String },
    /// Dropping a value that owns heap memory; the value was made by a call that cannot run on
    /// the GPU either, which is reported where it is, so this one only stands alone.
    #[error("the heap allocation `{ty}` cannot run on the GPU: {NO_HEAP}")]
    HeapDrop { ty: String },
    #[error(
        "the `static mut` `{name}` is one copy in global memory for the whole grid, which every thread of every block would race on"
    )]
    StaticMut { name: String, declared: Span },
    #[error("kernel `{kernel}`: {why}")]
    BadKernel { kernel: String, why: String },
    /// A barrier under a condition that may differ between the threads of a block.
    #[error("{0}")]
    DivergentBarrier(Box<crate::uniformity::DivergentBarrier>),
    #[error("internal error while compiling `{function}` for the GPU: {message}")]
    Internal { function: String, message: String },
}

/// A call on the way from a kernel to an error: `callee` is called at `span`, either for real
/// or in a body that MIR inlining copied into its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallSite {
    pub(crate) span: Span,
    pub(crate) callee: String,
}

#[derive(Debug, Clone)]
pub(crate) struct DeviceError {
    pub(crate) kind: DeviceErrorKind,
    /// Where the construct is, which may be deep inside the standard library.
    pub(crate) span: Span,
    /// Functions from the kernel down to the one that failed, outermost first (the kernel's
    /// entry name first; inlined calls are not in it).
    pub(crate) call_path: Vec<String>,
    /// The calls from the kernel's body down to the one whose callee holds `span`, inlined
    /// ones included, outermost first. The report points at the innermost of these spans (or
    /// `span`) that lies in the crate being compiled: the user's own line.
    pub(crate) call_sites: Vec<CallSite>,
}

impl DeviceError {
    pub(crate) fn new(span: Span, kind: DeviceErrorKind) -> Self {
        DeviceError {
            kind,
            span,
            call_path: Vec::new(),
            call_sites: Vec::new(),
        }
    }
}

pub(crate) type DeviceResult<T> = Result<T, DeviceError>;

pub(crate) fn unsupported<T>(span: Span, construct: impl Into<String>) -> DeviceResult<T> {
    Err(DeviceError::new(
        span,
        DeviceErrorKind::Unsupported {
            construct: construct.into(),
        },
    ))
}

pub(crate) fn not_on_gpu<T>(
    span: Span,
    construct: impl Into<String>,
    why: impl Into<String>,
) -> DeviceResult<T> {
    Err(DeviceError::new(
        span,
        DeviceErrorKind::NotOnGpu {
            construct: construct.into(),
            why: why.into(),
        },
    ))
}
