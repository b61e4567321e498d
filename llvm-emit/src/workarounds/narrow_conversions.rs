//! The rewrites of 8-bit sign extensions into 16-bit registers, which ptxas (CUDA 13.0, driver
//! 580; -O1 and above, -O0 is right) gets wrong in some programs (docs/fuzzing.md, seed 2;
//! docs/fuzz-results/2026-12-03-seed2-ptxas-levels.txt):
//!
//! - **`cvt.s16.s8`**: fuzz programs 971 and 3860, located by rewriting each program's PTX one
//!   instruction class at a time and comparing the JIT's result with ptxas -O0's on the H200.
//!   Both are right when only this instruction is computed in 32 bits (`cvt.u32.u16;
//!   cvt.s32.s8; cvt.u16.u32`), and wrong with every other 16-bit instruction class so computed.
//! - **`ld.param.s8` into a 16-bit register**: ptxas sign-extends the byte to 32 bits and then
//!   drops a later zero extension from 16 bits (`cvt.u32.u16`, even an explicit `and` with
//!   0xffff), so `max.u32` of the widened value sees 0xffffff80 where the PTX says 0xff80
//!   (program 6618: an `i8` argument of a function; read in the SASS, `USGXT` with no mask).
//!   Loaded into a 32-bit register and truncated, the mask stays. Every scalar `.s8` load into
//!   a 16-bit register is so rewritten (`ld.global.s8` was right in the probe; the others were
//!   not all probed, and the rewrite costs nothing).
//!
//! The rewrites keep the instruction's meaning exactly; each rewritten instruction becomes a
//! `{ }` block with its own scratch register, its predicate guard kept on every instruction.

use super::{Instruction, rewrite_lines};

/// The scratch register declared in each block.
const SCRATCH: &str = "%oxide_cvt";

/// `ptx` with every `cvt.s16.s8` computed in 32 bits and every `.s8` load into a 16-bit
/// register loaded into a 32-bit one.
pub(crate) fn rewrite_conversions(ptx: String) -> String {
    if !ptx.contains(".s8") {
        return ptx;
    }
    rewrite_lines(ptx, rewritten)
}

/// The width in bits of a register, from its name's class (`%rd` 64, `%r` 32, `%rs` 16), or
/// `None` for anything else (immediates, predicates, vectors).
fn register_bits(operand: &str) -> Option<u32> {
    let digits = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    if operand.strip_prefix("%rd").is_some_and(digits) {
        Some(64)
    } else if operand.strip_prefix("%rs").is_some_and(digits) {
        Some(16)
    } else if operand.strip_prefix("%r").is_some_and(digits) {
        Some(32)
    } else {
        None
    }
}

/// The rewritten form of one line, when it is a `cvt.s16.s8` of a register or a scalar `.s8`
/// load into a 16-bit register.
fn rewritten(line: &str) -> Option<String> {
    let instruction = Instruction::parse(line)?;
    let (g, t) = (&instruction.guard, SCRATCH);
    let (dst, src) = instruction.operands.split_once(',')?;
    let (dst, src) = (dst.trim(), src.trim());
    let opcode = instruction.opcode;
    if opcode.starts_with("ld.") && opcode.ends_with(".s8") {
        if register_bits(dst)? != 16 {
            return None;
        }
        return Some(instruction.block(
            &format!(".reg .b32 {t};"),
            &format!("{g}{opcode} {t}, {src}; {g}cvt.u16.u32 {dst}, {t}; "),
        ));
    }
    if opcode != "cvt.s16.s8" {
        return None;
    }
    // PTX lets a `cvt` read a wider register (and chop it); widen from what the register is.
    let widen = match register_bits(src)? {
        16 => "cvt.u32.u16",
        32 => "mov.b32",
        _ => "cvt.u32.u64",
    };
    Some(instruction.block(
        &format!(".reg .b32 {t};"),
        &format!("{g}{widen} {t}, {src}; {g}cvt.s32.s8 {t}, {t}; {g}cvt.u16.u32 {dst}, {t}; "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_8_bit_sign_extension_is_computed_in_32_bits() {
        assert_eq!(
            rewrite_conversions(
                "\t@%p1 cvt.s16.s8 \t%rs5, %rs4;\n\tcvt.s16.s8 \t%rs6, %rd2;\n".into()
            ),
            "\t{ .reg .b32 %oxide_cvt; @%p1 cvt.u32.u16 %oxide_cvt, %rs4; @%p1 cvt.s32.s8 %oxide_cvt, %oxide_cvt; @%p1 cvt.u16.u32 %rs5, %oxide_cvt; }\n\
             \t{ .reg .b32 %oxide_cvt; cvt.u32.u64 %oxide_cvt, %rd2; cvt.s32.s8 %oxide_cvt, %oxide_cvt; cvt.u16.u32 %rs6, %oxide_cvt; }\n"
        );
    }

    /// Seed 2's program 6618: an `i8` argument read by the function that takes it.
    #[test]
    fn an_8_bit_signed_load_into_16_bits_goes_through_32_bits() {
        assert_eq!(
            rewrite_conversions(
                "\tld.param.s8 \t%rs1, [f_param_0];\n\t@%p2 ld.global.nc.s8 \t%rs4, [%rd7+3];\n"
                    .into()
            ),
            "\t{ .reg .b32 %oxide_cvt; ld.param.s8 %oxide_cvt, [f_param_0]; cvt.u16.u32 %rs1, %oxide_cvt; }\n\
             \t{ .reg .b32 %oxide_cvt; @%p2 ld.global.nc.s8 %oxide_cvt, [%rd7+3]; @%p2 cvt.u16.u32 %rs4, %oxide_cvt; }\n"
        );
    }

    /// Loads into 32-bit registers, unsigned and vector loads are left alone.
    #[test]
    fn other_loads_are_left_alone() {
        let ptx = "\tld.param.s8 \t%r1, [f_param_0];\n\tld.param.u8 \t%rs1, [f_param_0];\n\
                   \tld.global.v2.s8 \t{%rs1, %rs2}, [%rd1];\n\tld.global.s16 \t%rs1, [%rd1];\n";
        assert_eq!(rewrite_conversions(ptx.into()), ptx);
    }

    /// Other conversions, and a sign extension of an immediate, are left alone.
    #[test]
    fn other_conversions_are_left_alone() {
        let ptx = "\tcvt.s64.s32 \t%rd47, %rd9;\n\tcvt.s32.s8 \t%r1, %r2;\n\tcvt.s16.s8 \t%rs1, 5;\n\
                   \tcvt.rn.f64.f32 \t%rd1, %r1;\n";
        assert_eq!(rewrite_conversions(ptx.into()), ptx);
    }
}
