//! The race detector: the accesses `unsafe` kernel code reports (`SharedArray::read`/`write`,
//! `DisjointSlice::get_unchecked_mut`), each checked against the other threads' accesses to the
//! element that no barrier orders before it.
//!
//! Two accesses of different threads are ordered only by a barrier between them: in one block,
//! when their phases (the count of `sync_threads()` the block completed) differ; in different
//! blocks, never (blocks have no common barrier). Unordered, a write conflicts with any other
//! access: a data race, undefined behaviour on the GPU. A read of block-shared memory that no
//! thread of the block wrote reads the garbage of a fresh block. Each is found whatever order
//! the OS threads ran in, since both accesses are kept until a barrier orders them.

use std::collections::HashMap;
use std::panic::Location;

use oxide_device::host_context::{AccessKind, Memory, MemoryAccess};

use crate::unlinear;

/// An access as remembered: who, when, where.
#[derive(Clone, Copy)]
struct Seen {
    block: u64,
    thread: u32,
    phase: u64,
    location: &'static Location<'static>,
}

impl Seen {
    /// Whether no barrier orders `self` and `other`: another thread, in another block or in
    /// the same phase of the same block.
    fn unordered_with(&self, other: &Seen) -> bool {
        (self.block, self.thread) != (other.block, other.thread)
            && (self.block != other.block || self.phase == other.phase)
    }
}

/// What is known of one element: its last write and the reads since.
#[derive(Default)]
struct History {
    write: Option<Seen>,
    reads: Vec<Seen>,
}

/// The accesses of a launch: block-shared memory's for the block being run, global memory's for
/// the whole launch.
#[derive(Default)]
pub(crate) struct Shadow {
    elements: HashMap<(Memory, usize, usize), History>,
}

impl Shadow {
    /// A new block starts: its shared memory is fresh.
    pub(crate) fn end_block(&mut self) {
        self.elements
            .retain(|(memory, _, _), _| *memory == Memory::Global);
    }

    /// Checks `access` by `thread` (linear in a block of `block_dim`) of block number `block`
    /// (`block_idx` its index) in phase `phase`, and records it.
    pub(crate) fn check(
        &mut self,
        access: &MemoryAccess,
        (block, block_idx, block_dim): (u64, [u32; 3], [u32; 3]),
        thread: u32,
        phase: u64,
    ) -> Result<(), String> {
        let now = Seen {
            block,
            thread,
            phase,
            location: access.location,
        };
        let history = self
            .elements
            .entry((access.memory, access.region, access.index))
            .or_default();
        let what = match access.memory {
            Memory::Shared => format!("slot {} of a block-shared array", access.index),
            Memory::Global => format!("element {} of an output", access.index),
        };
        let who = |seen: &Seen| {
            let t = unlinear(u64::from(seen.thread), block_dim);
            if seen.block == block {
                format!("thread {t:?}")
            } else {
                format!("thread {t:?} of an earlier block")
            }
        };
        let race = |verb: &str, other: &Seen, other_verb: &str| {
            Err(format!(
                "data race in block {block_idx:?}: thread {:?} {verb} {what} at {}, which {} \
                 {other_verb} at {} with no barrier between (undefined behaviour on the GPU)",
                unlinear(u64::from(thread), block_dim),
                access.location,
                who(other),
                other.location,
            ))
        };
        match access.kind {
            AccessKind::Write => {
                if let Some(w) = history.write.filter(|w| w.unordered_with(&now)) {
                    return race("writes", &w, "wrote");
                }
                if let Some(r) = history.reads.iter().find(|r| r.unordered_with(&now)) {
                    return race("writes", &r.clone(), "read");
                }
                history.write = Some(now);
                history
                    .reads
                    .retain(|r| r.block == block && r.phase == phase);
            }
            AccessKind::Read => {
                match history.write {
                    Some(w) if w.unordered_with(&now) => return race("reads", &w, "wrote"),
                    None if access.memory == Memory::Shared => {
                        return Err(format!(
                            "thread {:?} of block {block_idx:?} reads {what} at {} that no \
                             thread of the block wrote (uninitialised shared memory)",
                            unlinear(u64::from(thread), block_dim),
                            access.location,
                        ));
                    }
                    _ => {}
                }
                if !history
                    .reads
                    .iter()
                    .any(|r| r.thread == thread && r.phase == phase)
                {
                    history.reads.push(now);
                }
            }
        }
        Ok(())
    }
}
