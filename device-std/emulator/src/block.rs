//! The block being run: its barrier, its warp exchanges, the end-of-block rendezvous of the OS
//! threads, and how a block fails instead of hanging.

use std::fmt;
use std::panic::{self, Location};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use oxide_device::host_context::{self, Barrier, BlockShared, MemoryAccess, WarpValues};
use oxide_device::warp::WARP_SIZE;

use crate::race::Shadow;
use crate::{FailureKind, unlinear};

/// The payload with which threads waiting at (or reaching) `sync_threads()` or a shuffle in a
/// failed block unwind. `resume_unwind` does not call the panic hook, so it prints nothing.
pub(crate) struct Unwound;

fn unwind() -> ! {
    panic::resume_unwind(Box::new(Unwound))
}

/// How one GPU thread ended.
pub(crate) enum Outcome {
    Returned,
    /// Stopped at `sync_threads()` or a shuffle because the block failed.
    Unwound,
    Panicked(Failure),
}

/// The first failure of a block, with threads as linear numbers in the block.
pub(crate) enum Failure {
    Panicked {
        block: [u32; 3],
        thread: u32,
        message: String,
        location: Option<String>,
    },
    Divergence {
        block: [u32; 3],
        waiting: u32,
        returned: u32,
    },
    WarpDivergence {
        block: [u32; 3],
        waiting: u32,
        mask: u32,
        missing: u32,
    },
    /// Threads of one block met at barriers that synchronise different things.
    BarrierMismatch {
        block: [u32; 3],
        thread: u32,
        arrival: Arrival,
        at: &'static Location<'static>,
        other: u32,
        other_arrival: Arrival,
        other_at: &'static Location<'static>,
    },
}

/// What a thread arriving at a barrier says it synchronises; the threads of a block pass a
/// barrier together only when all of them say the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub(crate) barrier: Barrier,
    /// For the end of a phase: which phase of its slots it ends, counted by the thread from 1
    /// in each block (0 for a plain `sync_threads()`). Threads that agree on every
    /// barrier agree on it anyway; it makes a mismatch's message say which phase each ends.
    pub(crate) phase: u64,
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ends, region) = match self.barrier {
            Barrier::Plain => return f.write_str("sync_threads()"),
            Barrier::EndOfWrite { region } => ("write", region),
            Barrier::EndOfRead { region } => ("read", region),
            Barrier::BeginStep {
                region,
                map: [stride, start, len, writers],
            } => {
                return write!(
                    f,
                    "the barrier ending phase {} and starting a step of the block-shared slots at \
                     {region:#x} (threads t < {writers} owning the {len} slots from \
                     {stride}·t + {start})",
                    self.phase
                );
            }
        };
        write!(
            f,
            "the barrier ending phase {} (a {ends} phase) of the block-shared slots at {region:#x}",
            self.phase
        )
    }
}

impl Failure {
    pub(crate) fn into_kind(self, block_dim: [u32; 3]) -> FailureKind {
        let idx = |t: u32| unlinear(u64::from(t), block_dim);
        match self {
            Failure::Panicked {
                block,
                thread,
                message,
                location,
            } => FailureKind::Panicked {
                block,
                thread: idx(thread),
                message,
                location,
            },
            Failure::Divergence {
                block,
                waiting,
                returned,
            } => FailureKind::BarrierDivergence {
                block,
                thread: idx(waiting),
                returned: idx(returned),
            },
            Failure::WarpDivergence {
                block,
                waiting,
                mask,
                missing,
            } => FailureKind::WarpDivergence {
                block,
                thread: idx(waiting),
                mask,
                missing: idx(missing),
            },
            Failure::BarrierMismatch {
                block,
                thread,
                arrival,
                at,
                other,
                other_arrival,
                other_at,
            } => FailureKind::BarrierMismatch {
                block,
                thread: idx(thread),
                at: format!("{arrival}, called at {at}"),
                other: idx(other),
                other_at: format!("{other_arrival}, called at {other_at}"),
            },
        }
    }
}

