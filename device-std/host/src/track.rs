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
        self.lock().order(stream, write)
    }

    /// Records an access just queued on `stream`, after [`Tracker::order`]. Makes no driver
    /// call.
    pub(crate) fn record(&self, stream: &Arc<CudaStream>, write: bool) {
        self.lock().record(stream, write);
    }

    /// [`Tracker::order`] and [`Tracker::record`] under one lock, for a launch: the access is
    /// recorded before the kernel is queued, which orders later work after it at least as
    /// well (a launch that then fails to queue leaves a record later work waits for at
    /// worst). Each buffer is one argument of a launch at most once as written (a `&mut`
    /// borrow), so ordering and recording argument by argument is ordering them all first.
    pub(crate) fn order_and_record(
        &self,
        stream: &Arc<CudaStream>,
        write: bool,
    ) -> Result<(), DriverError> {
        let mut uses = self.lock();
        uses.order(stream, write)?;
        uses.record(stream, write);
        Ok(())
    }
}

impl Uses {
    fn order(&self, stream: &CudaStream, write: bool) -> Result<(), DriverError> {
        let wait = |other: &Arc<CudaStream>| {
            if same(other, stream) {
                return Ok(());
            }
            let event = other.record_event(None)?;
            stream.wait(&event)
        };
        if let Some(writer) = &self.write {
            wait(writer)?;
        }
        if write {
            self.reads.iter().try_for_each(wait)?;
        }
        Ok(())
    }

    /// Makes no driver call, and takes no reference to the stream it already holds (the
    /// usual case: one stream).
    fn record(&mut self, stream: &Arc<CudaStream>, write: bool) {
        if write {
            if !self
                .write
                .as_ref()
                .is_some_and(|writer| same(writer, stream))
            {
                self.write = Some(Arc::clone(stream));
            }
            // The write waited for every read (`order`), so its stream's order covers them.
            self.reads.clear();
        } else if !self.reads.iter().any(|reader| same(reader, stream)) {
            self.reads.push(Arc::clone(stream));
        }
    }
}
