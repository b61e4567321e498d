//! [`KernelFailure`]: what a launch on the CPU emulator fails with, before anything runs (the
//! launch contract) or while it runs (a thread's panic, a barrier not every thread reached). The
//! GPU launcher's `oxide::host::Error` converts from it, so one `?` serves both.

/// A failed emulated launch: which kernel, and what went wrong.
#[derive(Debug, thiserror::Error)]
#[error("kernel `{kernel}`: {kind}")]
pub struct KernelFailure {
    /// The kernel's name (the PTX entry's).
    pub kernel: &'static str,
    /// What went wrong.
    pub kind: FailureKind,
}

/// What went wrong in an emulated launch.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureKind {
    /// A grid or block shape the GPU cannot run; nothing ran.
    #[error("invalid launch shape: {0}")]
    LaunchShape(String),
    /// Arguments whose lengths break the kernel's `same_len` or `covers` contract; nothing ran.
    #[error("argument lengths: {0}")]
    ArgumentLengths(String),
    /// Arguments that break the kernel's `requires` condition; nothing ran.
    #[error("arguments: {0}")]
    Requires(String),
    /// More dynamic shared memory per block than a launch may have
    /// ([`crate::MAX_DYNAMIC_SHARED_MEM_BYTES`]); nothing ran.
    #[error("{requested} bytes of dynamic shared memory per block; a launch has at most {limit}")]
    SharedMemory {
        /// `shared_mem_bytes` of the launch.
        requested: u32,
        /// The most a launch may ask for.
        limit: u32,
    },
    /// A thread of the kernel panicked. When several threads of the block panic, this is the
    /// lowest-numbered of those that panicked before the block was stopped.
    #[error("thread {thread:?} of block {block:?} panicked{}: {message}", at(.location))]
    Panicked {
        /// `blockIdx` of the thread.
        block: [u32; 3],
        /// `threadIdx` of the thread.
        thread: [u32; 3],
        /// The panic message.
        message: String,
        /// `file:line:column` of the panic, when known.
        location: Option<String>,
    },
    /// `sync_threads()` that not every thread of the block reached: every thread that has not
    /// returned waits at it, and at least one returned from the kernel without reaching it.
    #[error(
        "thread {thread:?} of block {block:?} waits at sync_threads() for threads that \
         returned from the kernel without reaching it (the first: thread {returned:?}); every \
         thread of a block must reach every sync_threads() (undefined behaviour on the GPU)"
    )]
    BarrierDivergence {
        /// `blockIdx` of the block.
        block: [u32; 3],
        /// `threadIdx` of the lowest-numbered waiting thread.
        thread: [u32; 3],
        /// `threadIdx` of the lowest-numbered thread that returned.
        returned: [u32; 3],
    },
    /// Threads of a block meeting at barriers that synchronise different things (a
    /// `sync_threads()` and the end of a phase of a shared array, the ends of phases of two
    /// arrays, or of two different phases of one): on the GPU they would pair up as one
    /// barrier, and the phases of block-shared memory would come apart. Where the kernel
    /// called each barrier is part of the message only: barriers pair by what they
    /// synchronise, not by their lines.
    #[error(
        "thread {thread:?} of block {block:?} waits at {at}, while thread {other:?} waits at \
         {other_at}: the threads meeting at a barrier must all end the same phase of the same \
         memory, and every thread of a block must reach the same barriers in the same order \
         (undefined behaviour on the GPU)"
    )]
    BarrierMismatch {
        /// `blockIdx` of the block.
        block: [u32; 3],
        /// `threadIdx` of the thread that arrived with another barrier than the waiting ones,
        /// and its barrier: what it synchronises, and where the kernel called it.
        thread: [u32; 3],
        at: String,
        /// `threadIdx` of the first thread waiting at the barrier, and its barrier.
        other: [u32; 3],
        other_at: String,
    },
    /// A shuffle that a lane of its mask never reaches: every thread of the block that has not
    /// returned waits, at `sync_threads()` or at a shuffle, so none can proceed.
    #[error(
        "thread {thread:?} of block {block:?} waits at a warp shuffle with mask {mask:#010x} \
         that thread {missing:?}, named by the mask, never reaches (it waits elsewhere); every \
         lane of a shuffle's mask that has not returned must make the same shuffle (undefined \
         behaviour on the GPU)"
    )]
    WarpDivergence {
        /// `blockIdx` of the block.
        block: [u32; 3],
        /// `threadIdx` of the lowest-numbered thread waiting at the shuffle.
        thread: [u32; 3],
        /// The shuffle's mask.
        mask: u32,
        /// `threadIdx` of the lowest-numbered thread the shuffle waits for.
        missing: [u32; 3],
    },
    /// The OS could not start the block's threads.
    #[error("could not start the {threads} OS threads of a block: {source}")]
    Spawn {
        /// Threads per block.
        threads: u32,
        /// The OS's reason.
        source: std::io::Error,
    },
}

fn at(location: &Option<String>) -> String {
    location
        .as_ref()
        .map_or_else(String::new, |l| format!(" at {l}"))
}

impl KernelFailure {
    /// `blockIdx` of the failing thread, if a thread failed.
    pub fn block(&self) -> Option<[u32; 3]> {
        match &self.kind {
            FailureKind::Panicked { block, .. }
            | FailureKind::BarrierDivergence { block, .. }
            | FailureKind::BarrierMismatch { block, .. }
            | FailureKind::WarpDivergence { block, .. } => Some(*block),
            _ => None,
        }
    }

    /// `threadIdx` of the failing thread, if a thread failed.
    pub fn thread(&self) -> Option<[u32; 3]> {
        match &self.kind {
            FailureKind::Panicked { thread, .. }
            | FailureKind::BarrierDivergence { thread, .. }
            | FailureKind::BarrierMismatch { thread, .. }
            | FailureKind::WarpDivergence { thread, .. } => Some(*thread),
            _ => None,
        }
    }
}

impl From<crate::LaunchConfigError> for FailureKind {
    fn from(e: crate::LaunchConfigError) -> FailureKind {
        match e {
            crate::LaunchConfigError::Shape(crate::LaunchShapeError(reason)) => {
                FailureKind::LaunchShape(reason)
            }
            crate::LaunchConfigError::SharedMemory { requested, limit } => {
                FailureKind::SharedMemory { requested, limit }
            }
        }
    }
}
