//! Rewrites of the emitted PTX around faults of ptxas (CUDA 13.0, driver 580, the JIT's
//! default -O3; -O0 is right), measured on the H200 over every input that matters
//! (docs/gpu-results/2026-12-01-ptx-probes.txt):
//!
//! - **16-bit negation.** `neg.s16`, `sub.s16 d, 0, x` and `abs.s16` of -32768 leave a register
//!   that later instructions read as +32768: a sign extension (`cvt.s64.s16`, `cvt.s32.s16`),
//!   `mul.wide.s16`, `shr.s16` and `setp.lt.s16 .., 0` all see +32768, where the 16-bit result is
//!   -32768. The same negation computed in 32 bits is right for all 65,536 inputs.
//! - **`abs` of the most negative value.** ptxas takes the result of `abs.s32`/`abs.s64` for
//!   non-negative: `setp.lt.s32 p, abs(i32::MIN), 0` is false, where `abs` gives `i32::MIN` back
//!   (Rust's `wrapping_abs`, and LLVM's `llvm.abs(x, false)`). ptxas also sees through
//!   `max(x, -x)` (measured wrong at -O1 and above in five fuzz programs), so `abs` is written
//!   with the sign mask: `t = x >> (N - 1); (x ^ t) - t`, right at every level in the same
//!   programs and in the probes.
//!
//! - **16-bit `max`/`min` compared with 0.** At -O3, `max.s16 d, x, 0` (and `min.s16`)
//!   followed by `setp.eq.b16 p, d, 0` gives the wrong predicate (for `x = 1`, `max(x, 0) == 0`
//!   holds), so `max(x, 0).trailing_zeros()` of an `i8`/`i16` is wrong (the fuzz programs 620
//!   and 2224 of seed 1, pinned by ci/gpu-probes' narrow.ptx: every 8- and 16-bit source form
//!   is wrong with the 16-bit `max`, every 32-bit form right). `max.s16`/`min.s16` are computed
//!   in 32 bits, between a sign extension and a truncation, as the negation is.
//!
//! - **Unsigned 16-bit `min`/`max` compared with their bound.** At -O1 and above,
//!   `min.u16 d, x, 255` followed by `setp.eq.b16 p, d, 255` gives the wrong predicate (ptxas
//!   folds the compare into the min's own predicate output): `u8::saturating_add` then
//!   `== u8::MAX` was true for `x = 0` (fuzz programs 2278, 6618 and 9379 of seed 2; the same
//!   PTX through ptxas -O0 is right). `min.u16`/`max.u16` are computed in 32 bits between a zero
//!   extension and a truncation, an immediate taken modulo 2^16.
//! - **A narrowed `abs` sign-extended again.** `abs` of a sign-extended `i8` computed in 32 bits
//!   (the rewrite of `abs.s16` above) and then sign-extended from 8 bits (`(x.abs_diff(0) as
//!   i8)`, fuzz program 3860 of seed 2) keeps +128 where the `i8` is -128: ptxas takes `abs` for
//!   a value in 0..=127 there. The narrowed `abs` is written with the sign mask, as the wide
//!   one.
//!
//! Found by oxide-fuzz (docs/fuzzing.md) in `i16::MIN.wrapping_neg()`, `wrapping_abs()` of
//! `i16::MIN`, `i32::MIN` and `i64::MIN`, and in negations that LLVM's instruction selection
//! narrows to 16 bits from wider ones, which is why these are rewritten in the PTX, after every
//! LLVM pass.

use super::{Instruction, rewrite_lines};

/// A scratch register declared in the `{ }` scope of each rewritten instruction.
const SCRATCH: &str = "%oxide_tmp";

