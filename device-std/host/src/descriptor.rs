//! The launch side of [`Descriptor128`](oxide_device::descriptor::Descriptor128): a launch takes
//! `&descriptor` for a kernel's `Descriptor128` parameter (the emulator's side is
//! oxide-emulator's `descriptor.rs`).

use oxide_device::descriptor::Descriptor128;

use crate::args::{LaunchArg, sealed};
use crate::launch::Launch;

impl sealed::Sealed<fn(Descriptor128)> for &Descriptor128 {}

/// A `Descriptor128` parameter takes `&descriptor`: the driver copies its 128 bytes.
impl LaunchArg<fn(Descriptor128)> for &Descriptor128 {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>) {
        // SAFETY: the descriptor's bytes are its parameter (`ParamAbi::Value`).
        unsafe { launch.push_value(*self) };
    }
    fn elements(&self) -> usize {
        0
    }
}
