//! What every generated program may call (written into each batch crate by oxide-fuzz).

/// One step of the checksum.
#[inline]
pub fn fold(acc: u64, v: u64) -> u64 {
    (acc ^ v)
        .wrapping_mul(0x0000_0100_0000_01b3)
        .rotate_left(29)
        ^ (acc >> 7)
}

/// `to_bits` with every NaN made the same NaN: a NaN's payload is not specified across targets
/// (x86 makes `sqrt(-1.0)` negative, PTX positive). The test is on the bits, not `is_nan()`:
/// LLVM may fold `if f.is_nan() { NAN } else { f }` to `f` (any NaN may stand for another), which
/// made the host keep the payload the GPU dropped, or the other way round.
pub fn fbits32(f: f32) -> u32 {
    let bits = f.to_bits();
    if bits & 0x7fff_ffff > 0x7f80_0000 { 0x7fc0_0000 } else { bits }
}

/// `to_bits` with every NaN made the same NaN (see [`fbits32`]).
pub fn fbits64(f: f64) -> u64 {
    let bits = f.to_bits();
    if bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
        0x7ff8_0000_0000_0000
    } else {
        bits
    }
}

/// Both halves of a 128-bit value.
pub fn w128(v: u128) -> u64 {
    (v as u64) ^ ((v >> 64) as u64).rotate_left(17)
}

/// A trait for generic calls with a bound.
pub trait Mix: Copy + PartialEq {
    fn mix(self, other: Self) -> Self;
}

macro_rules! mix_int {
    ($($t:ty),*) => {$(
        impl Mix for $t {
            fn mix(self, other: Self) -> Self {
                self.wrapping_mul(31).wrapping_add(other) ^ (other >> 1)
            }
        }
    )*};
}
mix_int!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl Mix for f32 {
    fn mix(self, other: Self) -> Self {
        self * 0.5 + other
    }
}

impl Mix for f64 {
    fn mix(self, other: Self) -> Self {
        self * 0.5 + other
    }
}

pub fn gsel<T: Copy>(c: bool, a: T, b: T) -> T {
    if c { a } else { b }
}

pub fn gmix<T: Mix>(a: T, b: T, n: u32) -> T {
    let mut r = a;
    for _ in 0..(n & 3) {
        r = r.mix(b);
    }
    if r == b { a } else { r }
}

pub fn garr<T: Copy, const N: usize>(a: [T; N], i: usize) -> T {
    a[i % N]
}
