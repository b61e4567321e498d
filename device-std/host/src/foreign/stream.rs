//! [`Gpu::foreign_stream`]: a [`Stream`] handle whose work goes to a stream another runtime
//! created (PyTorch's current stream), in this device's primary context.

use cudarc::driver::sys;

use crate::{Error, Gpu, Stream};

impl Gpu {
    /// A handle whose launches and copies go to `stream`, a CUDA stream another runtime owns
    /// (`torch.cuda.current_stream().cuda_stream`): 0 is the legacy default stream, as are
    /// `CU_STREAM_LEGACY` (1) and `CU_STREAM_PER_THREAD` (2) per the driver. It shares this
    /// handle's modules and log of launches; dropping it does not destroy the stream.
    ///
    /// The stream must belong to this device's primary context, the context every `Gpu` of the
    /// device uses and PyTorch's runtime uses too: [`Error::ForeignStream`] otherwise (a stream
    /// of another device, or of a context made with `cuCtxCreate`).
    ///
    /// A stream that is capturing a CUDA graph (`torch.cuda.graph`) captures the launches
    /// queued on it: the module must then be loaded already (a first launch outside the
    /// capture, as PyTorch's own warm-up does), since loading one is not capturable.
    ///
    /// # Safety
    /// `stream` is a CUDA stream handle that its owner keeps alive (not destroyed) for as long
    /// as the returned handle, or anything that recorded work queued on it, may use it: the
    /// record of a buffer or view that a launch or copy on it accessed keeps the stream, to
    /// order later work on other streams after that access (a foreign view's record ends with
    /// the view).
    pub unsafe fn foreign_stream(&self, stream: usize) -> Result<Stream, Error> {
        let raw = stream as sys::CUstream;
        self.ctx.bind_to_thread().map_err(|e| self.blame(e))?;
        let mut context: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `raw` is a live stream (the caller's contract); the driver writes one
        // context handle to `context`.
        unsafe { sys::cuStreamGetCtx(raw, &mut context) }
            .result()
            .map_err(|source| Error::ForeignStream {
                stream,
                ordinal: self.ordinal(),
                reason: crate::error::describe(&source),
            })?;
        if context != self.ctx.cu_ctx() {
            return Err(Error::ForeignStream {
                stream,
                ordinal: self.ordinal(),
                reason: "it belongs to another CUDA context (another device's, or one that is \
                         not a primary context)"
                    .into(),
            });
        }
        // SAFETY: `raw` is a stream of this context (checked above) that its owner keeps alive
        // while the handle or a record of work on it may use it (the caller's contract);
        // work queued through the handle is ordered with the owner's work by the stream itself.
        let borrowed = unsafe { self.ctx.wrap_borrowed_stream(raw) };
        Ok(self.with_stream(borrowed))
    }
}
