//! Casts: integer to integer at every width and sign, integer to and from float (Rust's
//! saturating float-to-int), f32 to and from f64, bool/char/u8, bit casts and transmutes.

#![allow(
    clippy::unnecessary_cast,
    clippy::cast_lossless,
    unnecessary_transmutes
)]

use crate::harness::Check::{Exact, Ulp};

map_cases! {
    /// Truncating casts to every narrower width, from u64 and u128.
    cast_int_truncate(Exact) |x| -> u64 {
        let w = ((x as u128) << 64) | x.rotate_left(3) as u128;
        (x as u8 as u64)
            ^ (x as u16 as u64) << 8
            ^ (x as u32 as u64).rotate_left(24)
            ^ (x as i8 as u8 as u64) << 56
            ^ (w as u64)
            ^ ((w >> 60) as u32 as u64)
            ^ (x as i64 as i16 as u16 as u64) << 40
    }
    /// Sign extension from every narrower signed width to i128.
    cast_sign_extend(Exact) |x| -> i128 {
        (x as i8 as i128)
            ^ (x as i16 as i128) << 8
            ^ (x as i32 as i64 as i128) << 24
            ^ (x as i64 as i128) << 60
            ^ (x as i8 as isize as i128)
            ^ (x as i16 as i32 as i128).wrapping_mul(3)
    }
    /// Zero extension from every narrower unsigned width to u128.
    cast_zero_extend(Exact) |x| -> u128 {
        (x as u8 as u128)
            ^ (x as u16 as u128) << 8
            ^ (x as u32 as u64 as u128) << 24
            ^ (x as u128) << 60
            ^ (x as u32 as usize as u128)
            ^ (x as u16 as u32 as u128).wrapping_mul(3)
    }
    /// Same-width casts between signed and unsigned (bits unchanged), then widened.
    cast_sign_reinterpret(Exact) |x| -> u64 {
        let w = ((x as i128) << 64) | x as i128;
        (x as i32 as u32 as u64)
            ^ (x as u16 as i16 as i64 as u64)
            ^ ((w as u128) >> 70) as u64
            ^ (x as isize as usize as u64).rotate_left(9)
            ^ (x as i64 as i8 as u8 as u64) << 32
            ^ (x as u8 as i8 as i32 as u32 as u64) << 40
    }
    /// Integer to f32 at every width and sign (round to nearest even).
    cast_int_to_f32(Exact) |x| -> u32 {
        (x as f32).to_bits()
            ^ (x as i64 as f32).to_bits().rotate_left(5)
            ^ (x as u8 as f32).to_bits().rotate_left(10)
            ^ (x as i32 as f32).to_bits().rotate_left(15)
            ^ (x as u16 as f32).to_bits().rotate_left(20)
            ^ (x as usize as f32).to_bits().rotate_left(25)
            ^ ((x >> 11) as f32).to_bits()
            ^ (x as i8 as f32).to_bits().rotate_left(3)
            ^ (x as u32 as f32).to_bits().rotate_left(7)
    }
    /// Integer to f64 at every width and sign.
    cast_int_to_f64(Exact) |x| -> u64 {
        (x as f64).to_bits()
            ^ (x as i64 as f64).to_bits().rotate_left(5)
            ^ (x as u8 as f64).to_bits().rotate_left(10)
            ^ (x as i32 as f64).to_bits().rotate_left(15)
            ^ (x as u32 as f64).to_bits().rotate_left(20)
            ^ (x as isize as f64).to_bits().rotate_left(25)
            ^ ((x >> 9) as i16 as f64).to_bits().rotate_left(30)
    }
    /// f32 to every integer width: saturating, NaN to 0, infinities clamp.
    cast_f32_to_int(Exact) |x| -> u64 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        let c = ((x >> 40) as f32) / 3.0 - 8e3;
        (a as i8 as u8 as u64)
            ^ (a as u8 as u64) << 8
            ^ (a as i32 as u32 as u64) << 16
            ^ (a as u32 as u64).rotate_left(40)
            ^ (a as i64 as u64).rotate_left(7)
            ^ (a as u64).rotate_left(13)
            ^ (b as i16 as u64)
            ^ (b as u16 as u64) << 48
            ^ (c as i32 as u64).rotate_left(21)
            ^ (c as u8 as u64) << 3
            ^ (c as isize as u64).rotate_left(50)
    }
    /// f64 to every integer width: saturating, NaN to 0, infinities clamp.
    cast_f64_to_int(Exact) |x| -> u64 {
        let a = f64::from_bits(x);
        let c = ((x >> 8) as f64) / 7.0 - 1.5e15;
        (a as i8 as u8 as u64)
            ^ (a as u16 as u64) << 8
            ^ (a as i32 as u32 as u64) << 16
            ^ (a as u32 as u64).rotate_left(40)
            ^ (a as i64 as u64).rotate_left(7)
            ^ (a as u64).rotate_left(13)
            ^ (c as i64 as u64)
            ^ (c as u64).rotate_left(29)
            ^ (c as i16 as u64) << 48
            ^ (c as usize as u64).rotate_left(3)
    }
    /// bool, u8 and char casts: bool as ints, u8 as char, char as u8 (truncates), char::from.
    cast_bool_char_u8(Exact) |x| -> u32 {
        let b = x & 4 == 4;
        let c = char::from_u32(x as u32 % 0x11_0000).unwrap_or('?');
        (b as u8 as u32)
            ^ (b as i32 as u32) << 1
            ^ ((b as u64) << 2) as u32
            ^ (x as u8 as char) as u32
            ^ (c as u8 as u32) << 8
            ^ (c as u32) << 11
            ^ (char::from(x as u8) as u32) << 3
            ^ u32::from(c).rotate_left(5)
            ^ ((x as u8 as char).is_ascii_lowercase() as u32) << 31
    }
    /// f32::from_bits / to_bits and f64::from_bits / to_bits round trips keep every bit.
    cast_float_bits(Exact) |x| -> u64 {
        let a = f32::from_bits((x >> 32) as u32);
        let b = f64::from_bits(x.rotate_left(1));
        (a.to_bits() as u64) ^ b.to_bits().rotate_right(1) ^ (1.5f32).to_bits() as u64
    }
    /// transmute between same-size scalars and arrays: u32/f32, [u8; 4]/u32, u64/[u16; 4].
    cast_transmute(Exact) |x| -> u64 {
        let f: f32 = unsafe { core::mem::transmute::<u32, f32>(x as u32) };
        let back: u32 = unsafe { core::mem::transmute::<f32, u32>(f) };
        let bytes: [u8; 4] = unsafe { core::mem::transmute::<u32, [u8; 4]>((x >> 32) as u32) };
        let halves: [u16; 4] = unsafe { core::mem::transmute::<u64, [u16; 4]>(x) };
        let d: u64 = unsafe { core::mem::transmute::<f64, u64>(f64::from_bits(x)) };
        (back as u64)
            ^ (bytes[0] as u64) << 8
            ^ (bytes[3] as u64) << 40
            ^ (halves[1] as u64) << 16
            ^ (halves[3] as u64) << 33
            ^ d.rotate_left(3)
            ^ (u32::from_le_bytes(bytes) as u64) << 32
    }
    /// from_le_bytes / to_be_bytes / from_be_bytes / from_ne_bytes.
    cast_le_be_bytes(Exact) |x| -> u64 {
        let le = (x as u32).to_le_bytes();
        let be = x.to_be_bytes();
        let swapped = [le[3], le[2], le[1], le[0]];
        (u32::from_le_bytes(swapped) as u64)
            ^ u64::from_le_bytes(be).rotate_left(8)
            ^ (u16::from_be_bytes([be[0], be[7]]) as u64) << 40
            ^ (i32::from_ne_bytes(le) as u64)
            ^ u64::from_be_bytes(be).rotate_left(1)
    }
    /// TryFrom and From between integer widths; From<u16> and From<f32> for f64.
    cast_try_from_into(Exact) |x| -> u64 {
        let t8 = u8::try_from(x).unwrap_or(0xaa) as u64;
        let t16 = i16::try_from(x as i64).map_or(0x55, |v| v as u64);
        let t32 = u32::try_from(x >> 20).unwrap_or(7) as u64;
        let ti = i8::try_from(x as u8).map_or(3, |v| v as u64);
        let wide = u64::from(x as u32) ^ i64::from(x as i16) as u64 ^ usize::from(x as u16) as u64;
        let fl: f64 = (x as u16).into();
        t8 ^ t16.rotate_left(8)
            ^ t32.rotate_left(24)
            ^ ti << 56
            ^ wide
            ^ fl.to_bits()
            ^ f64::from((x >> 48) as u16 as f32 / 3.0).to_bits()
    }
    /// f32 widened to f64 (exact; NaN stays NaN).
    cast_f32_to_f64(Ulp(0)) |x| -> f64 {
        f32::from_bits(x as u32) as f64
    }
    /// f64 narrowed to f32 (round to nearest even, overflow to infinity, underflow to 0).
    cast_f64_to_f32(Ulp(0)) |x| -> f32 {
        let a = f64::from_bits(x);
        if x & 1 == 1 {
            a as f32
        } else {
            (a / 1e280) as f32
        }
    }
}
