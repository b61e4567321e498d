// A kernel declared for a newer GPU than the build targets is an error at the kernel: the
// default build is sm_90, and `sm = 100` asks for Blackwell.
use oxide::prelude::*;

#[kernel(sm = 100)]
pub fn blackwell_only(mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {}
