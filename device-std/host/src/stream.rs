//! Streams ([`Stream`]: a [`Gpu`] handle whose work goes to a stream of its own), events
//! ([`Event`]), and the log that names the kernel an asynchronous failure belongs to.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;

use crate::{Error, Gpu, error};

/// A CUDA stream of a [`Gpu`] (`cudaStreamCreateWithFlags(cudaStreamNonBlocking)`), made by
/// [`Gpu::new_stream`]. It derefs to a [`Gpu`] whose work goes to this stream: a launch
/// (`kernel::launch(&stream, cfg, ...)`), a copy, a fill, [`Gpu::synchronize`] (which waits for
/// this stream only), [`Gpu::record_event`] and [`Gpu::wait_event`]. Work on two streams runs
/// in any order, but never out of order on one buffer: each access waits for the accesses to
/// the same buffer it must follow, on whichever stream (docs/host.md).
pub struct Stream {
    gpu: Gpu,
}

impl Deref for Stream {
    type Target = Gpu;

    fn deref(&self) -> &Gpu {
        &self.gpu
    }
}

/// Ids of the streams of every [`Gpu`] handle: distinct for as long as the process runs, even
/// where the driver reuses a destroyed stream's handle. 0 is no stream's.
static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_stream_id() -> u64 {
    NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed)
}

impl Gpu {
    /// A new stream of this device. Work queued on it is asynchronous with respect to this
    /// handle's stream; order it with events ([`Gpu::record_event`], [`Gpu::wait_event`]) or
    /// waits. The first stream of a device waits for the work queued so far (cudarc moves the
    /// context to tracking work across streams then).
    pub fn new_stream(&self) -> Result<Stream, Error> {
        let stream = self.ctx.new_stream().map_err(|e| self.blame(e))?;
        Ok(self.with_stream(stream))
    }

    /// A handle of this device whose work goes to `stream`, sharing this handle's modules, log
    /// of launches and device properties.
    pub(crate) fn with_stream(&self, stream: Arc<cudarc::driver::CudaStream>) -> Stream {
        Stream {
            gpu: Gpu {
                ctx: Arc::clone(&self.ctx),
                stream,
                stream_id: next_stream_id(),
                modules: Arc::clone(&self.modules),
                kernels: Arc::clone(&self.kernels),
                launches: Arc::clone(&self.launches),
                compute_capability: Arc::clone(&self.compute_capability),
                shared_per_block_opt_in: Arc::clone(&self.shared_per_block_opt_in),
                // A stream of its own, not capturing even when this handle is a capture's.
                capture: None,
            },
        }
    }

    /// Records the work queued on this stream so far (`cudaEventRecord`), with timing.
    pub fn record_event(&self) -> Result<Event, Error> {
        self.refuse_in_capture("record_event", crate::error::not_capturable::EVENTS)?;
        let seen = self.launch_count();
        let event = self
            .stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| self.blame(e))?;
        Ok(Event {
            event,
            launches: Arc::clone(&self.launches),
            stream_id: self.stream_id,
            seen,
        })
    }

    /// Makes the work queued on this stream from now on wait until `event`'s work is done
    /// (`cudaStreamWaitEvent`), without blocking the host.
    pub fn wait_event(&self, event: &Event) -> Result<(), Error> {
        self.refuse_in_capture("wait_event", crate::error::not_capturable::EVENTS)?;
        self.stream.wait(&event.event).map_err(|e| self.blame(e))
    }

    /// Waits until the work of every stream of this device has finished
    /// (`cudaDeviceSynchronize`), and reports any asynchronous kernel error.
    pub fn synchronize_device(&self) -> Result<(), Error> {
        self.refuse_in_capture("synchronize_device", crate::error::not_capturable::WAITS)?;
        let seen = self.launch_log().all();
        self.ctx.synchronize().map_err(|e| self.blame(e))?;
        self.launch_log().waited_all(&seen);
        Ok(())
    }
}

/// The work queued on a stream up to a point ([`Gpu::record_event`]).
pub struct Event {
    event: CudaEvent,
    launches: Arc<Mutex<LaunchLog>>,
    stream_id: u64,
    /// Launches on the stream when the event was recorded.
    seen: u64,
}

impl Event {
    /// Waits until the recorded work is done (`cudaEventSynchronize`); a kernel of it that
    /// failed gives [`Error::KernelFailed`].
    pub fn synchronize(&self) -> Result<(), Error> {
        self.event.synchronize().map_err(|e| self.blame(e))?;
        self.log().waited(self.stream_id, self.seen);
        Ok(())
    }

    /// Whether the recorded work is done, without waiting (`cudaEventQuery`).
    pub fn is_complete(&self) -> Result<bool, Error> {
        let done = self.event.try_is_complete().map_err(|e| self.blame(e))?;
        if done {
            self.log().waited(self.stream_id, self.seen);
        }
        Ok(done)
    }

    /// Milliseconds of GPU time from this event to `end` (`cudaEventElapsedTime`); waits for
    /// both.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32, Error> {
        let ms = self
            .event
            .elapsed_ms(&end.event)
            .map_err(|e| self.blame(e))?;
        let mut log = self.log();
        log.waited(self.stream_id, self.seen);
        log.waited(end.stream_id, end.seen);
        Ok(ms)
    }

    fn log(&self) -> std::sync::MutexGuard<'_, LaunchLog> {
        self.launches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn blame(&self, e: cudarc::driver::DriverError) -> Error {
        self.log().blame(e)
    }
}

