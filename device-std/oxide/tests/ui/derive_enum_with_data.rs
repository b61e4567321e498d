// Only fieldless enums derive a device representation: a payload's bytes are read whatever the
// discriminant says.
use oxide::prelude::*;

#[derive(Clone, Copy, DeviceRepr)]
#[repr(u8)]
pub enum Shape {
    Point,
    Circle(f32),
    Rect { w: f32, h: f32 },
}

#[derive(Clone, Copy, DeviceRepr)]
#[repr(u8)]
pub enum Nothing {}

#[derive(Clone, Copy, DeviceRepr)]
pub union Bits {
    pub u: u32,
    pub f: f32,
}

fn main() {}
