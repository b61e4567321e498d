// A derived enum needs an integer `#[repr]`: without one (or with `repr(C)` alone) the size of
// its discriminant is not fixed.
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
pub enum Plain {
    A,
    B,
}

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub enum COnly {
    A,
    B,
}

// An integer repr is accepted, signed too.
#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(i16)]
pub enum Signed {
    Down = -1,
    Zero = 0,
}

fn main() {}
