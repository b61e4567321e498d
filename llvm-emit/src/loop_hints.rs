//! `oxide::unroll`'s hint: the loop around each call of [`UNROLL_HINT_SYMBOL`] is marked to be
//! unrolled fully (`llvm.loop.unroll.full`, as clang marks a loop under `#pragma unroll`), and
//! the calls are removed.
//!
//! The calls come from the iterator's `next`, which LLVM inlines into the loop during
//! `default<O3>`; its unrolling runs in the same step, before a mark could be attached. So the
//! mark is attached after O3, and [`crate::target::AFTER_LOOP_PASSES`] unrolls the marked loops.
//! Until then the call stands for the hint: an external call, which no pass removes or moves out
//! of its loop.

use std::collections::HashMap;

use inkwell::module::Module;
use llvm_sys::core::{
    LLVMDeleteFunction, LLVMGetBasicBlockParent, LLVMGetBasicBlockTerminator, LLVMGetFirstUse,
    LLVMGetInstructionParent, LLVMGetMDKindIDInContext, LLVMGetMetadata, LLVMGetModuleContext,
    LLVMGetNamedFunction, LLVMGetOperand, LLVMGetUser, LLVMInstructionEraseFromParent,
    LLVMIsAConstant, LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMMetadataAsValue,
    LLVMSetMetadata,
};
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMContextRef, LLVMValueRef};
use oxide_contract::UNROLL_HINT_SYMBOL;

use crate::cfg::{Cfg, Loop};

/// Marks the loop around each hint call to be unrolled fully when `unroll` (the optimising
/// levels), and removes every hint call and the hint's declaration; returns how many loops were
/// marked.
pub(crate) fn apply_unroll_hints(module: &Module<'_>, unroll: bool) -> usize {
    // SAFETY: every value reached belongs to `module`, which outlives this call; the calls are
    // erased only after the loops around them are found, and the declaration only once it has
    // no calls left.
    unsafe {
        let name = std::ffi::CString::new(UNROLL_HINT_SYMBOL).expect("no NUL in the symbol");
        let hint = LLVMGetNamedFunction(module.as_mut_ptr(), name.as_ptr());
        if hint.is_null() {
            return 0;
        }
        let mut calls = Vec::new();
        let mut u = LLVMGetFirstUse(hint);
        while !u.is_null() {
            calls.push(LLVMGetUser(u));
            u = llvm_sys::core::LLVMGetNextUse(u);
        }
        let ll = LLVMGetModuleContext(module.as_mut_ptr());
        let mut loops_of: HashMap<LLVMValueRef, (Cfg, Vec<Loop>)> = HashMap::new();
        let mut marked: Vec<LLVMBasicBlockRef> = Vec::new();
        // A call whose test is a constant is in a loop LLVM has unrolled already (or in code
        // that runs once): it marks nothing.
        let live: Vec<LLVMValueRef> = calls
            .iter()
            .copied()
            .filter(|&c| LLVMIsAConstant(LLVMGetOperand(c, 0)).is_null())
            .collect();
        for &call in &live {
            if !unroll {
                break;
            }
            let block = LLVMGetInstructionParent(call);
            let function = LLVMGetBasicBlockParent(block);
            let (_, loops) = loops_of.entry(function).or_insert_with(|| {
                let cfg = Cfg::of(function);
                let loops = cfg.loops();
                (cfg, loops)
            });
            // The innermost loop around the call: the smallest body that holds it.
            let Some(l) = loops
                .iter()
                .filter(|l| l.body.contains(&block))
                .min_by_key(|l| l.body.len())
            else {
                continue;
            };
            // A loop holding another loop with a hint is that loop's outer loop: the call here
            // is a copy LLVM made of the inner loop's (its guard, when it rotated the loop).
            let holds_hinted_loop = loops.iter().any(|inner| {
                inner.body.len() < l.body.len()
                    && inner.body.iter().all(|b| l.body.contains(b))
                    && live
                        .iter()
                        .any(|&c| inner.body.contains(&LLVMGetInstructionParent(c)))
            });
            if holds_hinted_loop {
                continue;
            }
            // A loop with loop metadata already is LLVM's to keep (a remainder loop it made,
            // say, marked `unroll.disable`); one ID serves all the loop's latches.
            let unmarked = l.latches.iter().all(|&latch| {
                !marked.contains(&latch)
                    && LLVMGetMetadata(LLVMGetBasicBlockTerminator(latch), loop_kind(ll)).is_null()
            });
            if unmarked {
                mark_full_unroll(ll, &l.latches);
                marked.extend(&l.latches);
            }
        }
        for call in calls {
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDeleteFunction(hint);
        marked.len()
    }
}

/// `!llvm.loop !{self, !{"llvm.loop.unroll.full"}}` on the branches that end the `latches` of
/// one loop.
unsafe fn mark_full_unroll(ll: LLVMContextRef, latches: &[LLVMBasicBlockRef]) {
    unsafe {
        let text = "llvm.loop.unroll.full";
        let full = LLVMMDStringInContext2(ll, text.as_ptr().cast(), text.len());
        let mut full_ops = [full];
        let full = LLVMMDNodeInContext2(ll, full_ops.as_mut_ptr(), full_ops.len());
        // A loop's ID refers to itself (which keeps two loops' IDs apart): made through a
        // temporary node that the finished node replaces.
        let placeholder = LLVMTemporaryMDNode(ll, std::ptr::null_mut(), 0);
        let mut ops = [placeholder, full];
        let id = LLVMMDNodeInContext2(ll, ops.as_mut_ptr(), ops.len());
        LLVMMetadataReplaceAllUsesWith(placeholder, id);
        for &latch in latches {
            LLVMSetMetadata(
                LLVMGetBasicBlockTerminator(latch),
                loop_kind(ll),
                LLVMMetadataAsValue(ll, id),
            );
        }
    }
}

/// The metadata kind `llvm.loop`.
unsafe fn loop_kind(ll: LLVMContextRef) -> u32 {
    let kind = "llvm.loop";
    unsafe { LLVMGetMDKindIDInContext(ll, kind.as_ptr().cast(), kind.len() as u32) }
}
