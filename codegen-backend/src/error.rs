//! Errors of the device path. Each carries the MIR span it came from so that it reaches the user
//! as a spanned rustc diagnostic.

use std::fmt;

use rustc_span::Span;

/// Why a kernel (or a function it calls) could not be compiled for the GPU.
#[derive(thiserror::Error, Debug, Clone)]
pub(crate) enum DeviceErrorKind {
    #[error("{construct} is not supported in GPU kernels yet")]
    Unsupported { construct: String },
    #[error("{construct} cannot run on the GPU: {why}")]
    NotOnGpu { construct: String, why: Why },
    #[error("calls `{callee}`, whose MIR is not available, so it cannot be compiled for the GPU")]
    NoMir { callee: String },
    /// Dropping a value that owns heap memory; the value was made by a call that cannot run on
    /// the GPU either, which is reported where it is, so this one only stands alone.
    #[error("the heap allocation `{ty}` cannot run on the GPU: {}", HostOnly::Heap.why())]
    HeapDrop { ty: String },
    #[error(
        "the `static mut` `{name}` is one copy in global memory for the whole grid, which every thread of every block would race on"
    )]
    StaticMut { name: String, declared: Span },
    #[error("kernel `{kernel}`: {why}")]
    BadKernel { kernel: String, why: String },
    /// A barrier under a condition that may differ between the threads of a block.
    #[error("{0}")]
    DivergentBarrier(Box<DivergentBarrier>),
    /// Values that must be the same in every thread of a block and may not be.
    #[error(
        "the values given to `{callee}()` must be the same in every thread of a block, but these may differ between threads"
    )]
    DivergentOperands {
        callee: String,
        /// Why they may differ, and where that comes from.
        cause: String,
        cause_span: Span,
    },
    /// Inline PTX whose `=` constraints do not match what its function returns.
    #[error(
        "the inline PTX of `{callee}` writes {outputs} output(s) (its `=` constraints), but the function returns {returns}: return `()` for none, a scalar for one, `[T; N]` for N"
    )]
    AsmOutputs {
        callee: String,
        outputs: usize,
        returns: String,
    },
    /// A `float_convert` mark on a function of another signature.
    #[error(
        "`{callee}` is marked `float_convert`, which converts `fn(f32) -> u16` (round to the 16-bit format, its bits) or `fn(u16) -> f32` (widen the format's bits), but it is `{signature}`: give it one of those signatures"
    )]
    FloatConvertSignature { callee: String, signature: String },
    /// A constant the function requires (a `const { assert!(..) }`) fails for these types; rustc
    /// reported the failure itself, where the constant is written.
    #[error(
        "`{function}`, called here, requires a constant that fails for these types (the error above says which): change the types or constants this call gives it"
    )]
    ConstantFailed { function: String },
    #[error("internal error while compiling `{function}` for the GPU: {message}")]
    Internal { function: String, message: String },
}

/// Why a standard-library function cannot run on the GPU: the registry's classification
/// (`Registry::host_only`), defined with the errors that carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostOnly {
    Formatting,
    Heap,
    ThreadLocal,
    MathWithoutGpuVersion,
    Std,
}

impl HostOnly {
    pub(crate) fn why(self) -> &'static str {
        match self {
            HostOnly::Formatting => {
                "the formatting machinery uses trait objects and strings that device code does not have"
            }
            HostOnly::Heap => "device code has no heap; use values, arrays and slices",
            HostOnly::ThreadLocal => {
                "GPU threads have no thread-local storage and cannot spawn or park threads"
            }
            HostOnly::MathWithoutGpuVersion => {
                "NVIDIA's libdevice, which computes math functions on the GPU, has no version of it"
            }
            HostOnly::Std => {
                "`std` is host-only (I/O, threads, the OS); device code can use `core`"
            }
        }
    }
}

/// Why a construct cannot run on the GPU. Typed, so that reports compare reasons, not sentences
/// (a heap value's drop is left out after the call that made it, `device::report_all`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// A standard-library function the registry classifies.
    HostOnly(HostOnly),
    /// Any other construct, said where it is found.
    Other(String),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::HostOnly(host_only) => f.write_str(host_only.why()),
            Why::Other(why) => f.write_str(why),
        }
    }
}

