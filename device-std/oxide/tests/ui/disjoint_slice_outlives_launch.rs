// Hole 4 of issue 7: a `DisjointSlice` parked where it outlives the launch (here a thread-local,
// whose destructor would write into the caller's buffer after `emulate` returned). The slice
// borrows the launch's buffer for the kernel call only.
use std::cell::RefCell;

use oxide::prelude::*;

struct WritesOnDrop(DisjointSlice<'static, u32>);

impl Drop for WritesOnDrop {
    fn drop(&mut self) {
        // SAFETY (of the test's intent, not of the code): this is the write that would land in
        // freed memory.
        unsafe { *self.0.get_unchecked_mut(0) = 7 };
    }
}

thread_local! {
    static PARKED: RefCell<Option<WritesOnDrop>> = const { RefCell::new(None) };
}

#[kernel]
pub fn park(out: DisjointSlice<u32>) {
    PARKED.with(|p| *p.borrow_mut() = Some(WritesOnDrop(out)));
}

fn main() {}
