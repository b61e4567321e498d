//! Rewrites of the emitted PTX around two faults of ptxas (CUDA 13.0, driver 580, the JIT's
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
//! - **An i8 sign-extended into a 16-bit register (suspected, not yet confirmed on the GPU).**
//!   Two fuzz programs (seed 1, 620 and 2224) still differ on the H200 and were cut down to
//!   `max(x, 0).trailing_zeros()` of an `i8`, which NVPTX emits as `cvt.s8.s64 %rs, %rd;
//!   max.s16 ..` (then the trailing-zeros sequence). The suspicion, by analogy with `neg.s16`, is
//!   that ptxas takes the 16-bit register written by the 8-to-16-bit sign extension as already
//!   sign-extended to 32 bits when it lowers the following `max.s16`/`min.s16`. So `cvt.s8.s16`,
//!   `cvt.s8.s32`, `cvt.s8.s64` and `cvt.s16.s8` into a 16-bit register are computed in 32 bits,
//!   ending, like the negation's rewrite, in a truncation `cvt.u16.u32` (which ptxas never takes
//!   for extended). ci/gpu-probes (narrow.ptx, and the backend's PTX of
//!   tests/ui/pass_cttz_probe.rs) is the GPU run that pins or clears it.
//!
//! Found by oxide-fuzz (docs/fuzzing.md) in `i16::MIN.wrapping_neg()`, `wrapping_abs()` of
//! `i16::MIN`, `i32::MIN` and `i64::MIN`, and in negations that LLVM's instruction selection
//! narrows to 16 bits from wider ones, which is why these are rewritten in the PTX, after every
//! LLVM pass.

/// A scratch register declared in the `{ }` scope of each rewritten instruction.
const SCRATCH: &str = "%oxide_tmp";

/// `neg.s16 d, x`, `sub.s16 d, 0, x` and `abs.s16 d, x` become the same operation in 32 bits:
/// `{ .reg .b32 t; cvt.s32.s16 t, x; neg.s32 t, t; cvt.u16.u32 d, t; }` (with `abs.s32`, which
/// cannot meet `i32::MIN` there). `abs.s32 d, x` and `abs.s64 d, x` become
/// `{ .reg .b32 t; shr.s32 t, x, 31; xor.b32 d, x, t; sub.s32 d, d, t; }` (`64` and `63` for
/// 64 bits). An 8-bit sign extension into a 16-bit register, `cvt.s8.s64 d, x` (and from `.s32`,
/// `.s16`, and `cvt.s16.s8`), becomes `{ .reg .b32 t; cvt.u32.u64 t, x; cvt.s32.s8 t, t;
/// cvt.u16.u32 d, t; }` (no widening from a 32-bit `x`, `cvt.u32.u16` from a 16-bit one). A
/// predicate guard is kept on each instruction of the block.
pub(crate) fn rewrite_ptx(ptx: String) -> String {
    if !ptx.contains("neg.s16")
        && !ptx.contains("abs.s")
        && !ptx.contains("sub.s16")
        && !ptx.contains("cvt.s8.s")
        && !ptx.contains("cvt.s16.s8")
    {
        return ptx;
    }
    let mut out = String::with_capacity(ptx.len() + 1024);
    for line in ptx.split_inclusive('\n') {
        match rewritten(line) {
            Some(rewritten) => out.push_str(&rewritten),
            None => out.push_str(line),
        }
    }
    out
}

