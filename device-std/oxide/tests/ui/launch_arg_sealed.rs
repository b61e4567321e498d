// `LaunchArg` and `EmulatorArg` are sealed: what a launch pushes for a parameter is oxide-host's
// to say. An impl elsewhere could hand an output any device address (found by an adversarial
// review: the first seal was a token argument, which an impl receives and can forward).
use oxide::emulate::EmulatorArg;
use oxide::host::{Launch, LaunchArg};
use oxide::prelude::*;

struct Anywhere {
    addr: u64,
}

impl LaunchArg<fn(DisjointSlice<'_, u64>)> for Anywhere {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        let _ = (&self.addr, launch);
    }
    fn elements(&self) -> usize {
        0
    }
}

struct Fake;

impl<'a> EmulatorArg<'a, fn(DisjointSlice<'_, u64>)> for Fake {
    type Threads = oxide::emulate::RawSlice<'a, u64>;
    fn share(self) -> Self::Threads {
        unimplemented!()
    }
}

fn main() {}
