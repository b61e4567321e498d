//! The emulator's side of [`Descriptor128`]: an emulation takes `&descriptor` for a kernel's
//! `Descriptor128` parameter, and every emulated thread gets a copy (the launch side is
//! oxide-host's `descriptor.rs`).

use oxide_device::ParamKey;
use oxide_device::descriptor::Descriptor128;

use crate::{EmulatorArg, ThreadArg};

/// The emulator's side: every thread gets a copy of the caller's descriptor.
impl<'a> crate::args::sealed::Sealed<'a, fn(Descriptor128)> for &'a Descriptor128 {}

impl<'a> EmulatorArg<'a, fn(Descriptor128)> for &'a Descriptor128 {
    type Threads = SharedDescriptor<'a>;
    fn share(self) -> SharedDescriptor<'a> {
        SharedDescriptor(self)
    }
}

/// The caller's descriptor, shared by the emulated threads.
#[doc(hidden)]
pub struct SharedDescriptor<'a>(&'a Descriptor128);

// SAFETY: each thread gets its own copy of the one descriptor, which nothing writes.
unsafe impl<'a> ThreadArg<'a, fn(Descriptor128)> for SharedDescriptor<'a> {
    unsafe fn param(&self) -> <fn(Descriptor128) as ParamKey<'a>>::Param {
        self.0.clone()
    }
    fn elements(&self) -> usize {
        0
    }
}