/// How a faulty instruction is rewritten.
enum Fix {
    /// In 32 bits, with this 32-bit opcode, between a sign extension and a truncation.
    Narrow(&'static str),
    /// As `(x ^ s) - s` with the sign mask `s = x >> (bits - 1)`, at this width in bits.
    AbsBySignMask(u32),
    /// An 8-bit sign extension into a 16-bit register, done in 32 bits: the source brought to
    /// 32 bits by this conversion (none for a 32-bit source), then `cvt.s32.s8` and a truncation.
    SignExtend8In32(Option<&'static str>),
}

/// The rewritten form of one line of PTX, when it is one of the faulty instructions.
fn rewritten(line: &str) -> Option<String> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (guard, instruction) = match body.strip_prefix('@') {
        Some(rest) => {
            let (predicate, instruction) = rest.split_once(char::is_whitespace)?;
            (format!("@{predicate} "), instruction.trim_start())
        }
        None => (String::new(), body),
    };
    let (opcode, operands) = instruction.split_once(char::is_whitespace)?;
    let operands = operands.trim().strip_suffix(';')?;
    let operands: Vec<&str> = operands.split(',').map(str::trim).collect();
    let (fix, dst, src) = match (opcode, operands.as_slice()) {
        ("neg.s16", [dst, src]) => (Fix::Narrow("neg.s32"), *dst, *src),
        ("sub.s16", [dst, "0", src]) => (Fix::Narrow("neg.s32"), *dst, *src),
        ("abs.s16", [dst, src]) => (Fix::Narrow("abs.s32"), *dst, *src),
        ("abs.s32", [dst, src]) => (Fix::AbsBySignMask(32), *dst, *src),
        ("abs.s64", [dst, src]) => (Fix::AbsBySignMask(64), *dst, *src),
        // NVPTX names its 16-bit registers %rs<N>; into a 32- or 64-bit register the extension
        // is not the suspected form.
        ("cvt.s8.s64", [dst, src]) if dst.starts_with("%rs") => {
            (Fix::SignExtend8In32(Some("cvt.u32.u64")), *dst, *src)
        }
        ("cvt.s8.s32", [dst, src]) if dst.starts_with("%rs") => {
            (Fix::SignExtend8In32(None), *dst, *src)
        }
        ("cvt.s8.s16" | "cvt.s16.s8", [dst, src]) if dst.starts_with("%rs") => {
            (Fix::SignExtend8In32(Some("cvt.u32.u16")), *dst, *src)
        }
        _ => return None,
    };
    // An immediate operand is folded by ptxas; only registers meet the faults.
    if !src.starts_with('%') {
        return None;
    }
    let end = &line[line.trim_end().len()..];
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
        Fix::SignExtend8In32(widen) => {
            let widen = match widen {
                Some(cvt) => format!("{g}{cvt} {t}, {src}; {g}cvt.s32.s8 {t}, {t}; "),
                None => format!("{g}cvt.s32.s8 {t}, {src}; "),
            };
            format!("{indent}{{ .reg .b32 {t}; {widen}{g}cvt.u16.u32 {dst}, {t}; }}{end}")
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
             \t{ .reg .b32 %oxide_tmp; cvt.s32.s16 %oxide_tmp, %rs1; abs.s32 %oxide_tmp, %oxide_tmp; cvt.u16.u32 %rs3, %oxide_tmp; }\n"
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
    fn an_i8_sign_extended_into_16_bits_is_extended_in_32() {
        let ptx = "\tld.global.nc.b64 \t%rd20, [%rd19];\n\tcvt.s8.s64 \t%rs2, %rd20;\n\
                   \tmax.s16 \t%rs1, %rs2, 0;\n\tcvt.s8.s32 \t%rs3, %r7;\n\
                   \t@%p1 cvt.s16.s8 \t%rs4, %rs3;\n";
        assert_eq!(
            rewrite_ptx(ptx.into()),
            "\tld.global.nc.b64 \t%rd20, [%rd19];\n\
             \t{ .reg .b32 %oxide_tmp; cvt.u32.u64 %oxide_tmp, %rd20; cvt.s32.s8 %oxide_tmp, %oxide_tmp; cvt.u16.u32 %rs2, %oxide_tmp; }\n\
             \tmax.s16 \t%rs1, %rs2, 0;\n\
             \t{ .reg .b32 %oxide_tmp; cvt.s32.s8 %oxide_tmp, %r7; cvt.u16.u32 %rs3, %oxide_tmp; }\n\
             \t{ .reg .b32 %oxide_tmp; @%p1 cvt.u32.u16 %oxide_tmp, %rs3; @%p1 cvt.s32.s8 %oxide_tmp, %oxide_tmp; @%p1 cvt.u16.u32 %rs4, %oxide_tmp; }\n"
        );
    }

    #[test]
    fn sign_extensions_into_wide_registers_are_left_alone() {
        let ptx = "\tcvt.s8.s64 \t%r3, %rd1;\n\tcvt.s8.s32 \t%rd3, %r1;\n\tcvt.s32.s8 \t%r4, %r4;\n\
                   \tcvt.s64.s8 \t%rd4, %rs1;\n\tcvt.s16.s8 \t%rs1, 5;\n\tcvt.s16.s32 \t%rs1, %r1;\n";
        assert_eq!(rewrite_ptx(ptx.into()), ptx);
    }

    #[test]
    fn other_instructions_are_left_alone() {
        let ptx = "\tsub.s16 \t%rs9, %rs1, %rs8;\n\tneg.s32 \t%r1, %r2;\n\tneg.s16 \t%rs1, 5;\n\
                   \tabs.s16 %rs1;\n\tabs.f32 \t%r1, %r2;\n\tabs.s64 \t%rd1, 7;\n// neg.s16 in a comment\n";
        assert_eq!(rewrite_ptx(ptx.into()), ptx);
    }
}
