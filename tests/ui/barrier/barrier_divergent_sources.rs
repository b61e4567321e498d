//! What makes a condition divergent besides the thread index in the condition itself: a value
//! written through a pointer under a divergent branch, a helper writing the thread index through
//! `&mut`, a closure, a struct field (its other field stays uniform: no error there), a helper
//! returning `lane_id()`, an atomic's result, and a value read from shared memory (divergent to
//! the analysis, though after a barrier every thread would read the same: it is conservative).

use core::sync::atomic::{AtomicU32, Ordering};

use oxide::prelude::*;
use oxide::thread::{sync_threads, thread_idx_x};
use oxide::warp::lane_id;

static COUNTER: AtomicU32 = AtomicU32::new(0);
static TILE: SharedArray<u32, 32> = SharedArray::new();

fn lane() -> u32 {
    lane_id()
}

fn set(v: &mut u32) {
    *v = thread_idx_x();
}

struct Pair {
    mine: u32,
    all: u32,
}

#[kernel]
pub fn sources(n: u32, mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    if n == 7 {
        // Every thread or none: a uniform endless loop keeps what follows uniform.
        loop {}
    }
    let mut x = 0;
    let p = &mut x;
    if thread_idx_x() > 2 {
        *p = 1;
    }
    if x == 1 {
        sync_threads();
    }
    let mut y = 0;
    set(&mut y);
    if y > 0 {
        sync_threads();
    }
    let f = || thread_idx_x();
    if f() > 3 {
        sync_threads();
    }
    let pair = Pair {
        mine: thread_idx_x(),
        all: n,
    };
    if pair.mine > 0 {
        sync_threads();
    }
    if pair.all > 0 {
        sync_threads();
    }
    if lane() == 0 {
        sync_threads();
    }
    if COUNTER.fetch_add(1, Ordering::Relaxed) > 5 {
        sync_threads();
    }
    // SAFETY: element 0 of the block's copy; a read racing nothing the example needs.
    let t = unsafe { TILE.as_mut_ptr().read() };
    if t > 0 {
        sync_threads();
    }
    if let Some(o) = out.get_mut(idx) {
        *o = n;
    }
}

fn main() {}