/// `neg.s16 d, x`, `sub.s16 d, 0, x` and `abs.s16 d, x` become the same operation in 32 bits:
/// `{ .reg .b32 t; cvt.s32.s16 t, x; neg.s32 t, t; cvt.u16.u32 d, t; }` (with `abs.s32`, which
/// cannot meet `i32::MIN` there, and with the sign mask: `t = x >> 31; (x ^ t) - t`).
/// `abs.s32 d, x` and `abs.s64 d, x` become
/// `{ .reg .b32 t; shr.s32 t, x, 31; xor.b32 d, x, t; sub.s32 d, d, t; }` (`64` and `63` for
/// 64 bits). `max.s16 d, x, y` and `min.s16` become `{ .reg .b32 t; .reg .b32 u; cvt.s32.s16 t,
/// x; cvt.s32.s16 u, y; max.s32 t, t, u; cvt.u16.u32 d, t; }` (`y` an immediate: no `u`);
/// `max.u16`/`min.u16` the same with `cvt.u32.u16` and `max.u32`. A predicate guard is kept on
/// each instruction of the block.
pub(crate) fn rewrite_ptx(ptx: String) -> String {
    if !ptx.contains("neg.s16")
        && !ptx.contains("abs.s")
        && !ptx.contains("sub.s16")
        && !ptx.contains("max.s16")
        && !ptx.contains("min.s16")
        && !ptx.contains("max.u16")
        && !ptx.contains("min.u16")
    {
        return ptx;
    }
    rewrite_lines(ptx, rewritten)
}

