//! One barrier where two stand together: a block barrier that follows an identical one with
//! nothing between them that touches memory is removed.
//!
//! Typed shared-memory phases put a barrier at every phase change of every array, so a kernel
//! that switches two arrays at once (`(a.sync(), b.sync())`, as a tiled GEMM does at each step)
//! gets two `bar.sync 0` in a row, and LLVM keeps both (a barrier is a call it knows nothing
//! about). The second orders nothing the first did not: every thread that passes the first goes
//! straight to the second (same block, no branch), having read or written nothing in between, so
//! the memory each thread sees after the second is what it saw after the first.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMOpcode;
use llvm_sys::core::{
    LLVMGetCalledValue, LLVMGetFirstBasicBlock, LLVMGetFirstInstruction, LLVMGetInstructionOpcode,
    LLVMGetNextBasicBlock, LLVMGetNextInstruction, LLVMGetNumArgOperands, LLVMGetOperand,
    LLVMGetValueName2, LLVMInstructionEraseFromParent,
};
use llvm_sys::prelude::LLVMValueRef;

/// The block-wide barriers: all of the block's threads, no arrival count (`bar.sync`,
/// `barrier.sync`). Two calls are the same barrier when they call the same one of these with
/// the same (constant) operands.
const BLOCK_BARRIERS: &[&str] = &[
    "llvm.nvvm.barrier.cta.sync.aligned.all",
    "llvm.nvvm.barrier.cta.sync.all",
    "llvm.nvvm.barrier0",
];

/// Removes every barrier that repeats the one before it (see the module's documentation);
/// returns how many were removed.
pub(crate) fn merge_adjacent_barriers(module: &Module<'_>) -> usize {
    let mut removed = 0;
    for function in module.get_functions() {
        // SAFETY: the function belongs to `module`, which outlives this call; instructions are
        // read through LLVM's C API, and a barrier call (which has no uses: it returns void) is
        // erased only after the walk has moved past it.
        unsafe {
            let mut block = LLVMGetFirstBasicBlock(function.as_value_ref());
            while !block.is_null() {
                let mut last_barrier: Option<LLVMValueRef> = None;
                let mut i = LLVMGetFirstInstruction(block);
                while !i.is_null() {
                    let next = LLVMGetNextInstruction(i);
                    if is_block_barrier(i) {
                        match last_barrier {
                            Some(first) if same_call(first, i) => {
                                LLVMInstructionEraseFromParent(i);
                                removed += 1;
                            }
                            _ => last_barrier = Some(i),
                        }
                    } else if !touches_nothing(i) {
                        last_barrier = None;
                    }
                    i = next;
                }
                block = LLVMGetNextBasicBlock(block);
            }
        }
    }
    removed
}

/// The name of the function `call` calls directly, if it is a call.
unsafe fn callee_name(call: LLVMValueRef) -> Option<String> {
    unsafe {
        if LLVMGetInstructionOpcode(call) != LLVMOpcode::LLVMCall {
            return None;
        }
        let callee = LLVMGetCalledValue(call);
        let mut len = 0;
        let name = LLVMGetValueName2(callee, &mut len);
        if name.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(name.cast::<u8>(), len);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

unsafe fn is_block_barrier(i: LLVMValueRef) -> bool {
    unsafe { callee_name(i).is_some_and(|n| BLOCK_BARRIERS.contains(&n.as_str())) }
}

/// Two calls of one callee with the same operands (LLVM uniques constants, so equal constant
/// operands are the same value).
unsafe fn same_call(a: LLVMValueRef, b: LLVMValueRef) -> bool {
    unsafe {
        let n = LLVMGetNumArgOperands(a);
        LLVMGetCalledValue(a) == LLVMGetCalledValue(b)
            && n == LLVMGetNumArgOperands(b)
            && (0..n).all(|k| LLVMGetOperand(a, k) == LLVMGetOperand(b, k))
    }
}

/// Whether `i` computes a value without reading or writing memory, calling anything or
/// leaving the block: arithmetic, comparisons, casts, address computations.
unsafe fn touches_nothing(i: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    matches!(
        unsafe { LLVMGetInstructionOpcode(i) },
        LLVMAdd
            | LLVMFAdd
            | LLVMSub
            | LLVMFSub
            | LLVMMul
            | LLVMFMul
            | LLVMUDiv
            | LLVMSDiv
            | LLVMFDiv
            | LLVMURem
            | LLVMSRem
            | LLVMFRem
            | LLVMFNeg
            | LLVMShl
            | LLVMLShr
            | LLVMAShr
            | LLVMAnd
            | LLVMOr
            | LLVMXor
            | LLVMICmp
            | LLVMFCmp
            | LLVMSelect
            | LLVMGetElementPtr
            | LLVMTrunc
            | LLVMZExt
            | LLVMSExt
            | LLVMFPToUI
            | LLVMFPToSI
            | LLVMUIToFP
            | LLVMSIToFP
            | LLVMFPTrunc
            | LLVMFPExt
            | LLVMPtrToInt
            | LLVMIntToPtr
            | LLVMBitCast
            | LLVMAddrSpaceCast
            | LLVMExtractValue
            | LLVMInsertValue
            | LLVMExtractElement
            | LLVMInsertElement
            | LLVMShuffleVector
            | LLVMFreeze
    )
}

#[cfg(test)]
mod tests {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    use super::merge_adjacent_barriers;

    fn merged(ir: &str) -> (usize, String) {
        let ll = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
        let module = ll
            .create_module_from_ir(buffer)
            .expect("the test's IR parses");
        let n = merge_adjacent_barriers(&module);
        module.verify().expect("the IR stays valid");
        (n, module.print_to_string().to_string())
    }

    const DECLS: &str = "declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent
declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32) convergent
";

    #[test]
    fn a_repeated_barrier_with_only_arithmetic_between_goes() {
        let ir = format!(
            "{DECLS}
define void @k(ptr addrspace(3) %p, i64 %x) {{
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %g = getelementptr i8, ptr addrspace(3) %p, i64 %x
  %y = add i64 %x, 1
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  store i64 %y, ptr addrspace(3) %g
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}}"
        );
        let (n, out) = merged(&ir);
        assert_eq!(n, 1);
        assert_eq!(out.matches("call void @llvm.nvvm.barrier").count(), 2);
    }

    #[test]
    fn a_memory_access_or_another_barrier_between_keeps_both() {
        let ir = format!(
            "{DECLS}
define void @k(ptr addrspace(3) %p, i32 %n) {{
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %v = load i32, ptr addrspace(3) %p
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 1)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 64)
  store i32 %v, ptr addrspace(3) %p
  ret void
}}"
        );
        let (n, _) = merged(&ir);
        assert_eq!(n, 0);
    }

    #[test]
    fn barriers_in_different_blocks_stay() {
        let ir = format!(
            "{DECLS}
define void @k(i1 %c) {{
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %c, label %a, label %b
a:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %b
b:
  ret void
}}"
        );
        assert_eq!(merged(&ir).0, 0);
    }
}
