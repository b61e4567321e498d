// The CPU emulator (`<kernel>::emulate`) runs the threads on OS threads: what they share must be
// `Sync` (`&[T]` and by-value arguments), and what they write must be `Send`. `Local` is plain
// device data that its author declared neither `Send` nor `Sync` (through its marker). The
// emulator's argument impls (`oxide::emulate::EmulatorArg`) ask for it, so the emulation of such
// arguments does not compile.
use std::marker::PhantomData;

use oxide::prelude::*;

#[derive(Clone, Copy)]
pub struct Local(pub u32, PhantomData<*mut u32>);

#[kernel]
pub fn by_value(p: Local, mut c: DisjointSlice<f32>) {
    let _ = p.0;
    if let Some(o) = c.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
}

#[kernel]
pub fn shared(locals: &[Local], c: DisjointSlice<f32>) {
    let _ = (locals, c);
}

#[kernel]
pub fn written(c: DisjointSlice<Local>) {
    let _ = c;
}

fn main() {
    let cfg = LaunchConfig::for_num_elems(4, 4).unwrap();
    let mut out = [0.0f32; 4];
    let local = Local(1, PhantomData);
    let _ = by_value::emulate(&cfg, local, &mut out);
    let _ = shared::emulate(&cfg, &[local; 4], &mut out);
    let _ = written::emulate(&cfg, &mut [local; 4]);
}
