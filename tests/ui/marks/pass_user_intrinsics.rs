//@ build-pass
//@ ptx: %globaltimer;
//@ ptx: nanosleep.u32
//@ ptx: activemask.b32
//@ ptx: %clock;
//! A kernel crate can add its own device intrinsics the way device-std does: register the tool
//! `oxide_gpu` and mark a host function with what a call of it becomes on the GPU
//! (docs/contracts.md, "Device intrinsics: the registry"). The body is what the CPU emulator
//! runs. Outside device-std the function must be an `unsafe fn` (a free function or a method),
//! and each call states in its `// SAFETY:` comment what the mark needs (docs/safety.md,
//! "Device marks are unsafe outside device-std").
#![feature(register_tool)]
#![register_tool(oxide_gpu)]

use oxide::prelude::*;

/// `%globaltimer`, through inline PTX with an output constraint.
///
/// # Safety
/// The assembly only reads a register; on the CPU the body stands for the timer.
#[oxide_gpu::ptx(template = "mov.u64 $0, %globaltimer;", constraints = "=l", volatile)]
#[inline(never)]
unsafe fn global_timer() -> u64 {
    1
}

/// `nanosleep`, through inline PTX with an input and no result.
///
/// # Safety
/// The assembly touches no memory; the CPU's body does not sleep, which no result depends on.
#[oxide_gpu::ptx(template = "nanosleep.u32 $0;", constraints = "r", volatile)]
#[inline(never)]
unsafe fn sleep_ns(_ns: u32) {}

/// `activemask`, through its NVVM intrinsic.
///
/// # Safety
/// The intrinsic has no requirement; on the CPU the body answers for a warp of one lane.
#[oxide_gpu::nvvm("llvm.nvvm.activemask")]
#[inline(never)]
unsafe fn active_mask() -> u32 {
    1
}

struct Clock;

impl Clock {
    /// `%clock`, a method with a mark.
    ///
    /// # Safety
    /// The assembly only reads a register; on the CPU the body stands for the counter.
    #[oxide_gpu::ptx(template = "mov.u32 $0, %clock;", constraints = "=r", volatile)]
    #[inline(never)]
    unsafe fn ticks() -> u32 {
        0
    }
}

#[kernel]
pub fn timed(mut out: DisjointSlice<u64>) {
    // SAFETY: each of these reads a register or sleeps: no memory, no lane mask, no barrier;
    // the emulator's bodies return plausible values of the same registers.
    let (start, lanes, ticks) = unsafe {
        let start = global_timer();
        sleep_ns(100);
        (start, active_mask(), Clock::ticks())
    };
    // SAFETY: as above.
    let end = unsafe { global_timer() };
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = (end - start) + u64::from(lanes.count_ones()) + u64::from(ticks);
    }
}

fn main() {}
