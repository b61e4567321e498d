// The CPU emulator (`<kernel>::emulate`) runs the threads on OS threads: what they share must be
// `Sync` (`&[T]` and by-value arguments), and what they write must be `Send`.
use std::cell::Cell;
use std::rc::Rc;

use oxide::prelude::*;

#[kernel]
pub fn by_value(p: *mut f32, mut c: DisjointSlice<f32>) {
    let _ = p;
    if let Some(o) = c.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
}

#[kernel]
pub fn shared(cells: &[Cell<u32>], c: DisjointSlice<f32>) {
    let _ = (cells, c);
}

#[kernel]
pub fn written(c: DisjointSlice<Rc<u32>>) {
    let _ = c;
}

fn main() {}
