//! The hooks of the CPU emulator's race detector (docs/safety.md, "The emulator detects races
//! in `unsafe` code"): the accesses `unsafe` code makes through `SharedArray::read`/`write` and
//! `DisjointSlice::get_unchecked_mut` are reported to the runner, which checks them against the
//! other threads' since their last common barrier. On the GPU a hook is no instruction (the
//! backend reads `#[oxide_gpu::emulator_check]`).

use crate::host_context::{self, AccessKind, Memory};

/// A read of element `index` of the shared static at `key`.
#[oxide_gpu::emulator_check]
#[track_caller]
#[inline(never)]
pub(crate) fn shared_read(key: usize, index: usize) {
    host_context::check_access(Memory::Shared, key, index, AccessKind::Read);
}

/// A write of element `index` of the shared static at `key`.
#[oxide_gpu::emulator_check]
#[track_caller]
#[inline(never)]
pub(crate) fn shared_write(key: usize, index: usize) {
    host_context::check_access(Memory::Shared, key, index, AccessKind::Write);
}

/// A write of element `index` of the launch's buffer at `buffer`.
#[oxide_gpu::emulator_check]
#[track_caller]
#[inline(never)]
pub(crate) fn global_write(buffer: usize, index: usize) {
    host_context::check_access(Memory::Global, buffer, index, AccessKind::Write);
}