/// The barrier and the warp exchanges of the block being run, reused block after block, and
/// the end-of-block rendezvous of the OS threads.
///
/// Poisonable: once a thread of the block has failed, every thread waiting at `sync_threads()`
/// or in a shuffle is woken and unwinds (with [`Unwound`]), and so does every thread that
/// reaches one later, so the block always finishes. When every thread that has not returned
/// waits (at the barrier or in a shuffle), nothing can release them: the block fails with a
/// divergence instead of hanging.
pub(crate) struct Block {
    /// Threads per block.
    threads: u32,
    state: Mutex<State>,
    /// Barrier, start and end of blocks.
    changed: Condvar,
    /// One per warp: an exchange of that warp completed (with the same mutex).
    warp_changed: Vec<Condvar>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Threads are being spawned: they wait.
    Starting,
    Running,
    /// A thread could not be spawned: those that were return at once.
    Aborted,
}

pub(crate) struct State {
    phase: Phase,
    /// Blocks finished so far.
    blocks_done: u64,
    /// Completed `sync_threads()` in this block (so a waiter knows it was released).
    generation: u64,
    /// Threads waiting at `sync_threads()`, and the lowest of them.
    waiting: u32,
    /// The first thread waiting at the barrier, what it synchronises and where it was called:
    /// every other thread must arrive with the same [`Arrival`] (wherever it calls it from), or
    /// the phases of shared memory would come apart.
    barrier_site: Option<(u32, Arrival, &'static Location<'static>)>,
    lowest_waiting: u32,
    /// Threads waiting in a warp exchange that has not completed.
    warp_waiting: u32,
    /// Per warp: the exchanges under way, and the lanes that returned from this block.
    warps: Vec<Warp>,
    /// Numbers the exchanges, so a waiter finds its own.
    next_exchange: u64,
    /// Threads of this block that finished, and the lowest that returned normally.
    finished: u32,
    lowest_returned: u32,
    /// Some thread of this block failed: no thread waits any more and no later block runs.
    failed: bool,
    /// Set with the last block's end when it failed: the threads stop.
    stopped: bool,
    pub(crate) failure: Option<Failure>,
    /// This block's copies of block-shared statics, freed when it ends.
    shared: BlockShared,
    /// The race detector's record of `unsafe` accesses.
    shadow: Shadow,
}

#[derive(Default)]
struct Warp {
    /// Lanes that exist (all 32 but in a partial last warp).
    lanes: u32,
    /// Lanes that returned from the kernel in this block: a shuffle no longer waits for them.
    exited: u32,
    exchanges: Vec<Exchange>,
}

/// One shuffle of one warp: the lanes of `mask` that arrived, and what they published.
struct Exchange {
    id: u64,
    mask: u32,
    values: WarpValues,
    /// Every lane of `mask` that has not exited arrived: the values may be read.
    complete: bool,
    /// Arrived lanes that have not read the values yet (the exchange is dropped after the last).
    unread: u32,
}

impl Warp {
    /// Lanes an exchange with `mask` waits for.
    fn required(&self, mask: u32) -> u32 {
        mask & self.lanes & !self.exited
    }

    /// Completes the exchanges whose lanes have all arrived; returns how many waiting lanes
    /// that releases.
    fn complete_ready(&mut self) -> u32 {
        let mut released = 0;
        for i in 0..self.exchanges.len() {
            let ex = &self.exchanges[i];
            let arrived = ex.values.present();
            if !ex.complete && self.required(ex.mask) & !arrived == 0 {
                let ex = &mut self.exchanges[i];
                ex.complete = true;
                ex.unread = arrived.count_ones();
                released += ex.unread;
            }
        }
        released
    }
}

