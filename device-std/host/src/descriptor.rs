//! The launch side of [`Descriptor128`](oxide_device::descriptor::Descriptor128): a launch takes
//! `&descriptor` for a kernel's `Descriptor128` parameter (the emulator's side is
//! oxide-emulator's `descriptor.rs`).

use oxide_device::descriptor::Descriptor128;

use crate::args::{LaunchArg, Sealed};
use crate::launch::Launch;

/// A `Descriptor128` parameter takes `&descriptor`: the driver copies its 128 bytes.
impl LaunchArg<fn(Descriptor128)> for &Descriptor128 {
    fn push<'l>(&'l mut self, launch: &mut Launch<'l>, _: Sealed) {
        launch.push_value(*self);
    }
    fn elements(&self) -> usize {
        0
    }
}
