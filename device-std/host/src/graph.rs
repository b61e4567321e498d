//! CUDA graphs: [`Gpu::capture`] records kernel launches, device-to-device copies and memsets
//! into a [`Graph`], and [`Graph::launch`] replays them on any stream of the device with one
//! `cuGraphLaunch` (docs/host.md, "CUDA graphs").
//!
//! Why a replay is sound (docs/safety/launches.md, "A graph holds its buffers"): a graph bakes
//! in the device addresses of everything it uses, so it borrows those buffers for as long as
//! it exists, `&` those it only reads and `&mut` those it writes ([`GraphBuffers`]); the
//! borrow checker then refuses to drop, move or touch from the host a buffer the graph holds
//! `&mut`. The work inside the capture gets the buffers only reborrowed for the closure, and
//! a launch or copy there that uses memory not given to the capture is refused at run time
//! (`Error::NotInGraph`): such memory could be freed while the graph lives. Each launch of the
//! graph orders itself after, and records itself in, the per-buffer records of `track.rs`,
//! exactly as a launch of the same kernels on that stream would.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream, DriverError};

use crate::memory::{Region, Tracker};
use crate::{Error, Gpu, stream};

mod buffers;

pub use buffers::{GraphBuffers, Lend};

/// Work captured by [`Gpu::capture`], ready to be launched again and again
/// ([`Graph::launch`]). It borrows the buffers given to the capture for as long as it exists:
/// drop it before dropping them, or before reading back a buffer it writes.
///
/// Neither `Send` nor `Sync`: the driver does not allow one executable graph to be used from
/// two threads at once.
pub struct Graph<'g> {
    graph: CudaGraph,
    /// The buffers the captured work uses, each once, and whether any of it writes the buffer.
    uses: Vec<(TrackerRef, bool)>,
    ordinal: usize,
    /// What the launch log calls the graph (the kernels it launches), `None` without kernels.
    name: Option<Arc<str>>,
    launches: usize,
    copies: usize,
    /// The borrows of [`GraphBuffers`], invariant so that they cannot be shortened; the raw
    /// pointer keeps the graph `!Send` and `!Sync` whatever cudarc's type is.
    _buffers: PhantomData<(Invariant<'g>, *const ())>,
}

/// A type invariant in `'g`.
type Invariant<'g> = fn(&'g ()) -> &'g ();

const NESTED: &str = "captures do not nest, and a graph is not launched inside a capture";

impl Gpu {
    /// Captures the work `record` queues on the handle it is given into a CUDA graph
    /// (`cuStreamBeginCapture` on a stream of the capture's own, `cuStreamEndCapture`,
    /// `cuGraphInstantiate`); nothing runs until [`Graph::launch`].
    ///
    /// `buffers` is every buffer the graph uses: `&buf` (or a `DeviceView`) for one it only
    /// reads, `&mut buf` (or a `DeviceViewMut`) for one it writes, alone or in a tuple, array
    /// or `Vec`. `record` gets them back reborrowed, in the same shape, with a [`Gpu`] whose
    /// launches (`kernel::launch(gpu, ...)`), [`Gpu::memcpy_dtod`], [`Gpu::memset_zeros`] and
    /// [`Gpu::memset_d8`] are captured. What a graph cannot hold is refused with
    /// [`Error::NotCapturable`] (waits, events, allocations, copies from or to the host,
    /// [`Gpu::fill`]), and memory not in `buffers` with [`Error::NotInGraph`]; either fails the
    /// capture even when `record` goes on. An error of `record`, or a panic, ends the capture
    /// and is returned (resumed); no stream is left capturing.
    ///
    /// The graph borrows `buffers` for as long as it exists.
    pub fn capture<'g, B, F>(&self, mut buffers: B, record: F) -> Result<Graph<'g>, Error>
    where
        B: GraphBuffers<'g>,
        F: for<'x> FnOnce(&'x Gpu, <B as Lend<'x>>::Lent) -> Result<(), Error>,
    {
        self.refuse_in_capture("Gpu::capture", NESTED)?;
        let mut regions = Vec::new();
        buffers.hold(&mut regions);
        let mut held = Vec::with_capacity(regions.len());
        for region in &regions {
            if region.ordinal != self.ordinal() {
                return Err(Error::ForeignBuffer {
                    buffer: region.ordinal,
                    gpu: self.ordinal(),
                });
            }
            held.push((TrackerRef(region.tracker), region.write));
        }
        drop(regions);
        let blame = |e| self.blame(e);
        // A stream of the capture's own: no other work can land in the graph, and no other
        // handle's stream is ever left capturing.
        let capturing = self.ctx.new_stream().map_err(blame)?;
        let recording = Arc::new(Recording::new(held));
        let gpu = Gpu {
            ctx: Arc::clone(&self.ctx),
            stream: Arc::clone(&capturing),
            stream_id: stream::next_stream_id(),
            modules: Arc::clone(&self.modules),
            kernels: Arc::clone(&self.kernels),
            launches: Arc::clone(&self.launches),
            compute_capability: Arc::clone(&self.compute_capability),
            shared_per_block_opt_in: Arc::clone(&self.shared_per_block_opt_in),
            capture: Some(Arc::clone(&recording)),
        };
        // Relaxed: the capture's stream is private and non-blocking, so other threads' calls
        // (allocations, waits on their own streams) need not be refused meanwhile.
        capturing
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
            .map_err(blame)?;
        let capture = Capturing {
            stream: &capturing,
            ended: false,
        };
        let recorded = record(&gpu, buffers.lend());
        let ended = capture.end();
        recorded?;
        let state = recording.finish()?;
        let graph = ended.map_err(blame)?.ok_or(Error::NotCapturable {
            operation: "Gpu::capture",
            reason: "the driver ended the capture without a graph",
        })?;
        Ok(Graph {
            graph,
            name: state.name(),
            uses: state.uses,
            ordinal: self.ordinal(),
            launches: state.launches,
            copies: state.copies,
            _buffers: PhantomData,
        })
    }

