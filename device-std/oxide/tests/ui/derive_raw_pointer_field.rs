// A raw pointer cannot be a field of a derived device type, written as one (in an array too)
// or behind an alias (then the field traits refuse it).
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Direct {
    pub ptr: *const f32,
    pub ptrs: [*mut u8; 2],
}

type Address = *mut u64;

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(transparent)]
pub struct Hidden(Address);

fn main() {}
