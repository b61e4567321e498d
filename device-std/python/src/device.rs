//! The GPU side of a call: one [`Gpu`] per device for the process (so each kernel's PTX is
//! loaded once), a handle per (device, stream) the calls launched on, the stream a call
//! launches on by default (PyTorch's current stream), and the thread's current CUDA context
//! put back after the launch (PyTorch reads its current device from it).

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys;
use oxide_host::{Error, Gpu, Stream};
use pyo3::intern;
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

/// Checks each `(name, range)` with [`Gpu::check_device_memory`] on device `ordinal`: device
/// memory of that device, inside one allocation. Done before any stream the caller named is
/// borrowed, so that a call whose memory is refused never hands the driver its stream.
pub fn check_memory(
    ordinal: usize,
    ranges: &[(&str, std::ops::Range<u64>)],
) -> Result<(), crate::CallError> {
    let mut handles = HANDLES.lock().unwrap_or_else(PoisonError::into_inner);
    let gpu = open(&mut handles, ordinal)?;
    for (name, bytes) in ranges {
        let len = usize::try_from(bytes.end - bytes.start).unwrap_or(usize::MAX);
        gpu.check_device_memory(bytes.start, len).map_err(|e| {
            crate::refusal::Refusal::device_error(format!("argument `{name}`: {e}"))
        })?;
    }
    Ok(())
}

/// The `Gpu` of device `ordinal`, opened the first time.
fn open(handles: &mut Handles, ordinal: usize) -> Result<&Gpu, Error> {
    if !handles.gpus.iter().any(|(o, _)| *o == ordinal) {
        let gpu = Gpu::new(ordinal)?;
        handles.gpus.push((ordinal, gpu));
    }
    handles
        .gpus
        .iter()
        .find(|(o, _)| *o == ordinal)
        .map(|(_, gpu)| gpu)
        .ok_or(Error::NoDevice { ordinal, count: 0 })
}

/// A handle of device `ordinal` whose launches go to the raw stream `stream`.
///
/// `stream` is PyTorch's current stream of the device, what the caller passed as `stream=`
/// (its `cuda_stream`), or a `__cuda_array_interface__` producer's `stream`. The handle is kept
/// and reused for that same raw value.
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
    let gpu = open(&mut handles, ordinal)?;
    // SAFETY: `stream` is a stream handle its owner keeps alive: PyTorch's current stream
    // (PyTorch never destroys the streams of its pools), the stream the caller passed for this
    // launch (`stream=`), or the stream a `__cuda_array_interface__` producer named (v3's
    // `stream`), each alive while the call queues work on it. For the last two this is the
    // caller's or the producer's word, as their pointers are: a made-up integer reaches the
    // driver here (docs/python.md, "What the boundary trusts"). The handle is used again only
    // when a later call passes the same raw value, as a live stream again; `foreign_stream`
    // checked, when the handle was made, that it is one of this device's primary context (a
    // destroyed stream whose value another context's stream reuses is not checked again).
    // Foreign views keep the stream only for the call.
    let handle = Arc::new(unsafe { gpu.foreign_stream(stream) }?);
    if handles.streams.len() == STREAMS_KEPT {
        handles.streams.remove(0);
    }
    handles.streams.push((ordinal, stream, Arc::clone(&handle)));
    Ok(handle)
}

/// The stream a call on device `ordinal` launches on when it names none: PyTorch's current
/// stream of the device when PyTorch is loaded, so that the kernel is ordered with PyTorch's
/// work and captured by `torch.cuda.graph`; else the legacy default stream (0).
///
/// Read as `torch._C._cuda_getCurrentRawStream(ordinal)` where this PyTorch has it (the raw
/// handle, what `torch.compile`'s generated code reads for its launches: no Python `Stream` is
/// made), else `torch.cuda.current_stream(ordinal).cuda_stream`; both are the same handle.
pub fn default_stream(py: Python<'_>, ordinal: usize) -> PyResult<usize> {
    let Some(torch) = crate::torch_tensor::imported(py)? else {
        return Ok(0);
    };
    if let Ok(raw) = torch
        .getattr(intern!(py, "_C"))
        .and_then(|c| c.getattr(intern!(py, "_cuda_getCurrentRawStream")))
    {
        return raw.call1((ordinal,))?.extract();
    }
    torch
        .getattr(intern!(py, "cuda"))?
        .call_method1(intern!(py, "current_stream"), (ordinal,))?
        .getattr(intern!(py, "cuda_stream"))?
        .extract()
}

/// The device a call whose tensors name none (`__cuda_array_interface__` only) launches on:
/// PyTorch's current device when PyTorch is loaded, else 0. The driver then checks that each
/// pointer is that device's memory.
pub fn default_device(py: Python<'_>) -> PyResult<usize> {
    match crate::torch_tensor::imported(py)? {
        Some(torch) => torch
            .getattr("cuda")?
            .call_method0("current_device")?
            .extract(),
        None => Ok(0),
    }
}

/// The thread's current CUDA context when made (none, too), made current again when dropped:
/// opening a device, borrowing a stream, checking memory and launching each make the device's
/// primary context current, and PyTorch reads its current device from the current context
/// (`cudaGetDevice`), so a call on `cuda:1` from a thread whose device is `cuda:0` would
/// otherwise leave `torch.cuda.current_device()` at 1. Made before any of those, so every
/// path out of a call (a refusal, a driver error, the launch) puts the context back.
pub struct RestoreContext(Option<sys::CUcontext>);

impl RestoreContext {
    /// Nothing to put back when the driver library is missing (nothing will be made current)
    /// or the driver is not initialised (no context is current, and opening the device will
    /// initialise it: the context it leaves current is then put back to none).
    pub fn save() -> Self {
        // SAFETY: only tries to dlopen the library names cudarc would use; cudarc's calls
        // below would panic without it.
        if !unsafe { sys::is_culib_present() } {
            return RestoreContext(None);
        }
        let mut context: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: the driver library is loaded (above) and writes one handle to `context`.
        match unsafe { sys::cuCtxGetCurrent(&mut context) } {
            sys::CUresult::CUDA_SUCCESS => RestoreContext(Some(context)),
            // Before `cuInit` no context can be current.
            sys::CUresult::CUDA_ERROR_NOT_INITIALIZED => RestoreContext(Some(std::ptr::null_mut())),
            _ => RestoreContext(None),
        }
    }
}

impl Drop for RestoreContext {
    fn drop(&mut self) {
        let Some(context) = self.0 else {
            return;
        };
        // SAFETY: `context` was the thread's current context when the call began, or null (no
        // context current, which `cuCtxSetCurrent` restores by unbinding). A non-null one is
        // still alive: a primary context stays alive while any handle retains it (this call's
        // `Gpu` for its own device; PyTorch's for the devices it uses), and a context the
        // caller made is the caller's to keep, and no Python code runs between the save and
        // this drop that could destroy it. A failure leaves the launch's context current,
        // which is a context of the same process.
        let _ = unsafe { sys::cuCtxSetCurrent(context) };
    }
}
