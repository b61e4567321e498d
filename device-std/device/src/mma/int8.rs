//! Tensor cores on 8-bit integers: `mma.sync.m16n8k32` with `i8` or `u8` operands and `i32`
//! accumulators (the `IMMA` of sm_80 and sm_90).
//!
//! A warp multiplies a 16 × 32 A tile by a 32 × 8 B tile into 16 × 8 `i32` accumulators: each
//! lane holds 16 elements of A, 8 of B and 4 accumulators ([`FragA`], [`FragB`], [`FragC`]),
//! laid out as the PTX ISA draws them (the byte fragments' layouts, shared with
//! [`fp8`](super::fp8); the accumulators where the `m16n8k16` ones are). A and B are `i8` or
//! `u8`, the same or not (`s8`·`u8` and `u8`·`s8` are instructions too: [`ByteProduct`]).
//!
//! ```ignore
//! let a = int8::FragA::<i8>::from_fn(|r, c| a_tile(r, k + c));
//! let b = int8::FragB::<i8>::from_fn(|kk, n| b_tile(k + kk, n));
//! acc = mma(&a, &b, acc);                            // mma.sync.m16n8k32 ... s32.s8.s8.s32
//! ```
//!
//! Overflow: the 32 products of a dot product and their sum always fit an `i32` (at most
//! 32 · 255² in magnitude); adding the accumulator wraps, modulo 2³², as `i32::wrapping_add`
//! does, on the GPU (the instruction without `.satfinite`) and the CPU alike, in release and
//! debug builds. Integer results are exact, so the GPU and the CPU agree bit for bit.

pub use super::bytes::{ByteInput, ByteProduct, FragA, FragB};
use super::host;

/// The calling lane's share of a 16 × 8 tile of `i32` accumulators: 4 values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragC {
    values: [i32; 4],
}

accumulator_tile!(FragC, i32, 0);

/// An `mma.sync.m16n8k32` of four A registers, two B registers and four `i32` accumulators,
/// as inline PTX whose body is the CPU's (`signed`: A's and B's bytes).
macro_rules! int_mma_instruction {
    ($($name:ident: $template:literal, signed = $signed:expr;)*) => {$(
        #[oxide_gpu::ptx(template = $template, constraints = "=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r")]
        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            a0: u32,
            a1: u32,
            a2: u32,
            a3: u32,
            b0: u32,
            b1: u32,
            c0: i32,
            c1: i32,
            c2: i32,
            c3: i32,
        ) -> [i32; 4] {
            host::mma_m16n8k32_int([a0, a1, a2, a3], [b0, b1], [c0, c1, c2, c3], $signed)
        }
    )*};
}

int_mma_instruction! {
    mma_s8: "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = (true, true);
    mma_u8: "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = (false, false);
    mma_s8_u8: "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = (true, false);
    mma_u8_s8: "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
        signed = (false, true);
}

byte_inputs!(i8, u8);

byte_products! {
    i8, i8 => mma_s8, FragC;
    u8, u8 => mma_u8, FragC;
    i8, u8 => mma_s8_u8, FragC;
    u8, i8 => mma_u8_s8, FragC;
}
