// A kernel's slices borrow the launch's buffers for the call only: an argument cannot ask for a
// longer borrow, which would let the kernel keep it after the launch.
use oxide::prelude::*;

#[kernel]
pub fn keeps_input(x: &'static [u32], mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = x[0];
    }
}

#[kernel]
pub fn keeps_output(out: DisjointSlice<'static, u32>) {
    let _ = out;
}

fn main() {}
