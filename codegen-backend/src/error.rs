//! Errors of the device path. Each carries the MIR span it came from so that it reaches the user
//! as a spanned rustc diagnostic.

use rustc_span::Span;

/// Why a kernel (or a function it calls) could not be compiled for the GPU.
#[derive(thiserror::Error, Debug, Clone)]
pub(crate) enum DeviceErrorKind {
    #[error("{construct} is not supported in GPU kernels yet")]
    Unsupported { construct: String },
    #[error("{construct} cannot run on the GPU: {why}")]
    NotOnGpu { construct: String, why: String },
    #[error("calls `{callee}`, whose MIR is not available, so it cannot be compiled for the GPU")]
    NoMir { callee: String },
    #[error("kernel `{kernel}`: {why}")]
    BadKernel { kernel: String, why: String },
    #[error("internal error while compiling `{function}` for the GPU: {message}")]
    Internal { function: String, message: String },
}

#[derive(Debug, Clone)]
pub(crate) struct DeviceError {
    pub(crate) kind: DeviceErrorKind,
    pub(crate) span: Span,
    /// Functions from the kernel down to the one that failed, outermost first.
    pub(crate) call_path: Vec<String>,
}

impl DeviceError {
    pub(crate) fn new(span: Span, kind: DeviceErrorKind) -> Self {
        DeviceError {
            kind,
            span,
            call_path: Vec::new(),
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
