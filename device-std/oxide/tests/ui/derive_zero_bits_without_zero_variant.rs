// `#[derive(ValidAsZeroBits)]` on an enum needs a variant whose discriminant is 0: all-zero
// bytes would otherwise not be a value (`Gpu::alloc_zeroed` then `dtoh` would make one).
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(u32)]
pub enum OneBased {
    First = 1,
    Second,
    Third,
}

// `DeviceRepr` alone is fine: `htod` copies only values.
#[derive(Clone, Copy, DeviceRepr)]
#[repr(u8)]
pub enum NoZero {
    A = 3,
}

// A struct of a non-zeroable enum is not `ValidAsZeroBits` either.
#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Holder {
    pub e: NoZero,
}

fn main() {}
