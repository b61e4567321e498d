//! `(a | b) - a` is `b` when `a` and `b` share no bit (`or disjoint`): the tile-local position
//! a kernel gets back from a tile's absolute one.
//!
//! An output tile hands a thread its element's absolute position, `origin + local`, which LLVM
//! writes `origin | local` (`or disjoint`: the origin is a multiple of the tile's size, the local
//! position below it); a kernel that indexes its shared tile by `col - origin` then takes the
//! local position back. InstCombine rewrites `(a | b) - a` as `b & !a` without reading the
//! `disjoint` flag, so the bounds check of the shared-tile index (`local < 32`, known from the
//! block's shape) stays, with a trap branch, in every store (kernels/transpose: four).
//! Replacing such a difference by the local position lets InstCombine fold the check.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMOpcode;
use llvm_sys::core::{
    LLVMGetFirstBasicBlock, LLVMGetFirstInstruction, LLVMGetInstructionOpcode, LLVMGetIsDisjoint,
    LLVMGetNextBasicBlock, LLVMGetNextInstruction, LLVMGetOperand, LLVMIsAInstruction,
    LLVMReplaceAllUsesWith,
};
use llvm_sys::prelude::LLVMValueRef;

/// Replaces every `sub (or disjoint a, b), a` by `b` (and `sub (or disjoint a, b), b` by `a`);
/// returns how many. The dead `sub`s are left to the clean-up passes.
pub(crate) fn fold_disjoint_or_differences(module: &Module<'_>) -> usize {
    let mut folded = 0;
    for function in module.get_functions() {
        // SAFETY: the function belongs to `module`, which outlives this call; a replacement is
        // an operand of the `or` the `sub` reads, so it dominates every use of the `sub`.
        unsafe {
            let mut block = LLVMGetFirstBasicBlock(function.as_value_ref());
            while !block.is_null() {
                let mut i = LLVMGetFirstInstruction(block);
                while !i.is_null() {
                    if let Some(rest) = difference_of_disjoint_or(i) {
                        LLVMReplaceAllUsesWith(i, rest);
                        folded += 1;
                    }
                    i = LLVMGetNextInstruction(i);
                }
                block = LLVMGetNextBasicBlock(block);
            }
        }
    }
    folded
}

/// For `sub (or disjoint a, b), a`: `b`; for `sub (or disjoint a, b), b`: `a`.
unsafe fn difference_of_disjoint_or(sub: LLVMValueRef) -> Option<LLVMValueRef> {
    unsafe {
        if LLVMGetInstructionOpcode(sub) != LLVMOpcode::LLVMSub {
            return None;
        }
        let (or, taken) = (LLVMGetOperand(sub, 0), LLVMGetOperand(sub, 1));
        if LLVMIsAInstruction(or).is_null()
            || LLVMGetInstructionOpcode(or) != LLVMOpcode::LLVMOr
            || LLVMGetIsDisjoint(or) == 0
        {
            return None;
        }
        let (a, b) = (LLVMGetOperand(or, 0), LLVMGetOperand(or, 1));
        if taken == a {
            Some(b)
        } else if taken == b {
            Some(a)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    use super::fold_disjoint_or_differences;

    fn folded(ir: &str) -> (usize, String) {
        let ll = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
        let module = ll
            .create_module_from_ir(buffer)
            .expect("the test's IR parses");
        let n = fold_disjoint_or_differences(&module);
        module.verify().expect("the IR stays valid");
        (n, module.print_to_string().to_string())
    }

    #[test]
    fn the_difference_of_a_disjoint_or_and_one_part_is_the_other() {
        let ir = "
define i64 @f(i64 %origin, i64 %local) {
  %abs = or disjoint i64 %origin, %local
  %back = sub nsw i64 %abs, %origin
  %other = sub i64 %abs, %local
  %sum = add i64 %back, %other
  ret i64 %sum
}";
        let (n, out) = folded(ir);
        assert_eq!(n, 2, "{out}");
        assert!(out.contains("%sum = add i64 %local, %origin"), "{out}");
    }

    #[test]
    fn a_plain_or_is_left_alone() {
        let ir = "
define i64 @f(i64 %a, i64 %b) {
  %o = or i64 %a, %b
  %s = sub i64 %o, %a
  ret i64 %s
}";
        assert_eq!(folded(ir).0, 0);
    }
}
