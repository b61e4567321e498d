// Issue 18, hole 4: a runner of simulated threads is trusted by the host bodies of the
// intrinsics (the block collectives write through the pointer `block_shared` returns, at the
// slot of the context's warp), so writing one, installing one and moving its thread take
// `unsafe`. This runner's shared memory is an immutable static, which `block::sum` wrote
// (SIGSEGV) when all three were safe.
use std::panic::Location;
use std::rc::Rc;

use oxide_device::host_context::{self, Barrier, ThreadContext, ThreadHost, WarpValues};

static IMMUTABLE: [u64; 32] = [0; 32];

struct Forged;

impl ThreadHost for Forged {
    fn sync_threads(&self, _barrier: Barrier, _at: &'static Location<'static>) {}

    fn warp_exchange(&self, _mask: u32, value: u64) -> WarpValues {
        let mut values = WarpValues::EMPTY;
        values.publish(0, value);
        values
    }

    fn block_shared(&self, _key: usize, _size: usize, _align: usize) -> *mut u8 {
        IMMUTABLE.as_ptr().cast_mut().cast()
    }
}

fn main() {
    let installed = host_context::install(Rc::new(Forged), ThreadContext::SINGLE);
    installed.set_context(ThreadContext::SINGLE);
    let _ = oxide::block::sum(1u32);
}
