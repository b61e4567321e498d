//! The rewrite of `selp.f32`/`selp.f64` into `selp.b32`/`selp.b64`. ptxas (CUDA 13.0, driver
//! 580; -O1 and above, -O0 is right) turns a float select between `-0.0` and `-1.0` into an
//! integer select between 0 and -1 followed by an int-to-float conversion, which gives `+0.0`
//! where the PTX says `-0.0`: `-1.0f32 % y` is `-0.0` for `y = ±1` in Rust and was `+0.0` on
//! the GPU (oxide-fuzz seed 2, program 2278; read in the SASS of `selp.f32 d, 0f80000000,
//! 0fBF800000, p`, where the bit select gives `SEL d, 0x80000000, 0xbf800000`:
//! docs/fuzz-results/2026-12-03-seed2-ptxas-levels.txt, run 5).
//!
//! A select does not look at the bits it moves, so the bit select means exactly what the float
//! one does, for every operand, NaNs and signed zeros included; it costs the same (`SEL`
//! instead of `FSEL`).

use super::{Instruction, rewrite_lines};

/// `ptx` with every float select written as a bit select of the same width.
pub(crate) fn rewrite_float_selects(ptx: String) -> String {
    if !ptx.contains("selp.f") {
        return ptx;
    }
    rewrite_lines(ptx, rewritten)
}

/// The rewritten form of one line, when it is a `selp.f32` or `selp.f64`.
fn rewritten(line: &str) -> Option<String> {
    let instruction = Instruction::parse(line)?;
    let bits = match instruction.opcode {
        "selp.f32" => "selp.b32",
        "selp.f64" => "selp.b64",
        _ => return None,
    };
    let Instruction {
        indent,
        guard,
        operands,
        end,
        ..
    } = instruction;
    Some(format!("{indent}{guard}{bits} \t{operands};{end}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 2's program 2278: `-1.0 % y` with the select between its two constant results.
    #[test]
    fn float_selects_become_bit_selects() {
        let ptx = "\tselp.f32 \t%r62, 0f80000000, 0fBF800000, %p8;\n\
                   \t@!%p2 selp.f64 \t%rd3, %rd1, 0d8000000000000000, %p1;\n";
        assert_eq!(
            rewrite_float_selects(ptx.into()),
            "\tselp.b32 \t%r62, 0f80000000, 0fBF800000, %p8;\n\
             \t@!%p2 selp.b64 \t%rd3, %rd1, 0d8000000000000000, %p1;\n"
        );
    }

    #[test]
    fn other_selects_are_left_alone() {
        let ptx = "\tselp.b32 \t%r1, %r2, 0, %p1;\n\tselp.s64 \t%rd1, %rd2, -1, %p1;\n\
                   \tselp.b16 \t%rs1, 0, %rs5, %p36;\n// selp.f32 in a comment\n";
        assert_eq!(rewrite_float_selects(ptx.into()), ptx);
    }
}
