//! Tensor cores on 8-bit floats: `mma.sync.m16n8k32` with [`e4m3`] or [`e5m2`] operands and
//! `f32` accumulators (sm_89 and later).
//!
//! A warp multiplies a 16 × 32 A tile by a 32 × 8 B tile into the same 16 × 8 `f32`
//! accumulators ([`FragC`]) that the 16-bit shapes use: each lane holds 16 elements of A and 8
//! of B ([`FragA`], [`FragB`]), in the byte fragments' layouts that [`int8`](super::int8)
//! shares (the PTX ISA's "Matrix Fragments for mma.m16n8k32"). A and B are `e4m3` or `e5m2`,
//! the same or not (`e4m3`·`e5m2` either way is an instruction too: [`ByteProduct`]).
//!
//! ```ignore
//! let a = fp8::FragA::<e4m3>::from_fn(|r, c| a_tile(r, k + c));
//! let b = fp8::FragB::<e4m3>::from_fn(|kk, n| b_tile(k + kk, n));
//! acc = mma(&a, &b, acc);                       // mma.sync.m16n8k32 ... f32.e4m3.e4m3.f32
//! ```
//!
//! On the CPU each accumulator is `c + Σ a·b` with the 32 products (exact in `f64`) summed in
//! `f64` and rounded to `f32` once. The tensor cores add fp8 products with an accumulator of
//! their own precision, so results of general inputs may differ from the CPU's by more than the
//! 16-bit shapes' last bits (docs/tensor-cores.md); products and sums of small integers agree
//! exactly.

pub use super::bytes::{ByteInput, ByteProduct, FragA, FragB};
use super::{FragC, host};
use crate::{e4m3, e5m2};

/// An `mma.sync.m16n8k32` of fp8 operands into four `f32` accumulators, as inline PTX whose
/// body is the CPU's (`$decode_a` and `$decode_b` widen A's and B's bytes).
macro_rules! fp8_mma_instruction {
    ($($name:ident: $template:literal, $decode_a:expr, $decode_b:expr;)*) => {$(
        mma_instruction! {
            $name: $template, |a, b, c| host::mma_m16n8k32_fp8(a, b, c, ($decode_a, $decode_b));
        }
    )*};
}

fp8_mma_instruction! {
    mma_e4m3: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        e4m3_value, e4m3_value;
    mma_e5m2: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        e5m2_value, e5m2_value;
    mma_e4m3_e5m2: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        e4m3_value, e5m2_value;
    mma_e5m2_e4m3: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        e5m2_value, e4m3_value;
}

/// The value of an `e4m3` byte.
fn e4m3_value(byte: u8) -> f64 {
    e4m3::from_bits(byte).to_f64()
}

/// The value of an `e5m2` byte.
fn e5m2_value(byte: u8) -> f64 {
    e5m2::from_bits(byte).to_f64()
}

byte_inputs!(e4m3, e5m2);

byte_products! {
    e4m3, e4m3 => mma_e4m3, FragC;
    e5m2, e5m2 => mma_e5m2, FragC;
    e4m3, e5m2 => mma_e4m3_e5m2, FragC;
    e5m2, e4m3 => mma_e5m2_e4m3, FragC;
}