/// How a faulty instruction is rewritten.
enum Fix {
    /// In 32 bits, with this 32-bit opcode, between a sign extension and a truncation.
    Narrow(&'static str),
    /// As `(x ^ s) - s` with the sign mask `s = x >> (bits - 1)`, at this width in bits.
    AbsBySignMask(u32),
    /// `abs` of a 16-bit value in 32 bits, with the sign mask, between a sign extension and a
    /// truncation.
    NarrowAbs,
    /// A two-operand 16-bit operation in 32 bits, with this 32-bit opcode, both operands
    /// extended as `Extension` says, then a truncation.
    Narrow2(&'static str, Extension),
}

/// How a 16-bit operand of [`Fix::Narrow2`] is widened to 32 bits.
#[derive(Clone, Copy)]
enum Extension {
    /// `cvt.s32.s16`; an immediate is kept as written (a signed 16-bit value).
    Signed,
    /// `cvt.u32.u16`; an immediate is taken modulo 2^16 (LLVM may print 65535 as -1).
    Unsigned,
}

impl Extension {
    fn cvt(self) -> &'static str {
        match self {
            Extension::Signed => "cvt.s32.s16",
            Extension::Unsigned => "cvt.u32.u16",
        }
    }

    /// The 32-bit immediate of a 16-bit one, or `None` when it is not a decimal integer.
    fn immediate(self, text: &str) -> Option<String> {
        let value: i64 = text.parse().ok()?;
        Some(match self {
            Extension::Signed => value.to_string(),
            Extension::Unsigned => (value & 0xffff).to_string(),
        })
    }
}

/// The rewritten form of one line of PTX, when it is one of the faulty instructions.
fn rewritten(line: &str) -> Option<String> {
    let instruction = Instruction::parse(line)?;
    let Instruction {
        indent,
        guard,
        opcode,
        end,
        ..
    } = &instruction;
    let operands: Vec<&str> = instruction.operands.split(',').map(str::trim).collect();
    let (fix, dst, src) = match (*opcode, operands.as_slice()) {
        ("neg.s16", [dst, src]) => (Fix::Narrow("neg.s32"), *dst, *src),
        ("sub.s16", [dst, "0", src]) => (Fix::Narrow("neg.s32"), *dst, *src),
        ("abs.s16", [dst, src]) => (Fix::NarrowAbs, *dst, *src),
        ("abs.s32", [dst, src]) => (Fix::AbsBySignMask(32), *dst, *src),
        ("abs.s64", [dst, src]) => (Fix::AbsBySignMask(64), *dst, *src),
        ("max.s16", [dst, src, _]) => (Fix::Narrow2("max.s32", Extension::Signed), *dst, *src),
        ("min.s16", [dst, src, _]) => (Fix::Narrow2("min.s32", Extension::Signed), *dst, *src),
        ("max.u16", [dst, src, _]) => (Fix::Narrow2("max.u32", Extension::Unsigned), *dst, *src),
        ("min.u16", [dst, src, _]) => (Fix::Narrow2("min.u32", Extension::Unsigned), *dst, *src),
        _ => return None,
    };
    // An immediate operand is folded by ptxas; only registers meet the faults.
    if !src.starts_with('%') {
        return None;
    }
    let t = SCRATCH;
    let g = guard;
    Some(match fix {
        Fix::Narrow(op32) => format!(
            "{indent}{{ .reg .b32 {t}; {g}cvt.s32.s16 {t}, {src}; {g}{op32} {t}, {t}; \
             {g}cvt.u16.u32 {dst}, {t}; }}{end}"
        ),
        Fix::AbsBySignMask(bits) => format!(
            "{indent}{{ .reg .b{bits} {t}; {g}shr.s{bits} {t}, {src}, {sign}; \
             {g}xor.b{bits} {dst}, {src}, {t}; {g}sub.s{bits} {dst}, {dst}, {t}; }}{end}",
            sign = bits - 1
        ),
        Fix::NarrowAbs => format!(
            "{indent}{{ .reg .b32 {t}; .reg .b32 {t}_s; {g}cvt.s32.s16 {t}, {src}; \
             {g}shr.s32 {t}_s, {t}, 31; {g}xor.b32 {t}, {t}, {t}_s; {g}sub.s32 {t}, {t}, {t}_s; \
             {g}cvt.u16.u32 {dst}, {t}; }}{end}"
        ),
        Fix::Narrow2(op32, extension) => {
            let other = operands[2];
            let cvt = extension.cvt();
            let (declare, widen, operand) = if other.starts_with('%') {
                let u = format!("{t}_b");
                (
                    format!(" .reg .b32 {u};"),
                    format!("{g}{cvt} {u}, {other}; "),
                    u,
                )
            } else {
                (String::new(), String::new(), extension.immediate(other)?)
            };
            format!(
                "{indent}{{ .reg .b32 {t};{declare} {g}{cvt} {t}, {src}; {widen}\
                 {g}{op32} {t}, {t}, {operand}; {g}cvt.u16.u32 {dst}, {t}; }}{end}"
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_negations_are_computed_in_32_bits() {
        let ptx = "\tcvt.u16.u64 \t%rs5, %rd7;\n\tneg.s16 \t%rs2, %rs5;\n\tabs.s16 \t%rs3, %rs1;\n";
        assert_eq!(
            rewrite_ptx(ptx.into()),
            "\tcvt.u16.u64 \t%rs5, %rd7;\n\
             \t{ .reg .b32 %oxide_tmp; cvt.s32.s16 %oxide_tmp, %rs5; neg.s32 %oxide_tmp, %oxide_tmp; cvt.u16.u32 %rs2, %oxide_tmp; }\n\
             \t{ .reg .b32 %oxide_tmp; .reg .b32 %oxide_tmp_s; cvt.s32.s16 %oxide_tmp, %rs1; shr.s32 %oxide_tmp_s, %oxide_tmp, 31; xor.b32 %oxide_tmp, %oxide_tmp, %oxide_tmp_s; sub.s32 %oxide_tmp, %oxide_tmp, %oxide_tmp_s; cvt.u16.u32 %rs3, %oxide_tmp; }\n"
        );
    }

    #[test]
    fn wide_abs_flips_by_the_sign_mask() {
        assert_eq!(
            rewrite_ptx("\tabs.s32 \t%r4, %r4;\n\tabs.s64 \t%rd2, %rd1;\n".into()),
            "\t{ .reg .b32 %oxide_tmp; shr.s32 %oxide_tmp, %r4, 31; xor.b32 %r4, %r4, %oxide_tmp; sub.s32 %r4, %r4, %oxide_tmp; }\n\
             \t{ .reg .b64 %oxide_tmp; shr.s64 %oxide_tmp, %rd1, 63; xor.b64 %rd2, %rd1, %oxide_tmp; sub.s64 %rd2, %rd2, %oxide_tmp; }\n"
        );
    }

    #[test]
    fn a_guard_stays_on_every_instruction() {
        assert_eq!(
            rewrite_ptx("\t@!%p3 sub.s16 \t%rs9, 0, %rs8;\n".into()),
            "\t{ .reg .b32 %oxide_tmp; @!%p3 cvt.s32.s16 %oxide_tmp, %rs8; @!%p3 neg.s32 %oxide_tmp, %oxide_tmp; @!%p3 cvt.u16.u32 %rs9, %oxide_tmp; }\n"
        );
    }

    #[test]
    fn narrow_max_and_min_are_computed_in_32_bits() {
        let ptx = "\tcvt.s8.s64 \t%rs2, %rd20;\n\tmax.s16 \t%rs1, %rs2, 0;\n\
                   \t@%p1 min.s16 \t%rs4, %rs3, %rs5;\n\tmax.s32 \t%r1, %r2, 0;\n";
        assert_eq!(
            rewrite_ptx(ptx.into()),
            "\tcvt.s8.s64 \t%rs2, %rd20;\n\
             \t{ .reg .b32 %oxide_tmp; cvt.s32.s16 %oxide_tmp, %rs2; max.s32 %oxide_tmp, %oxide_tmp, 0; cvt.u16.u32 %rs1, %oxide_tmp; }\n\
             \t{ .reg .b32 %oxide_tmp; .reg .b32 %oxide_tmp_b; @%p1 cvt.s32.s16 %oxide_tmp, %rs3; @%p1 cvt.s32.s16 %oxide_tmp_b, %rs5; @%p1 min.s32 %oxide_tmp, %oxide_tmp, %oxide_tmp_b; @%p1 cvt.u16.u32 %rs4, %oxide_tmp; }\n\
             \tmax.s32 \t%r1, %r2, 0;\n"
        );
    }

    /// Seed 2's programs 2278, 6618 and 9379: `min.u16 d, x, 255` then `setp.eq.b16 p, d, 255`.
    #[test]
    fn unsigned_narrow_max_and_min_are_computed_in_32_bits() {
        let ptx = "\tmin.u16 \t%rs1, %rs12, 255;\n\tmax.u16 \t%rs2, %rs3, -1;\n\
                   \t@!%p2 max.u16 \t%rs4, %rs3, %rs5;\n";
        assert_eq!(
            rewrite_ptx(ptx.into()),
            "\t{ .reg .b32 %oxide_tmp; cvt.u32.u16 %oxide_tmp, %rs12; min.u32 %oxide_tmp, %oxide_tmp, 255; cvt.u16.u32 %rs1, %oxide_tmp; }\n\
             \t{ .reg .b32 %oxide_tmp; cvt.u32.u16 %oxide_tmp, %rs3; max.u32 %oxide_tmp, %oxide_tmp, 65535; cvt.u16.u32 %rs2, %oxide_tmp; }\n\
             \t{ .reg .b32 %oxide_tmp; .reg .b32 %oxide_tmp_b; @!%p2 cvt.u32.u16 %oxide_tmp, %rs3; @!%p2 cvt.u32.u16 %oxide_tmp_b, %rs5; @!%p2 max.u32 %oxide_tmp, %oxide_tmp, %oxide_tmp_b; @!%p2 cvt.u16.u32 %rs4, %oxide_tmp; }\n"
        );
    }

    /// An immediate that is not a decimal integer is not guessed at.
    #[test]
    fn an_unreadable_immediate_leaves_the_instruction() {
        let ptx = "\tmin.u16 \t%rs1, %rs12, 0xff;\n";
        assert_eq!(rewrite_ptx(ptx.into()), ptx);
    }

    #[test]
    fn other_instructions_are_left_alone() {
        let ptx = "\tsub.s16 \t%rs9, %rs1, %rs8;\n\tneg.s32 \t%r1, %r2;\n\tneg.s16 \t%rs1, 5;\n\
                   \tabs.s16 %rs1;\n\tabs.f32 \t%r1, %r2;\n\tabs.s64 \t%rd1, 7;\n// neg.s16 in a comment\n";
        assert_eq!(rewrite_ptx(ptx.into()), ptx);
    }
}