impl From<HostOnly> for Why {
    fn from(host_only: HostOnly) -> Self {
        Why::HostOnly(host_only)
    }
}

impl From<String> for Why {
    fn from(why: String) -> Self {
        Why::Other(why)
    }
}

impl From<&str> for Why {
    fn from(why: &str) -> Self {
        Why::Other(why.to_string())
    }
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
    why: impl Into<Why>,
) -> DeviceResult<T> {
    Err(DeviceError::new(
        span,
        DeviceErrorKind::NotOnGpu {
            construct: construct.into(),
            why: why.into(),
        },
    ))
}

// The uniformity analysis's report is an error kind like the others; it is defined here, at the
// bottom, so that errors depend on nothing above them (the analysis produces it, `device`
// prints it).

/// A point every thread of a block must reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncKind {
    /// `sync_threads()`: `bar.sync`.
    Barrier,
    /// A safe warp function (`oxide::warp::sum`...): its full-warp shuffles need every lane.
    WarpCollective,
}

impl SyncKind {
    /// The kind, with its article, in a sentence.
    pub(crate) fn described(self) -> &'static str {
        match self {
            SyncKind::Barrier => "a barrier",
            SyncKind::WarpCollective => "a warp collective (every lane of the warp takes part)",
        }
    }

    /// The kind's noun.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            SyncKind::Barrier => "barrier",
            SyncKind::WarpCollective => "warp collective",
        }
    }
}

/// A barrier that only some threads of a block may reach.
#[derive(Clone, Debug)]
pub(crate) struct DivergentBarrier {
    /// What the call calls: the barrier (`sync_threads()`) or a function that reaches one.
    pub(crate) callee: String,
    /// Where a called function executes the barrier; `None` when the call is the barrier.
    pub(crate) barrier_in_callee: Option<Span>,
    /// A barrier or a warp collective.
    pub(crate) kind: SyncKind,
    /// The branch condition the call depends on.
    pub(crate) condition: Span,
    /// Why the condition may differ between threads, and where that comes from.
    pub(crate) cause: String,
    pub(crate) cause_span: Span,
}

impl fmt::Display for DivergentBarrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.barrier_in_callee {
            None => write!(
                f,
                "`{}` is {}, but only some threads of a block may reach this call",
                self.callee,
                self.kind.described()
            ),
            Some(_) => write!(
                f,
                "`{}` executes {}, but only some threads of a block may reach this call",
                self.callee,
                self.kind.described()
            ),
        }
    }
}

impl DivergentBarrier {
    /// The notes of the report, each at its span: the condition, what it depends on, and the
    /// barrier inside the function called.
    pub(crate) fn notes(&self) -> Vec<(Span, String)> {
        let mut notes = Vec::new();
        if self.condition.contains(self.cause_span) || self.cause_span.is_dummy() {
            notes.push((
                self.condition,
                format!(
                    "whether it runs depends on this condition, which may differ between the threads of a block: it depends on {}",
                    self.cause
                ),
            ));
        } else {
            notes.push((
                self.condition,
                "whether it runs depends on this condition, which may differ between the threads of a block".into(),
            ));
            notes.push((
                self.cause_span,
                format!("the condition depends on {}", self.cause),
            ));
        }
        if let Some(barrier) = self.barrier_in_callee {
            notes.push((
                barrier,
                format!("`{}` reaches this {}", self.callee, self.kind.noun()),
            ));
        }
        notes
    }

    pub(crate) fn help(&self) -> &'static str {
        match self.kind {
            SyncKind::Barrier => {
                "every thread of a block must reach each barrier, or none (a barrier that only some threads reach is undefined behaviour on the GPU): call it where all the threads of the block do, and put the condition inside, around the work that only some threads do"
            }
            SyncKind::WarpCollective => {
                "every thread of a block must reach each warp collective, or none (a shuffle that some lanes of the warp skip is undefined behaviour on the GPU): call it where all the threads of the block do, and put the condition inside, around the work that only some threads do"
            }
        }
    }
}
