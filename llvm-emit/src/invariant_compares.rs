//! Loop-invariant comparisons stay where LICM hoisted them.
//!
//! Before instruction selection, LLVM's CodeGenPrepare sinks every comparison into each block
//! that uses it, because on most targets a condition cannot live in a register across blocks.
//! NVPTX has predicate registers but does not say so (its `hasMultipleConditionRegisters` is
//! false), so a test that LICM hoisted out of a loop — `row < rows` of a tiled kernel's loads,
//! whose row does not change along `k` — is computed again in every iteration, and there
//! instruction selection fuses it with the varying test (`row < n && col < n` becomes
//! `max(row, col) < n`), which cannot be hoisted at all: sgemm's loop ran 26 64-bit compares
//! more per step than its nvcc twin's.
//!
//! A comparison outside a loop whose result is used inside it is given to those uses through a
//! `freeze` next to it (a no-op on a value that is not poison, and a comparison of values that
//! are not poison is not), which CodeGenPrepare does not sink: the predicate is computed once.
//! This runs after LLVM's IR passes, which would remove the `freeze`.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMOpcode;
use llvm_sys::core::{
    LLVMBuildFreeze, LLVMCreateBuilderInContext, LLVMDisposeBuilder, LLVMGetFirstBasicBlock,
    LLVMGetFirstInstruction, LLVMGetFirstUse, LLVMGetInstructionOpcode, LLVMGetInstructionParent,
    LLVMGetModuleContext, LLVMGetNextInstruction, LLVMGetNextUse, LLVMGetNumOperands,
    LLVMGetOperand, LLVMGetUser, LLVMIsAConstant, LLVMPositionBuilderBefore, LLVMSetOperand,
};
use llvm_sys::prelude::LLVMValueRef;

use crate::cfg::{Cfg, Loop};

/// Freezes every comparison made outside a loop and used inside it (see the module's
/// documentation); returns how many were frozen.
pub(crate) fn keep_invariant_compares_out_of_loops(module: &Module<'_>) -> usize {
    let mut frozen = 0;
    for function in module.get_functions() {
        // SAFETY: the function belongs to `module`, which outlives this call. A freeze is
        // inserted right after its comparison (never a phi or a terminator, so the position is
        // valid), and only uses the comparison dominates are redirected to it, which the freeze
        // then dominates too.
        unsafe {
            let f = function.as_value_ref();
            if LLVMGetFirstBasicBlock(f).is_null() {
                continue;
            }
            let cfg = Cfg::of(f);
            let loops = cfg.loops();
            if loops.is_empty() {
                continue;
            }
            let builder = LLVMCreateBuilderInContext(LLVMGetModuleContext(module.as_mut_ptr()));
            for &block in &cfg.blocks {
                let mut i = LLVMGetFirstInstruction(block);
                while !i.is_null() {
                    let next = LLVMGetNextInstruction(i);
                    let users = users_in_deeper_loops(i, &loops);
                    if !users.is_empty() {
                        LLVMPositionBuilderBefore(builder, next);
                        let freeze = LLVMBuildFreeze(builder, i, c"hoisted".as_ptr());
                        for user in users {
                            for k in 0..LLVMGetNumOperands(user) as u32 {
                                if LLVMGetOperand(user, k) == i {
                                    LLVMSetOperand(user, k, freeze);
                                }
                            }
                        }
                        frozen += 1;
                    }
                    i = next;
                }
            }
            LLVMDisposeBuilder(builder);
        }
    }
    frozen
}

/// The users of comparison `cmp` that lie in a loop `cmp` is not in, if it compares two
/// non-constant values (CodeGenPrepare turns `freeze (cmp x, C)` back into a comparison it then
/// sinks); phis are left out (their use is at the end of an incoming block).
unsafe fn users_in_deeper_loops(cmp: LLVMValueRef, loops: &[Loop]) -> Vec<LLVMValueRef> {
    unsafe {
        if !matches!(
            LLVMGetInstructionOpcode(cmp),
            LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp
        ) || (0..2).any(|k| !LLVMIsAConstant(LLVMGetOperand(cmp, k)).is_null())
        {
            return Vec::new();
        }
        let home = LLVMGetInstructionParent(cmp);
        let mut users = Vec::new();
        let mut u = LLVMGetFirstUse(cmp);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMGetInstructionOpcode(user) == LLVMOpcode::LLVMPHI || users.contains(&user) {
                continue;
            }
            let at = LLVMGetInstructionParent(user);
            if loops
                .iter()
                .any(|l| l.body.contains(&at) && !l.body.contains(&home))
            {
                users.push(user);
            }
        }
        users
    }
}

#[cfg(test)]
mod tests {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    use super::keep_invariant_compares_out_of_loops;

    fn frozen(ir: &str) -> (usize, String) {
        let ll = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
        let module = ll
            .create_module_from_ir(buffer)
            .expect("the test's IR parses");
        let n = keep_invariant_compares_out_of_loops(&module);
        module.verify().expect("the IR stays valid");
        (n, module.print_to_string().to_string())
    }

    /// `row < n` hoisted before a loop over `col`; `col < n` in it; `row < 7` too.
    const LOOP: &str = "
define i64 @k(i64 %row, i64 %n) {
entry:
  %inv = icmp ult i64 %row, %n
  %konst = icmp ult i64 %row, 7
  br label %loop
loop:
  %col = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %sum, %loop ]
  %in = icmp ult i64 %col, %n
  %both = select i1 %inv, i1 %in, i1 false
  %both2 = select i1 %konst, i1 %both, i1 false
  %one = zext i1 %both2 to i64
  %sum = add i64 %acc, %one
  %next = add i64 %col, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  %last = select i1 %inv, i64 %sum, i64 0
  ret i64 %last
}";

    #[test]
    fn an_invariant_compare_used_in_a_loop_is_frozen_for_the_loop_only() {
        let (n, out) = frozen(LOOP);
        assert_eq!(n, 1, "{out}");
        // The loop's use reads the freeze; the use after the loop and the compare with a
        // constant are left as they were.
        assert!(out.contains("%hoisted = freeze i1 %inv"), "{out}");
        assert!(
            out.contains("%both = select i1 %hoisted, i1 %in, i1 false"),
            "{out}"
        );
        assert!(
            out.contains("%last = select i1 %inv, i64 %sum, i64 0"),
            "{out}"
        );
        assert!(out.contains("%both2 = select i1 %konst"), "{out}");
    }

    #[test]
    fn a_function_without_loops_is_left_alone() {
        let ir = "
define i1 @k(i64 %a, i64 %b, i1 %c) {
entry:
  %x = icmp ult i64 %a, %b
  br i1 %c, label %t, label %e
t:
  %y = and i1 %x, %c
  ret i1 %y
e:
  ret i1 %x
}";
        assert_eq!(frozen(ir).0, 0);
    }
}
