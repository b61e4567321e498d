//! `oxide::unroll`'s hint: the loop that steps the hinting iterator is marked to be unrolled
//! fully (`llvm.loop.unroll.full`, as clang marks a loop under `#pragma unroll`), and the hint's
//! calls are removed, all before `default<O3>`.
//!
//! The calls sit in the iterator's `next` (device-std's `Unroll::next`), not yet inlined into
//! the loop it steps: so the loops marked are those around `next`'s call sites, and `next` is
//! marked `alwaysinline` so that the loop's trip count is in sight when O3's unroller reaches it.
//! Only direct calls count: a call of `next` outside any loop (an adapter's `next` around it,
//! `unroll(x).enumerate()`, or a single `it.next()` in a helper) marks nothing, where following
//! it up the call graph would mark whatever loop the helper is called in and force-inline the
//! helper (documented: adapters go inside, `unroll(x.iter().enumerate())`). Marking before O3
//! is what keeps a loop whose body is over O3's size threshold from being lost: after O3 its
//! induction may be one SCEV cannot count (`i + zext(i < n)`), and a hint call in its body has a
//! constant argument, like the copies in a loop O3 did unroll. A marked loop that O3 still
//! cannot count (its count known only after [`crate::branch_threading`]) keeps its mark for
//! [`crate::target::UNROLL_AND_CLEAN`].

use std::collections::{HashMap, HashSet};

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use llvm_sys::core::{
    LLVMDeleteFunction, LLVMGetBasicBlockParent, LLVMGetBasicBlockTerminator, LLVMGetCalledValue,
    LLVMGetFirstUse, LLVMGetInstructionParent, LLVMGetMDKindIDInContext, LLVMGetModuleContext,
    LLVMGetNamedFunction, LLVMGetNextUse, LLVMGetUser, LLVMInstructionEraseFromParent,
    LLVMIsACallInst, LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMMetadataAsValue,
    LLVMSetMetadata,
};
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMContextRef, LLVMValueRef};
use oxide_contract::UNROLL_HINT_SYMBOL;

use crate::cfg::{Cfg, Loop};

/// Marks the loops that step a hinting iterator to be unrolled fully when `unroll` (the
/// optimising levels), and removes every hint call and the hint's declaration; returns how many
/// loops were marked. Runs before `default<O3>`.
pub(crate) fn mark_unroll_loops(module: &Module<'_>, unroll: bool) -> usize {
    // SAFETY: every value reached belongs to `module`, which outlives this call; the loops are
    // found before any call is erased, and the declaration is deleted once it has no calls left.
    unsafe {
        let name = std::ffi::CString::new(UNROLL_HINT_SYMBOL).expect("no NUL in the symbol");
        let hint = LLVMGetNamedFunction(module.as_mut_ptr(), name.as_ptr());
        if hint.is_null() {
            return 0;
        }
        let calls = calls_of(hint);
        let mut marked = 0;
        if unroll {
            let ll = LLVMGetModuleContext(module.as_mut_ptr());
            let inline = Attribute::get_named_enum_kind_id("alwaysinline");
            let inline = module.get_context().create_enum_attribute(inline, 0);
            let noinline = Attribute::get_named_enum_kind_id("noinline");
            let mut loops_of: HashMap<LLVMValueRef, (Cfg, Vec<Loop>)> = HashMap::new();
            let mut latches_marked: HashSet<LLVMBasicBlockRef> = HashSet::new();
            let carriers: HashSet<LLVMValueRef> = calls
                .iter()
                .map(|&c| LLVMGetBasicBlockParent(LLVMGetInstructionParent(c)))
                .collect();
            for carrier in carriers {
                let Some(f) = FunctionValue::new(carrier) else {
                    continue;
                };
                // `noinline` and `alwaysinline` together fail LLVM's verifier.
                if f.get_enum_attribute(AttributeLoc::Function, noinline)
                    .is_none()
                {
                    f.add_attribute(AttributeLoc::Function, inline);
                }
                for site in calls_of(carrier) {
                    let block = LLVMGetInstructionParent(site);
                    let caller = LLVMGetBasicBlockParent(block);
                    let (_, loops) = loops_of.entry(caller).or_insert_with(|| {
                        let cfg = Cfg::of(caller);
                        let loops = cfg.loops();
                        (cfg, loops)
                    });
                    // The innermost loop around the call: the one it steps.
                    let innermost = loops
                        .iter()
                        .filter(|l| l.body.contains(&block))
                        .min_by_key(|l| l.body.len());
                    if let Some(l) = innermost
                        && l.latches.iter().all(|&b| !latches_marked.contains(&b))
                    {
                        mark_full_unroll(ll, &l.latches);
                        latches_marked.extend(&l.latches);
                        marked += 1;
                    }
                }
            }
        }
        for call in calls {
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDeleteFunction(hint);
        marked
    }
}

/// The calls of `function` (uses of it as a call's callee).
unsafe fn calls_of(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut calls = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(function);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsACallInst(user).is_null() && LLVMGetCalledValue(user) == function {
                calls.push(user);
            }
            u = LLVMGetNextUse(u);
        }
    }
    calls
}

/// `!llvm.loop !{self, !{"llvm.loop.unroll.full"}}` on the branches that end the `latches` of
/// one loop.
pub(crate) unsafe fn mark_full_unroll(ll: LLVMContextRef, latches: &[LLVMBasicBlockRef]) {
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
pub(crate) unsafe fn loop_kind(ll: LLVMContextRef) -> u32 {
    let kind = "llvm.loop";
    unsafe { LLVMGetMDKindIDInContext(ll, kind.as_ptr().cast(), kind.len() as u32) }
}