    /// `Err(Error::NotCapturable)` when this handle is a capture's (and the capture fails).
    pub(crate) fn refuse_in_capture(
        &self,
        operation: &'static str,
        reason: &'static str,
    ) -> Result<(), Error> {
        match &self.capture {
            Some(recording) => Err(recording.refuse(Refusal::Operation { operation, reason })),
            None => Ok(()),
        }
    }
}

impl Graph<'_> {
    /// Queues the captured work on `gpu`'s stream (`cuGraphLaunch`) and returns without
    /// waiting, as a launch does. Ordered like the launches and copies it holds: after the
    /// work on its buffers that it must follow, on any stream (an event wait per buffer last
    /// used on another stream; none on the same stream), and before the work that must follow
    /// it. A kernel of it that fails is reported by the next wait, naming the graph's kernels.
    pub fn launch(&self, gpu: &Gpu) -> Result<(), Error> {
        gpu.refuse_in_capture("Graph::launch", NESTED)?;
        if gpu.ordinal() != self.ordinal {
            return Err(Error::GraphDevice {
                graph: self.ordinal,
                gpu: gpu.ordinal(),
            });
        }
        let blame = |e| gpu.blame(e);
        gpu.ctx.bind_to_thread().map_err(blame)?;
        for (tracker, write) in &self.uses {
            // SAFETY: a tracker of a buffer borrowed for the graph's lifetime (`TrackerRef`).
            unsafe { tracker.get() }
                .order(&gpu.stream, *write)
                .map_err(blame)?;
        }
        // SAFETY: the executable graph is alive (owned by `self.graph`) and of this device's
        // context, as is the stream; the memory it uses is borrowed for the graph's lifetime
        // and ordered above.
        let launched = unsafe {
            cudarc::driver::result::graph::launch(
                self.graph.cu_graph_exec(),
                gpu.stream.cu_stream(),
            )
        };
        // Recorded even when the launch failed: the driver may have queued it.
        for (tracker, write) in &self.uses {
            // SAFETY: as above.
            unsafe { tracker.get() }.record(&gpu.stream, *write);
        }
        launched.map_err(blame)?;
        if let Some(name) = &self.name {
            gpu.launched(name);
        }
        Ok(())
    }

    /// The kernel launches captured.
    pub fn launches(&self) -> usize {
        self.launches
    }

    /// The copies and memsets captured.
    pub fn copies(&self) -> usize {
        self.copies
    }
}

/// Ends a capture once, on [`Capturing::end`] or, when `record` panics, on drop.
struct Capturing<'s> {
    stream: &'s Arc<CudaStream>,
    ended: bool,
}

impl Capturing<'_> {
    fn end(mut self) -> Result<Option<CudaGraph>, DriverError> {
        self.ended = true;
        self.stream.end_capture(CUgraphInstantiate_flags(0))
    }
}

impl Drop for Capturing<'_> {
    fn drop(&mut self) {
        if !self.ended {
            // Unwinding out of `record`: the graph, if any, is destroyed with the result.
            let _ = self.stream.end_capture(CUgraphInstantiate_flags(0));
        }
    }
}