impl Block {
    pub(crate) fn new(threads: u32) -> Block {
        let warps = threads.div_ceil(WARP_SIZE);
        Block {
            threads,
            state: Mutex::new(State {
                phase: Phase::Starting,
                blocks_done: 0,
                generation: 0,
                waiting: 0,
                barrier_site: None,
                lowest_waiting: u32::MAX,
                warp_waiting: 0,
                warps: (0..warps)
                    .map(|w| Warp {
                        lanes: lanes_of_warp(threads, w),
                        ..Warp::default()
                    })
                    .collect(),
                next_exchange: 0,
                finished: 0,
                lowest_returned: u32::MAX,
                failed: false,
                stopped: false,
                failure: None,
                shared: BlockShared::new(),
                shadow: Shadow::default(),
            }),
            changed: Condvar::new(),
            warp_changed: (0..warps).map(|_| Condvar::new()).collect(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; if something did, the counts are still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn start(&self, run: bool) {
        self.lock().phase = if run { Phase::Running } else { Phase::Aborted };
        self.changed.notify_all();
    }

    /// Waits until all threads are spawned; false when the launch was aborted.
    pub(crate) fn wait_for_start(&self) -> bool {
        let mut st = self.lock();
        while st.phase == Phase::Starting {
            st = self.wait(st);
        }
        st.phase == Phase::Running
    }

    /// Records `failure` (keeping the lowest-numbered panicking thread) and stops the block.
    fn fail(&self, st: &mut State, failure: Failure) {
        let replace = match (&st.failure, &failure) {
            (None, _) => true,
            (
                Some(Failure::Panicked { thread: old, .. }),
                Failure::Panicked { thread: new, .. },
            ) => new < old,
            _ => false,
        };
        if replace {
            st.failure = Some(failure);
        }
        st.failed = true;
        self.changed.notify_all();
        for warp in &self.warp_changed {
            warp.notify_all();
        }
    }

    /// When every thread that has not returned waits, at `sync_threads()` or in a shuffle,
    /// nothing can release any of them: a divergent barrier or shuffle.
    fn check_divergence(&self, st: &mut State, block: [u32; 3]) {
        let blocked = st.waiting + st.warp_waiting;
        if st.failed || blocked == 0 || blocked + st.finished != self.threads {
            return;
        }
        let stuck_exchange = st.warps.iter().enumerate().find_map(|(w, warp)| {
            let ex = warp.exchanges.iter().find(|ex| !ex.complete)?;
            let lowest = |lanes: u32| w as u32 * WARP_SIZE + lanes.trailing_zeros();
            let missing = warp.required(ex.mask) & !ex.values.present();
            Some((lowest(ex.values.present()), ex.mask, lowest(missing)))
        });
        let failure = match stuck_exchange {
            Some((waiting, mask, missing)) => Failure::WarpDivergence {
                block,
                waiting,
                mask,
                missing,
            },
            None => Failure::Divergence {
                block,
                waiting: st.lowest_waiting,
                returned: st.lowest_returned,
            },
        };
        self.fail(st, failure);
    }

    /// A barrier of thread `thread`, which synchronises `arrival` and was called at `at`:
    /// returns when every thread of the block has reached it with the same `arrival`, or
    /// unwinds when the block has failed (a thread arriving with another `arrival` fails it,
    /// before anyone passes).
    pub(crate) fn sync(&self, thread: u32, arrival: Arrival, at: &'static Location<'static>) {
        let mut st = self.lock();
        if st.failed {
            drop(st);
            unwind();
        }
        match st.barrier_site {
            None => st.barrier_site = Some((thread, arrival, at)),
            Some((other, other_arrival, other_at)) if other_arrival != arrival => {
                let block = host_context::current().block_idx;
                let failure = Failure::BarrierMismatch {
                    block,
                    thread,
                    arrival,
                    at,
                    other,
                    other_arrival,
                    other_at,
                };
                self.fail(&mut st, failure);
                drop(st);
                unwind();
            }
            Some(_) => {}
        }
        st.waiting += 1;
        st.lowest_waiting = st.lowest_waiting.min(thread);
        if st.waiting == self.threads {
            st.waiting = 0;
            st.barrier_site = None;
            st.lowest_waiting = u32::MAX;
            st.generation += 1;
            self.changed.notify_all();
            return;
        }
        let block = host_context::current().block_idx;
        self.check_divergence(&mut st, block);
        let generation = st.generation;
        loop {
            if st.generation != generation {
                return;
            }
            if st.failed {
                drop(st);
                unwind();
            }
            st = self.wait(st);
        }
    }

    /// Thread `thread`'s part in a shuffle with `mask`: publishes `value`, waits until every
    /// lane of `mask` that exists and has not returned has published, and returns the values;
    /// unwinds when the block has failed.
    pub(crate) fn warp_exchange(&self, thread: u32, mask: u32, value: u64) -> WarpValues {
        let (w, lane) = ((thread / WARP_SIZE) as usize, thread % WARP_SIZE);
        let mut st = self.lock();
        if st.failed {
            drop(st);
            unwind();
        }
        let id = match st.warps[w]
            .exchanges
            .iter_mut()
            .find(|ex| !ex.complete && ex.mask == mask)
        {
            Some(ex) => {
                ex.values.publish(lane, value);
                ex.id
            }
            None => {
                let id = st.next_exchange;
                st.next_exchange += 1;
                let mut values = WarpValues::EMPTY;
                values.publish(lane, value);
                st.warps[w].exchanges.push(Exchange {
                    id,
                    mask,
                    values,
                    complete: false,
                    unread: 0,
                });
                id
            }
        };
        st.warp_waiting += 1;
        let released = st.warps[w].complete_ready();
        if released > 0 {
            st.warp_waiting -= released;
            self.warp_changed[w].notify_all();
        } else {
            let block = host_context::current().block_idx;
            self.check_divergence(&mut st, block);
        }
        loop {
            // A failed block stops here, even when the exchange completed: lanes that unwound
            // count as returned, so the values may lack a lane the reader expects.
            if st.failed {
                drop(st);
                unwind();
            }
            let warp = &mut st.warps[w];
            let at = warp
                .exchanges
                .iter()
                .position(|ex| ex.id == id)
                .expect("an exchange is dropped only after its last reader");
            if warp.exchanges[at].complete {
                let ex = &mut warp.exchanges[at];
                let values = ex.values;
                ex.unread -= 1;
                if ex.unread == 0 {
                    warp.exchanges.remove(at);
                }
                return values;
            }
            st = self.warp_changed[w]
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The block's copy of the block-shared static at `key`, made on first use in the block
    /// ([`BlockShared::get`]).
    pub(crate) fn shared(&self, key: usize, size: usize, align: usize) -> *mut u8 {
        self.lock().shared.get(key, size, align)
    }

    /// The race detector's check of `access` by `thread` of block `block_idx`
    /// ([`Shadow::check`]).
    pub(crate) fn check_access(
        &self,
        thread: u32,
        block_idx: [u32; 3],
        block_dim: [u32; 3],
        access: &MemoryAccess,
    ) -> Result<(), String> {
        let st = &mut *self.lock();
        let (block, phase) = (st.blocks_done, st.generation);
        st.shadow
            .check(access, (block, block_idx, block_dim), thread, phase)
    }

    /// Thread `thread` has finished block `block` with `outcome`. Waits until every thread of
    /// the block has finished; returns whether to stop (the block failed).
    pub(crate) fn finish(&self, thread: u32, block: [u32; 3], outcome: Outcome) -> bool {
        let mut st = self.lock();
        st.finished += 1;
        match outcome {
            Outcome::Returned => st.lowest_returned = st.lowest_returned.min(thread),
            Outcome::Unwound => {}
            Outcome::Panicked(failure) => self.fail(&mut st, failure),
        }
        // Shuffles no longer wait for a lane that returned. In a failed block every waiter
        // unwinds instead.
        let w = (thread / WARP_SIZE) as usize;
        st.warps[w].exited |= 1 << (thread % WARP_SIZE);
        if !st.failed {
            let released = st.warps[w].complete_ready();
            if released > 0 {
                st.warp_waiting -= released;
                self.warp_changed[w].notify_all();
            }
        }
        self.check_divergence(&mut st, block);
        if st.finished == self.threads {
            st.finished = 0;
            st.lowest_returned = u32::MAX;
            st.waiting = 0;
            st.barrier_site = None;
            st.lowest_waiting = u32::MAX;
            st.warp_waiting = 0;
            for warp in &mut st.warps {
                warp.exited = 0;
                warp.exchanges.clear();
            }
            // Every thread has left the block: nothing uses its shared memory any more.
            st.shared.clear();
            st.shadow.end_block();
            st.blocks_done += 1;
            st.stopped = st.failed;
            self.changed.notify_all();
            return st.stopped;
        }
        let done = st.blocks_done;
        while st.blocks_done == done {
            st = self.wait(st);
        }
        // Not `failed`: a thread that woke late may find the next block failed already; that
        // block cannot end (nor change `stopped`) before this thread has run it.
        st.stopped
    }
}

/// The lanes warp `warp` of a block of `threads` threads has, one bit per lane.
fn lanes_of_warp(threads: u32, warp: u32) -> u32 {
    match threads.saturating_sub(warp * WARP_SIZE) {
        n if n >= WARP_SIZE => u32::MAX,
        n => (1 << n) - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_warps_have_fewer_lanes() {
        assert_eq!(lanes_of_warp(64, 0), u32::MAX);
        assert_eq!(lanes_of_warp(64, 1), u32::MAX);
        assert_eq!(lanes_of_warp(40, 1), 0xff);
        assert_eq!(lanes_of_warp(1, 0), 1);
        assert_eq!(lanes_of_warp(31, 0), 0x7fff_ffff);
    }
}
