// Every field of a derived device type must itself be a device representation: `char`,
// tuples, `Cell` (interior mutability, and not `Copy`), a struct that does not derive it and
// a function pointer are refused at the field (the other fields of a struct with a refused one
// are still checked); a generic type's impls hold only for the instances whose fields qualify.
use core::cell::Cell;

use oxide::host::{DeviceRepr, ValidAsZeroBits};
use oxide::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct NotDerived {
    pub x: u32,
}

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Fields {
    pub letter: char,
    pub pair: (u32, u32),
    pub inner: NotDerived,
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(C)]
pub struct Callback {
    pub f: fn(u32) -> u32,
    pub arg: char,
}

#[derive(Clone, DeviceRepr)]
#[repr(C)]
pub struct Shared {
    pub count: Cell<u32>,
}

#[derive(Clone, Copy, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Wrap<T> {
    pub value: T,
}

fn buffer_element<T: DeviceRepr>() {}
fn zeroable<T: ValidAsZeroBits>() {}

fn main() {
    buffer_element::<Wrap<u32>>();
    buffer_element::<Wrap<char>>();
    zeroable::<Wrap<core::num::NonZeroU32>>();
}
