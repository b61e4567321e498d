//! [`Tracker`]: the record of the work queued on one buffer, which orders later work after it
//! on any stream (docs/host.md, "Asynchronous work is sound").
//!
//! It records streams, not events. Work on the stream that did the last access is already
//! ordered after it, so a launch or a copy on that stream (the usual case: one stream) costs no
//! driver call. Work on another stream waits for an event recorded on the accessing stream at
//! that moment, which covers the access and whatever the stream queued since: later than
//! needed at worst, never earlier.

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{CudaStream, DriverError};

/// The work queued on one buffer that later work must wait for: the stream of the last write
/// and every stream that read it since.
#[derive(Default)]
pub(crate) struct Tracker {
    uses: Mutex<Uses>,
}

#[derive(Default)]
struct Uses {
    write: Option<Arc<CudaStream>>,
    /// Each stream that read the buffer since the last write, once.
    reads: Vec<Arc<CudaStream>>,
}

/// Whether `a` and `b` are one CUDA stream. Both are alive (the tracker holds its streams), so
/// the driver cannot have reused one's handle for the other.
fn same(a: &CudaStream, b: &CudaStream) -> bool {
    a.cu_stream() == b.cu_stream()
}

impl Tracker {
    fn lock(&self) -> std::sync::MutexGuard<'_, Uses> {
        // A poisoned lock only means another thread panicked while holding it; the streams
        // recorded are still streams of queued work.
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `stream` wait for what must finish before it reads (the last write) or writes
    /// (the last write and every read since), where that work is on another stream.
    pub(crate) fn order(&self, stream: &CudaStream, write: bool) -> Result<(), DriverError> {
        let uses = self.lock();
        let wait = |other: &Arc<CudaStream>| {
            if same(other, stream) {
                return Ok(());
            }
            let event = other.record_event(None)?;
            stream.wait(&event)
        };
        if let Some(writer) = &uses.write {
            wait(writer)?;
        }
        if write {
            uses.reads.iter().try_for_each(wait)?;
        }
        Ok(())
    }

    /// Records an access just queued on `stream`, after [`Tracker::order`]. Makes no driver
    /// call.
    pub(crate) fn record(&self, stream: &Arc<CudaStream>, write: bool) {
        let mut uses = self.lock();
        if write {
            uses.write = Some(Arc::clone(stream));
            // The write waited for every read (`order`), so its stream's order covers them.
            uses.reads.clear();
        } else if !uses.reads.iter().any(|reader| same(reader, stream)) {
            uses.reads.push(Arc::clone(stream));
        }
    }
}
