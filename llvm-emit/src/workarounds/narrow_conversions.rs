//! Rewrites of two conversion forms of the emitted PTX that ptxas (CUDA 13.0, driver 580; -O1
//! and above, -O0 is right) gets wrong in some programs, found by oxide-fuzz (seed 2, programs
//! 971, 2278, 3860 and 6618; docs/fuzzing.md) and located by rewriting each program's PTX one
//! instruction class at a time and comparing the JIT's result with ptxas -O0's on the H200:
//!
//! - **An 8-bit sign extension in a 16-bit register**, `cvt.s16.s8 d, x`: the programs 971 and
//!   3860 are right when only this instruction is computed in 32 bits
//!   (`cvt.u32.u16; cvt.s32.s8; cvt.u16.u32`), and wrong with every other 16-bit instruction
//!   class so computed.
//! - **A source register wider than the instruction's type.** PTX lets `cvt` and `st` read a
//!   wider register and chop it (`cvt.s64.s32 %rd2, %rd1` sign-extends the low 32 bits of
//!   `%rd1`), and LLVM's NVPTX back end now emits that instead of a separate truncation. The
//!   truncation is made explicit again (`cvt.u32.u64 t, %rd1; cvt.s64.s32 %rd2, t`), which is
//!   what the PTX means.
//!
//! Both rewrites keep the instruction's meaning exactly; each rewritten instruction becomes a
//! `{ }` block with its own scratch register, a predicate guard kept on every instruction.

use super::{Instruction, rewrite_lines};

/// The scratch register declared in each block.
const SCRATCH: &str = "%oxide_cvt";

/// `ptx` with every instruction of the two forms rewritten (see the module).
pub(crate) fn rewrite_conversions(ptx: String) -> String {
    if !ptx.contains("cvt.") && !ptx.contains("st.") {
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

/// The width in bits of an integer PTX type suffix (`s32`, `b16`, `u8`, ...); `None` for
/// floats and anything else.
fn integer_type_bits(ty: &str) -> Option<u32> {
    if !matches!(ty.as_bytes().first(), Some(b's' | b'u' | b'b')) {
        return None;
    }
    match ty.get(1..)? {
        "8" => Some(8),
        "16" => Some(16),
        "32" => Some(32),
        "64" => Some(64),
        _ => None,
    }
}

/// The rewritten form of one line, when it is one of the two forms.
fn rewritten(line: &str) -> Option<String> {
    let instruction = Instruction::parse(line)?;
    let (opcode, g, t) = (instruction.opcode, &instruction.guard, SCRATCH);
    if opcode == "cvt.s16.s8" {
        let (dst, src) = instruction.operands.split_once(',')?;
        let (dst, src) = (dst.trim(), src.trim());
        let widen = match register_bits(src)? {
            16 => "cvt.u32.u16",
            32 => "mov.b32",
            _ => "cvt.u32.u64",
        };
        return Some(instruction.block(
            &format!(".reg .b32 {t};"),
            &format!("{g}{widen} {t}, {src}; {g}cvt.s32.s8 {t}, {t}; {g}cvt.u16.u32 {dst}, {t}; "),
        ));
    }
    // `cvt[.rnd][.sat].dst.src d, s` reads `s` at the last type; `st[...].ty [a], s` at `ty`.
    let (head, ty) = opcode.rsplit_once('.')?;
    let (first, source) = if opcode.starts_with("cvt.") {
        instruction.operands.split_once(',')?
    } else if opcode.starts_with("st.") {
        instruction.operands.rsplit_once(',')?
    } else {
        return None;
    };
    let (first, source) = (first.trim(), source.trim());
    let bits = register_bits(source)?;
    // 8-bit types are held in 16-bit registers: those read no wider register.
    let width = integer_type_bits(ty)?.max(16);
    if bits <= width || (opcode.starts_with("st.") && !first.starts_with('[')) {
        return None;
    }
    // The source is the last operand of both, replaced by the chopped scratch register.
    Some(instruction.block(
        &format!(".reg .b{width} {t};"),
        &format!("{g}cvt.u{width}.u{bits} {t}, {source}; {g}{head}.{ty} {first}, {t}; "),
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

    /// Seed 2's programs 2278 and 6618: `cvt.s64.s32` of a 64-bit register.
    #[test]
    fn a_wide_source_is_chopped_first() {
        let ptx = "\tcvt.s64.s32 \t%rd47, %rd9;\n\tcvt.s64.s8 \t%rd15, %rd14;\n\
                   \tcvt.rn.f32.s16 \t%r3, %r2;\n\tst.param.b32 \t[func_retval0], %rd13;\n\
                   \tst.local.b8 \t[%rd3+1], %r25;\n";
        assert_eq!(
            rewrite_conversions(ptx.into()),
            "\t{ .reg .b32 %oxide_cvt; cvt.u32.u64 %oxide_cvt, %rd9; cvt.s64.s32 %rd47, %oxide_cvt; }\n\
             \t{ .reg .b16 %oxide_cvt; cvt.u16.u64 %oxide_cvt, %rd14; cvt.s64.s8 %rd15, %oxide_cvt; }\n\
             \t{ .reg .b16 %oxide_cvt; cvt.u16.u32 %oxide_cvt, %r2; cvt.rn.f32.s16 %r3, %oxide_cvt; }\n\
             \t{ .reg .b32 %oxide_cvt; cvt.u32.u64 %oxide_cvt, %rd13; st.param.b32 [func_retval0], %oxide_cvt; }\n\
             \t{ .reg .b16 %oxide_cvt; cvt.u16.u32 %oxide_cvt, %r25; st.local.b8 [%rd3+1], %oxide_cvt; }\n"
        );
    }

    /// Registers of the instruction's own width (or 16 bits for 8-bit types), immediates, float
    /// and bit-typed sources, and chops themselves are left alone.
    #[test]
    fn other_conversions_and_stores_are_left_alone() {
        let ptx = "\tcvt.s64.s32 \t%rd1, %r2;\n\tcvt.s64.s8 \t%rd1, %rs2;\n\tcvt.u32.u64 \t%r1, %rd2;\n\
                   \tcvt.rn.f64.f32 \t%rd1, %r1;\n\tst.global.b64 \t[%rd6], %rd52;\n\
                   \tst.param.b32 \t[param0], 0;\n\tst.local.b8 \t[%rd3], %rs1;\n\
                   \tst.global.v2.b32 \t[%rd1], {%r1, %r2};\n\tcvt.s16.s8 \t%rs1, 5;\n";
        assert_eq!(rewrite_conversions(ptx.into()), ptx);
    }
}
