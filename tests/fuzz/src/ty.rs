//! The scalar types generated programs compute with, and literals of them.

use crate::rng::Rng;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
    F32,
    F64,
    Bool,
}

use Ty::*;

pub const INTS: [Ty; 12] = [
    I8, I16, I32, I64, I128, Isize, U8, U16, U32, U64, U128, Usize,
];
pub const ALL: [Ty; 15] = [
    I8, I16, I32, I64, I128, Isize, U8, U16, U32, U64, U128, Usize, F32, F64, Bool,
];

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            I128 => "i128",
            Isize => "isize",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            U128 => "u128",
            Usize => "usize",
            F32 => "f32",
            F64 => "f64",
            Bool => "bool",
        }
    }

    pub fn is_int(self) -> bool {
        INTS.contains(&self)
    }

    pub fn is_float(self) -> bool {
        matches!(self, F32 | F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, I8 | I16 | I32 | I64 | I128 | Isize)
    }

    /// Width in bits (isize/usize: the 64 of both the host and nvptx64).
    pub fn bits(self) -> u32 {
        match self {
            I8 | U8 => 8,
            I16 | U16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | Isize | Usize | F64 => 64,
            I128 | U128 => 128,
            Bool => 1,
        }
    }

    /// The unsigned type of the same width (for literals written as bit patterns).
    pub fn unsigned(self) -> Ty {
        match self {
            I8 => U8,
            I16 => U16,
            I32 => U32,
            I64 => U64,
            I128 => U128,
            Isize => Usize,
            other => other,
        }
    }

    /// A random literal expression of this type, biased towards edge values. Negative and
    /// full-width values are written as casts of unsigned bit patterns, so no literal overflows.
    pub fn literal(self, rng: &mut Rng) -> String {
        let t = self.name();
        match self {
            Bool => if rng.chance(50) { "true" } else { "false" }.into(),
            F32 | F64 => {
                let v = *rng.pick(&[
                    "0.0",
                    "-0.0",
                    "1.0",
                    "-1.0",
                    "0.5",
                    "3.25",
                    "-7.75",
                    "1.0e30",
                    "-1.0e-30",
                    "1.0e-40",
                    "65504.0",
                    "16777217.0",
                    "0.1",
                ]);
                match rng.below(8) {
                    0 => format!("{t}::INFINITY"),
                    1 => format!("{t}::MAX"),
                    2 => format!("{t}::MIN_POSITIVE"),
                    3 => format!("({}_f64 as {t})", (rng.next_u64() % 100_000) as f64 / 64.0),
                    _ => format!("({v}_{t})"),
                }
            }
            _ => match rng.below(9) {
                0 => format!("{t}::MAX"),
                1 => format!("{t}::MIN"),
                2 => format!("0_{t}"),
                3 => format!("1_{t}"),
                4 if self.is_signed() => format!("(-1_{t})"),
                5 | 6 => format!("{}_{t}", rng.below(100)),
                _ => {
                    let raw = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
                    let bits = self.bits();
                    let masked = if bits == 128 {
                        raw
                    } else {
                        raw & ((1u128 << bits) - 1)
                    };
                    format!("({masked:#x}_{} as {t})", self.unsigned().name())
                }
            },
        }
    }
}