/// Which kernel an asynchronous failure belongs to, over all the streams of one device: per
/// stream, its launches so far, the waits that succeeded and the last kernel launched. A
/// kernel's fault is the context's, so any later call may report it; the kernel blamed is the
/// one launched last among those not known to have finished.
#[derive(Debug, Default)]
pub(crate) struct LaunchLog {
    streams: Vec<StreamLog>,
    /// Launches on all streams so far: orders the streams' last launches.
    total: u64,
    /// The first kernel fault a call reported (the kernel blamed, if any, and the driver's
    /// words): the context is lost from then on, and `Gpu::new` refuses to share it.
    lost: Option<(Option<Arc<str>>, String)>,
}

#[derive(Debug)]
struct StreamLog {
    id: u64,
    /// Launches queued on the stream so far.
    launches: u64,
    /// Every launch up to this count has finished (a wait that began after it succeeded).
    finished: u64,
    /// The kernel launched last, and when (`LaunchLog::total` then).
    last: Option<(u64, Arc<str>)>,
}

impl LaunchLog {
    fn entry(&mut self, id: u64) -> &mut StreamLog {
        let at = match self.streams.iter().position(|s| s.id == id) {
            Some(at) => at,
            None => {
                self.streams.push(StreamLog {
                    id,
                    launches: 0,
                    finished: 0,
                    last: None,
                });
                self.streams.len() - 1
            }
        };
        &mut self.streams[at]
    }

    pub(crate) fn launched(&mut self, id: u64, kernel: &Arc<str>) {
        self.total += 1;
        let total = self.total;
        let entry = self.entry(id);
        entry.launches += 1;
        // The same kernel again (a loop of launches) takes no new reference to its name.
        match &mut entry.last {
            Some((at, last)) if Arc::ptr_eq(last, kernel) => *at = total,
            last => *last = Some((total, Arc::clone(kernel))),
        }
    }

    /// Launches on stream `id` so far; taken before a wait, given to [`LaunchLog::waited`]
    /// after it succeeds.
    pub(crate) fn count(&self, id: u64) -> u64 {
        self.streams
            .iter()
            .find(|s| s.id == id)
            .map_or(0, |s| s.launches)
    }

    /// Launches on every stream so far, for a wait of the whole device.
    pub(crate) fn all(&self) -> Vec<(u64, u64)> {
        self.streams.iter().map(|s| (s.id, s.launches)).collect()
    }

    /// A wait on stream `id` that began after `seen` launches there has succeeded. A launch
    /// queued meanwhile (from another thread) stays pending.
    pub(crate) fn waited(&mut self, id: u64, seen: u64) {
        let entry = self.entry(id);
        entry.finished = entry.finished.max(seen);
    }

    pub(crate) fn waited_all(&mut self, seen: &[(u64, u64)]) {
        for &(id, count) in seen {
            self.waited(id, count);
        }
    }

    /// The error for a failed driver call of the device ([`error::after_launch`]); a kernel's
    /// fault is remembered as the loss of the context.
    pub(crate) fn blame(&mut self, e: cudarc::driver::DriverError) -> Error {
        if self.lost.is_none() && error::is_kernel_fault(e.0) {
            let kernel = self.pending().map(Arc::from);
            self.lost = Some((kernel, error::describe(&e)));
        }
        error::after_launch(self.pending(), e)
    }

    /// The kernel blamed for the fault that lost the context, and the driver's words, once a
    /// call has reported one.
    pub(crate) fn lost(&self) -> Option<(Option<&str>, &str)> {
        self.lost
            .as_ref()
            .map(|(kernel, reason)| (kernel.as_deref(), reason.as_str()))
    }

    /// The kernel launched last among those that may not have finished.
    pub(crate) fn pending(&self) -> Option<&str> {
        self.streams
            .iter()
            .filter(|s| s.launches > s.finished)
            .filter_map(|s| s.last.as_ref())
            .max_by_key(|(at, _)| *at)
            .map(|(_, kernel)| &**kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pending_kernel_is_the_last_launched_until_a_wait() {
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        let mut log = LaunchLog::default();
        assert_eq!(log.pending(), None);
        log.launched(0, &a);
        assert_eq!(log.pending(), Some("a"));
        log.launched(0, &b);
        assert_eq!(log.pending(), Some("b"));
        // A wait that began after both launches succeeded.
        log.waited(0, 2);
        assert_eq!(log.pending(), None);
        // A wait that began before a launch does not cover it.
        let seen = log.count(0);
        log.launched(0, &a);
        log.waited(0, seen);
        assert_eq!(log.pending(), Some("a"));
        // An older wait finishing late changes nothing.
        log.waited(0, 1);
        assert_eq!(log.pending(), Some("a"));
        log.waited(0, 3);
        assert_eq!(log.pending(), None);
    }

    #[test]
    fn a_wait_on_one_stream_leaves_the_others_pending() {
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        let mut log = LaunchLog::default();
        log.launched(1, &a);
        log.launched(2, &b);
        assert_eq!(log.pending(), Some("b"));
        let seen = log.count(2);
        log.waited(2, seen);
        // Stream 1's kernel may still fail.
        assert_eq!(log.pending(), Some("a"));
        log.launched(2, &b);
        let all = log.all();
        log.waited_all(&all);
        assert_eq!(log.pending(), None);
        assert_eq!(log.count(7), 0);
    }
}