/// A buffer's [`Tracker`], by address. It is only dereferenced while the buffer is borrowed
/// (by the capture's `buffers`, or by the [`Graph`] for `'g`): a borrowed buffer is neither
/// moved nor dropped, so the address stays its tracker's. The capture also compares addresses
/// with it: two live buffers have two trackers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TrackerRef(*const Tracker);

// SAFETY: a `Tracker` is `Sync` (a mutex); the pointer is only dereferenced as `&Tracker`
// under the borrow described above.
unsafe impl Send for TrackerRef {}
// SAFETY: as above.
unsafe impl Sync for TrackerRef {}

impl TrackerRef {
    /// # Safety
    /// The buffer is still borrowed by the capture or the graph that holds this.
    unsafe fn get(&self) -> &Tracker {
        // SAFETY: the caller's contract.
        unsafe { &*self.0 }
    }
}

/// What a capture has recorded so far: its handle's [`Gpu::capture`] field.
pub(crate) struct Recording {
    state: Mutex<State>,
}

struct State {
    /// The buffers given to the capture, and whether each is held `&mut`.
    held: Vec<(TrackerRef, bool)>,
    /// The buffers used by captured work, once each, and whether any of it writes.
    uses: Vec<(TrackerRef, bool)>,
    /// The kernels captured, each name once, in order.
    kernels: Vec<Arc<str>>,
    launches: usize,
    copies: usize,
    /// The first call refused: the capture fails with it.
    refused: Option<Refusal>,
}

/// A call refused inside a capture, kept to fail the capture with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    Operation {
        operation: &'static str,
        reason: &'static str,
    },
    NotInGraph {
        write: bool,
    },
}

impl Refusal {
    fn error(self) -> Error {
        match self {
            Refusal::Operation { operation, reason } => Error::NotCapturable { operation, reason },
            Refusal::NotInGraph { write } => Error::NotInGraph { write },
        }
    }
}

impl Recording {
    fn new(held: Vec<(TrackerRef, bool)>) -> Self {
        Recording {
            state: Mutex::new(State {
                held,
                uses: Vec::new(),
                kernels: Vec::new(),
                launches: 0,
                copies: 0,
                refused: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock only means a thread panicked while holding it; the lists are whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn refuse(&self, refusal: Refusal) -> Error {
        self.lock().refused.get_or_insert(refusal);
        refusal.error()
    }

    /// Whether captured work may use `region`: its buffer was given to the capture, `&mut`
    /// when the work writes it.
    pub(crate) fn allow(&self, region: &Region<'_>) -> Result<(), Error> {
        let tracker = TrackerRef(region.tracker);
        let held = self
            .lock()
            .held
            .iter()
            .any(|&(t, writable)| t == tracker && (writable || !region.write));
        if held {
            Ok(())
        } else {
            Err(self.refuse(Refusal::NotInGraph {
                write: region.write,
            }))
        }
    }

    /// Records work just captured, which used `accesses` (each allowed): a launch of `kernel`,
    /// or a copy or memset when `None`.
    pub(crate) fn captured<'t>(
        &self,
        accesses: impl IntoIterator<Item = (&'t Tracker, bool)>,
        kernel: Option<&Arc<str>>,
    ) {
        let mut state = self.lock();
        for (tracker, write) in accesses {
            let tracker = TrackerRef(tracker);
            match state.uses.iter_mut().find(|(t, _)| *t == tracker) {
                Some((_, writes)) => *writes |= write,
                None => state.uses.push((tracker, write)),
            }
        }
        match kernel {
            Some(kernel) => {
                state.launches += 1;
                if !state.kernels.iter().any(|k| k == kernel) {
                    state.kernels.push(Arc::clone(kernel));
                }
            }
            None => state.copies += 1,
        }
    }

    /// What was recorded, or the first refusal.
    fn finish(&self) -> Result<State, Error> {
        let mut state = self.lock();
        if let Some(refusal) = state.refused {
            return Err(refusal.error());
        }
        Ok(State {
            held: Vec::new(),
            uses: std::mem::take(&mut state.uses),
            kernels: std::mem::take(&mut state.kernels),
            launches: state.launches,
            copies: state.copies,
            refused: None,
        })
    }
}

impl State {
    /// The graph's name in the launch log: its kernels, and how many launches.
    fn name(&self) -> Option<Arc<str>> {
        if self.kernels.is_empty() {
            return None;
        }
        let kernels: Vec<&str> = self.kernels.iter().map(|k| &**k).collect();
        Some(Arc::from(format!(
            "{} (a CUDA graph of {} launches)",
            kernels.join(", "),
            self.launches
        )))
    }
}

#[cfg(test)]
mod tests;
