//! Rewrites around faults of LLVM's NVPTX code generator and of ptxas, each measured on the H200
//! (docs/gpu-results/2026-12-01-ptx-probes.txt, 2026-12-01-ptx-probes-narrow.txt) and found by oxide-fuzz (docs/fuzzing.md). Each
//! keeps the program's meaning and avoids the instructions that break it:
//!
//! - [`wide_shifts`]: 128-bit shifts by a variable amount are expanded into 64-bit shifts before
//!   instruction selection (NVPTX's lowering loses the sign fill of `ashr i128` by 64 or more
//!   when only some bits of the result are used).
//! - [`ptx_rewrites`]: `neg.s16`/`abs.s16`, and `abs.s32`/`abs.s64`, are rewritten in the PTX
//!   (ptxas at -O3 reads a 16-bit negation of -32768 as +32768, and takes `abs` of the most
//!   negative value for non-negative); and `max.s16`/`min.s16` are computed in 32 bits (ptxas at
//!   -O3 gets a 16-bit `max(x, 0)` compared with 0 wrong: fuzz programs 620 and 2224,
//!   docs/gpu-results/2026-12-01-ptx-probes-narrow.txt); `min.u16`/`max.u16` likewise.
//! - [`narrow_conversions`]: `cvt.s16.s8` is computed in 32 bits and `.s8` loads into 16-bit
//!   registers go through 32-bit ones (ptxas at -O1 and above got them wrong in fuzz programs
//!   971, 3860 and 6618 of seed 2).
//! - [`float_selects`]: `selp.f32`/`selp.f64` become bit selects (ptxas at -O1 and above turns
//!   a select between -0.0 and -1.0 into an int-to-float conversion that gives +0.0: fuzz
//!   program 2278 of seed 2).

mod float_selects;
mod narrow_conversions;
mod ptx_rewrites;
mod wide_shifts;

pub(crate) use float_selects::rewrite_float_selects;
pub(crate) use narrow_conversions::rewrite_conversions;
pub(crate) use ptx_rewrites::rewrite_ptx;
pub(crate) use wide_shifts::expand_wide_shifts;

/// One instruction line of PTX, split as the rewrites read it: `{indent}{guard}{opcode}
/// {operands};{end}`.
struct Instruction<'a> {
    indent: &'a str,
    /// `@%p1 ` or `@!%p1 ` (with its space), or empty.
    guard: String,
    opcode: &'a str,
    /// Between the opcode and the `;`, trimmed.
    operands: &'a str,
    /// The line's trailing whitespace (its newline).
    end: &'a str,
}

impl<'a> Instruction<'a> {
    /// `line` as an instruction, or `None` for anything else (labels, directives, blocks).
    fn parse(line: &'a str) -> Option<Self> {
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
        Some(Instruction {
            indent,
            guard,
            opcode,
            operands,
            end: &line[line.trim_end().len()..],
        })
    }

    /// The line that replaces this instruction: a `{ }` block declaring `declarations` and
    /// holding `code`, on the instruction's indentation and with its line ending.
    fn block(&self, declarations: &str, code: &str) -> String {
        format!("{}{{ {declarations} {code}}}{}", self.indent, self.end)
    }
}

/// `ptx` with each line `rewritten` gives replaced by its rewrite.
fn rewrite_lines(ptx: String, rewritten: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(ptx.len() + 1024);
    for line in ptx.split_inclusive('\n') {
        match rewritten(line) {
            Some(rewritten) => out.push_str(&rewritten),
            None => out.push_str(line),
        }
    }
    out
}
