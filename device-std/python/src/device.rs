//! The GPU side of a call: one [`Gpu`] per device for the process (so each kernel's PTX is
//! loaded once), a handle per (device, stream) the calls launched on, the stream a call
//! launches on by default (PyTorch's current stream), and the thread's current CUDA context
//! put back after the launch (PyTorch reads its current device from it).

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys;
use oxide_host::{Error, Gpu, Stream};
use pyo3::prelude::*;

/// The handles made so far: each device's `Gpu`, and a handle per stream launched on.
static HANDLES: Mutex<Handles> = Mutex::new(Handles {
    gpus: Vec::new(),
    streams: Vec::new(),
});

struct Handles {
    gpus: Vec<(usize, Gpu)>,
    /// `(device, raw stream, handle)`, the most recent last.
    streams: Vec<(usize, usize, Arc<Stream>)>,
}

/// Stream handles kept for reuse; the oldest goes when there are more.
const STREAMS_KEPT: usize = 32;

/// A handle of device `ordinal` whose launches go to the raw stream `stream`.
///
/// `stream` is PyTorch's current stream of the device, or what the caller passed as `stream=`
/// (its `cuda_stream`). The handle is kept and reused for that same raw value.
pub fn stream_handle(ordinal: usize, stream: usize) -> Result<Arc<Stream>, Error> {
    let mut handles = HANDLES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = handles
        .streams
        .iter()
        .position(|&(o, s, _)| o == ordinal && s == stream)
    {
        let entry = handles.streams.remove(at);
        let handle = Arc::clone(&entry.2);
        handles.streams.push(entry);
        return Ok(handle);
    }
    if !handles.gpus.iter().any(|(o, _)| *o == ordinal) {
        let gpu = Gpu::new(ordinal)?;
        handles.gpus.push((ordinal, gpu));
    }
    let gpu = handles
        .gpus
        .iter()
        .find(|(o, _)| *o == ordinal)
        .map(|(_, gpu)| gpu)
        .ok_or(Error::NoDevice { ordinal, count: 0 })?;
    // SAFETY: `stream` is a stream handle its owner keeps alive: PyTorch's current stream
    // (PyTorch never destroys the streams of its pools), or the stream the caller passed for
    // this launch, which the caller keeps alive while it queues work on it (a Python
    // `torch.cuda.Stream` passed as `stream=` is alive during the call). The handle is used
    // again only when a later call passes the same raw value, as a live stream again;
    // `foreign_stream` checked that it is one of this device's primary context. A handle kept
    // for a destroyed stream whose value a stream of another context reuses would make the
    // launch fail with a driver error, not run elsewhere (the kernel's module is this
    // context's). Foreign views keep the stream only for the call.
    let handle = Arc::new(unsafe { gpu.foreign_stream(stream) }?);
    if handles.streams.len() == STREAMS_KEPT {
        handles.streams.remove(0);
    }
    handles.streams.push((ordinal, stream, Arc::clone(&handle)));
    Ok(handle)
}

/// The stream a call on device `ordinal` launches on when it names none: PyTorch's current
/// stream of the device when PyTorch is loaded (`torch.cuda.current_stream(ordinal)`), so
/// that the kernel is ordered with PyTorch's work and captured by `torch.cuda.graph`; else the
/// legacy default stream (0).
pub fn default_stream(py: Python<'_>, ordinal: usize) -> PyResult<usize> {
    let modules = py.import("sys")?.getattr("modules")?;
    let Some(torch) = modules.get_item("torch").ok().filter(|t| !t.is_none()) else {
        return Ok(0);
    };
    torch
        .getattr("cuda")?
        .call_method1("current_stream", (ordinal,))?
        .getattr("cuda_stream")?
        .extract()
}

/// The device a call whose tensors name none (`__cuda_array_interface__` only) launches on:
/// PyTorch's current device when PyTorch is loaded, else 0. The driver then checks that each
/// pointer is that device's memory.
pub fn default_device(py: Python<'_>) -> PyResult<usize> {
    let modules = py.import("sys")?.getattr("modules")?;
    match modules.get_item("torch").ok().filter(|t| !t.is_none()) {
        Some(torch) => torch
            .getattr("cuda")?
            .call_method0("current_device")?
            .extract(),
        None => Ok(0),
    }
}

/// The thread's current CUDA context when made, made current again when dropped: a launch
/// makes its device's primary context current, and PyTorch reads its current device from the
/// current context.
pub struct RestoreContext(sys::CUcontext);

impl RestoreContext {
    /// Only after a `Gpu` was opened: the driver library is loaded.
    pub fn save(_opened: &Gpu) -> Self {
        let mut context: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: the driver is loaded (a `Gpu` is open) and writes one handle to `context`.
        let saved = unsafe { sys::cuCtxGetCurrent(&mut context) }.result();
        RestoreContext(if saved.is_ok() {
            context
        } else {
            std::ptr::null_mut()
        })
    }
}

impl Drop for RestoreContext {
    fn drop(&mut self) {
        if self.0.is_null() {
            return;
        }
        // SAFETY: `self.0` was the thread's current context, a context still alive: a primary
        // context stays alive while any handle retains it, and a context the caller made is
        // the caller's to keep. A failure leaves the launch's context current, which is a
        // context of the same process.
        let _ = unsafe { sys::cuCtxSetCurrent(self.0) };
    }
}
