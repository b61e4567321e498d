// `#[repr(packed)]` is refused (unaligned fields: a misaligned access faults on the GPU), and
// so is an alignment above the 256 bytes of a device allocation.
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, packed)]
pub struct Packed {
    pub a: u8,
    pub b: u32,
}

#[derive(Clone, Copy, ValidAsZeroBits)]
#[repr(C, packed(2))]
pub struct Packed2 {
    pub a: u8,
    pub b: u64,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C, align(512))]
pub struct OverAligned {
    pub a: u32,
}

fn main() {}
