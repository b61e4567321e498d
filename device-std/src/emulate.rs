//! The host's answer to "which GPU thread am I?".
//!
//! On the GPU the backend replaces the [`crate::thread`] intrinsics with special registers. On
//! the host their bodies read a per-OS-thread [`ThreadContext`], which is thread 0 of a 1x1x1
//! grid unless [`with_thread_context`] says otherwise. This is the hook a CPU emulator will use
//! to run a kernel once per simulated thread; the emulator itself (grid loops, `sync_threads`
//! barriers) is not written yet.

use std::cell::Cell;

/// Indices and dimensions of one simulated GPU thread, each as `[x, y, z]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadContext {
    /// `threadIdx`: this thread's position in its block.
    pub thread_idx: [u32; 3],
    /// `blockIdx`: this thread's block's position in the grid.
    pub block_idx: [u32; 3],
    /// `blockDim`: threads per block along each axis.
    pub block_dim: [u32; 3],
    /// `gridDim`: blocks per grid along each axis.
    pub grid_dim: [u32; 3],
}

impl ThreadContext {
    /// Thread 0 of a grid of one block of one thread: what a plain host call of a kernel sees.
    pub const SINGLE: ThreadContext = ThreadContext {
        thread_idx: [0; 3],
        block_idx: [0; 3],
        block_dim: [1; 3],
        grid_dim: [1; 3],
    };
}

impl Default for ThreadContext {
    fn default() -> Self {
        Self::SINGLE
    }
}

thread_local! {
    static CONTEXT: Cell<ThreadContext> = const { Cell::new(ThreadContext::SINGLE) };
}

/// The calling OS thread's simulated GPU thread.
pub(crate) fn current() -> ThreadContext {
    CONTEXT.with(Cell::get)
}

/// Runs `f` as the simulated GPU thread `ctx` on the calling OS thread, then restores the
/// previous context (also when `f` panics).
pub fn with_thread_context(ctx: ThreadContext, f: impl FnOnce()) {
    struct Restore(ThreadContext);
    impl Drop for Restore {
        fn drop(&mut self) {
            CONTEXT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CONTEXT.with(|c| c.replace(ctx)));
    f();
}
