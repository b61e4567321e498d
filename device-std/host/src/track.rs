//! [`Tracker`]: the record of the work queued on one buffer, which orders later work after it
//! on any stream (docs/host.md, "Asynchronous work is sound").

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{CudaEvent, CudaStream, DriverError};

/// The work queued on one buffer that later work must wait for: the last write (on whichever
/// stream) and, per stream, the last read since. cudarc keeps one read event per buffer, which
/// a read on a second stream overwrites, so a write or a free could pass a read still running
/// on the first; one event per stream cannot be overwritten by another stream's read.
#[derive(Default)]
pub(crate) struct Tracker {
    uses: Mutex<Uses>,
}

#[derive(Default)]
struct Uses {
    write: Option<CudaEvent>,
    /// The last read on each stream (by [`Gpu::stream_id`]) since the last write.
    reads: Vec<(u64, CudaEvent)>,
}

impl Tracker {
    fn lock(&self) -> std::sync::MutexGuard<'_, Uses> {
        // A poisoned lock only means another thread panicked while holding it; the events
        // recorded are still events of queued work.
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `stream` wait for what must finish before it reads (the last write) or writes
    /// (the last write and every read since).
    pub(crate) fn order(&self, stream: &CudaStream, write: bool) -> Result<(), DriverError> {
        let uses = self.lock();
        if let Some(event) = &uses.write {
            stream.wait(event)?;
        }
        if write {
            for (_, event) in &uses.reads {
                stream.wait(event)?;
            }
        }
        Ok(())
    }

    /// Records an access just queued on `stream` (of id `stream_id`), after [`Tracker::order`].
    /// If recording fails, waits for the stream instead, so that nothing unrecorded is left
    /// running.
    pub(crate) fn record(
        &self,
        stream: &Arc<CudaStream>,
        stream_id: u64,
        write: bool,
    ) -> Result<(), DriverError> {
        let result = self.try_record(stream, stream_id, write);
        if result.is_err() {
            let _ = stream.synchronize();
        }
        result
    }

    fn try_record(
        &self,
        stream: &Arc<CudaStream>,
        stream_id: u64,
        write: bool,
    ) -> Result<(), DriverError> {
        let mut uses = self.lock();
        if write {
            match &uses.write {
                Some(event) => event.record(stream)?,
                None => uses.write = Some(stream.record_event(None)?),
            }
            // The write waited for every read (`order`), so its event covers them.
            uses.reads.clear();
        } else if let Some((_, event)) = uses.reads.iter().find(|(id, _)| *id == stream_id) {
            event.record(stream)?;
        } else {
            let event = stream.record_event(None)?;
            uses.reads.push((stream_id, event));
        }
        Ok(())
    }
}
