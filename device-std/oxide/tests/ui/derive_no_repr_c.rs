// `#[derive(DeviceRepr)]` and `#[derive(ValidAsZeroBits)]` need `#[repr(C)]` or
// `#[repr(transparent)]` on a struct: a buffer element is laid out as CUDA code expects.
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
pub struct RustLayout {
    pub a: u8,
    pub b: u32,
}

#[derive(Clone, Copy, ValidAsZeroBits)]
#[repr(Rust)]
pub struct ExplicitRust(u32);

// `repr(C)` with an alignment is fine.
#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(C, align(16))]
pub struct Aligned(u32);

fn main() {}
