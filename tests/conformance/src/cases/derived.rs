//! Derived device representations: a kernel writes a `#[derive(DeviceRepr, ValidAsZeroBits)]`
//! `#[repr(C)]` struct (a `u8` enum, padding after it and at the end, an array, a `bool`) to a
//! `DisjointSlice`, and the host reads it back with `dtoh`: the GPU's layout of the struct is
//! the host's, and the enum and the `bool` come back as valid values.

use core::mem::size_of;

use oxide::{DeviceRepr, ValidAsZeroBits};

use crate::harness::Bits;
use crate::harness::Check::Exact;

#[derive(Clone, Copy, Default, PartialEq, Debug, DeviceRepr, ValidAsZeroBits)]
#[repr(u8)]
pub enum Phase {
    #[default]
    Idle = 0,
    Moving = 1,
    Stopped = 9,
}

/// `phase` at 0, 7 bytes of padding, `total` at 8, `pair` at 16, `odd` at 20, 3 bytes of
/// padding: 24 bytes.
#[derive(Clone, Copy, Default, PartialEq, Debug, DeviceRepr, ValidAsZeroBits)]
#[repr(C)]
pub struct Sample {
    pub phase: Phase,
    pub total: u64,
    pub pair: [u16; 2],
    pub odd: bool,
}

const _: () = assert!(size_of::<Sample>() == 24);

impl Bits for Sample {
    /// The fields only, not the padding: 8 + 64 + 32 + 1 bits.
    fn bits(self) -> u128 {
        u128::from(self.phase as u8)
            | u128::from(self.total) << 8
            | u128::from(self.pair[0]) << 72
            | u128::from(self.pair[1]) << 88
            | u128::from(self.odd) << 104
    }
}

map_cases! {
    derived_repr_c_struct(Exact) |x| -> Sample {
        let phase = match x % 3 {
            0 => Phase::Idle,
            1 => Phase::Moving,
            _ => Phase::Stopped,
        };
        Sample {
            phase,
            total: x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 7),
            pair: [x as u16, (x >> 16) as u16 ^ 0xa5a5],
            odd: x & 1 == 1,
        }
    }
}
