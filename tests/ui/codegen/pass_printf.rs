//@ build-pass
//@ ptx: .extern .func (.param .b32 func_retval0) vprintf
//@ ptx: call.uni (retval0), vprintf,
//@ ptx: trap;
//! `printf!` calls the driver's `vprintf` with a C format in global memory and a local buffer
//! of its arguments; `device_assert!` prints its message the same way, then traps.
use oxide::prelude::*;
use oxide::{device_assert, printf};

#[kernel]
pub fn show(values: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(&v) = values.get(i) {
        printf!("thread %u: %f (%s)\n", i as u32, v, c"value");
        device_assert!(v >= 0.0, "negative value %f at %llu", v, i as u64);
    }
    if let Some(o) = out.get_mut(idx) {
        *o = 1.0;
    }
}

fn main() {}
