// A generic kernel's by-value type parameters are copied to every thread, byte for byte: the
// kernel states `Copy` on them (the emulator names each thread's argument through
// `oxide::ParamKey`, which a value has only when it is `Copy`).
use oxide::prelude::*;

#[kernel]
pub fn store<T>(v: T, mut out: DisjointSlice<u32>) {
    let _ = v;
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1;
    }
}

fn main() {}
