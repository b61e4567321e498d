// The zero-discriminant assertion of `#[derive(ValidAsZeroBits)]` casts to the repr's
// primitive by its full path: with an alias named `u16` in scope, `E::A as u16` would be the
// truncating `256 as u8 == 0`, and `alloc_zeroed` plus `dtoh` would make an `E` that is no
// variant.
use oxide::prelude::*;

#[allow(non_camel_case_types)]
type u16 = u8;

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(u16)]
pub enum NoZero {
    A = 256,
}

fn main() {
    let _: u16 = 0;
}
