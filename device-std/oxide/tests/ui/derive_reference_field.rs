// A reference cannot be a field of a derived device type: a host address means nothing on the
// GPU. Written as a reference, the derive says so at the field; behind an alias or in an
// `Option`, the field traits (`ReprField`, `DeviceData`) refuse it at the field.
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Direct {
    pub len: u32,
    pub data: &'static [u32],
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Borrowed<'a> {
    pub value: &'a u32,
}

type HostRef = &'static u32;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Hidden {
    pub value: HostRef,
    pub maybe: Option<&'static u32>,
}

fn main() {}
