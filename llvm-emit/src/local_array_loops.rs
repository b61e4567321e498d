//! Loops that walk a thread's own arrays are unrolled fully when they run a few steps, as nvcc
//! unrolls them: an array indexed by a loop's step (`for s in scores.iter_mut()`,
//! `for (row, a) in acc.iter_mut().zip(av)`) stays in local memory while the loop is a loop,
//! and is promoted to registers once every index is a constant. O3 unrolls such a loop only
//! while the copies stay under its size threshold, which a 16-step loop over MMA accumulators,
//! or a loop whose inner loop O3 has unrolled already, is over.
//!
//! After O3, a loop is marked `llvm.loop.unroll.full` when a load or store of its own (not of
//! a loop inside it) reaches a function's `alloca` through an address that changes with its
//! iterations (a phi of its header, or an index computed in it), its trip count, read from its
//! exit test, is at most [`MAX_STEPS`], and the unrolled copies stay under [`MAX_UNROLLED`]
//! instructions (LLVM unrolls a marked loop of known count whatever its size);
//! [`crate::target::UNROLL_AND_CLEAN`] unrolls it and promotes the array.

use std::collections::HashSet;

use inkwell::module::Module;
use llvm_sys::LLVMIntPredicate;
use llvm_sys::LLVMOpcode;
use llvm_sys::core::{
    LLVMConstIntGetSExtValue, LLVMCountIncoming, LLVMGetBasicBlockTerminator,
    LLVMGetFirstBasicBlock, LLVMGetFirstFunction, LLVMGetFirstInstruction, LLVMGetICmpPredicate,
    LLVMGetIncomingBlock, LLVMGetIncomingValue, LLVMGetInstructionOpcode, LLVMGetInstructionParent,
    LLVMGetMetadata, LLVMGetModuleContext, LLVMGetNextFunction, LLVMGetNextInstruction,
    LLVMGetNumOperands, LLVMGetOperand, LLVMIsAConstantInt, LLVMIsAInstruction, LLVMIsConditional,
};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};

use crate::cfg::{Cfg, Loop};
use crate::loop_hints::{loop_kind, mark_full_unroll};

/// The most steps a loop over a thread's arrays is unrolled for: a warp's MMA accumulators
/// walked a fragment at a time (16 at 128 keys), with room.
const MAX_STEPS: i64 = 64;

/// The most instructions a marked loop may have once unrolled: its body's times its trip count
/// (a 16-step softmax over MMA accumulators is about 2,000).
const MAX_UNROLLED: usize = 8192;

/// How far an address is followed back to its `alloca`.
const MAX_DEPTH: usize = 12;

/// Marks the loops of `module` that walk a local array in a few steps; returns how many.
pub(crate) fn mark_local_array_loops(module: &Module<'_>) -> usize {
    let mut marked = 0;
    // SAFETY: every value reached belongs to `module`, which outlives this call; nothing is
    // removed, only loop metadata attached.
    unsafe {
        let ll = LLVMGetModuleContext(module.as_mut_ptr());
        let mut f = LLVMGetFirstFunction(module.as_mut_ptr());
        while !f.is_null() {
            if !LLVMGetFirstBasicBlock(f).is_null() {
                let cfg = Cfg::of(f);
                let loops = cfg.loops();
                for l in &loops {
                    let unmarked = l.latches.iter().all(|&latch| {
                        LLVMGetMetadata(LLVMGetBasicBlockTerminator(latch), loop_kind(ll)).is_null()
                    });
                    // The blocks of `l` that no loop inside it holds.
                    let own: HashSet<LLVMBasicBlockRef> = l
                        .body
                        .iter()
                        .copied()
                        .filter(|b| {
                            !loops.iter().any(|inner| {
                                inner.body.len() < l.body.len()
                                    && inner.body.contains(b)
                                    && inner.body.is_subset(&l.body)
                            })
                        })
                        .collect();
                    if unmarked
                        && walks_local_array(l, &own)
                        && let Some(n) = trip_count(l).filter(|&n| n <= MAX_STEPS)
                        && n as usize * instructions(&l.body) <= MAX_UNROLLED
                    {
                        mark_full_unroll(ll, &l.latches);
                        marked += 1;
                    }
                }
            }
            f = LLVMGetNextFunction(f);
        }
    }
    marked
}

/// Whether a load or store in `own` (the blocks of loop `l` outside its inner loops) reaches an
/// `alloca` through an address that changes with `l`'s iterations.
unsafe fn walks_local_array(l: &Loop, own: &HashSet<LLVMBasicBlockRef>) -> bool {
    own.iter().any(|&block| unsafe {
        let mut i = LLVMGetFirstInstruction(block);
        while !i.is_null() {
            let address = match LLVMGetInstructionOpcode(i) {
                LLVMOpcode::LLVMLoad => Some(LLVMGetOperand(i, 0)),
                LLVMOpcode::LLVMStore => Some(LLVMGetOperand(i, 1)),
                _ => None,
            };
            if address.is_some_and(|a| reaches_alloca(a, l, 0, &mut HashSet::new()) == Some(true)) {
                return true;
            }
            i = LLVMGetNextInstruction(i);
        }
        false
    })
}

/// Whether `value`, an address, is an `alloca` or reached from one through GEPs, casts, phis
/// and selects: `Some(varies)`, `varies` when a step of the way changes with loop `l`'s
/// iterations (a phi of its header over its back edge, or a GEP in it with an index that is
/// not a constant). `None` when no `alloca` is reached.
unsafe fn reaches_alloca(
    value: LLVMValueRef,
    l: &Loop,
    depth: usize,
    seen: &mut HashSet<LLVMValueRef>,
) -> Option<bool> {
    unsafe {
        if depth > MAX_DEPTH || LLVMIsAInstruction(value).is_null() || !seen.insert(value) {
            return None;
        }
        let body = &l.body;
        let parent = LLVMGetInstructionParent(value);
        let inside = body.contains(&parent);
        let operand = |k: u32| LLVMGetOperand(value, k);
        match LLVMGetInstructionOpcode(value) {
            LLVMOpcode::LLVMAlloca => Some(false),
            LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMBitCast => {
                reaches_alloca(operand(0), l, depth + 1, seen)
            }
            LLVMOpcode::LLVMGetElementPtr => {
                let varies_here = inside
                    && (1..LLVMGetNumOperands(value) as u32)
                        .any(|k| LLVMIsAConstantInt(operand(k)).is_null());
                reaches_alloca(operand(0), l, depth + 1, seen).map(|v| v || varies_here)
            }
            LLVMOpcode::LLVMSelect => [1, 2]
                .into_iter()
                .filter_map(|k| reaches_alloca(operand(k), l, depth + 1, seen))
                .reduce(|a, b| a || b)
                .map(|v| v || inside),
            LLVMOpcode::LLVMPHI => (0..LLVMCountIncoming(value))
                .filter_map(|k| {
                    let from = LLVMGetIncomingBlock(value, k);
                    let reached =
                        reaches_alloca(LLVMGetIncomingValue(value, k), l, depth + 1, seen);
                    // A phi of the loop's header over its back edge changes with its
                    // iterations (one of an inner loop's header, with the inner loop's).
                    reached.map(|v| v || (parent == l.header && body.contains(&from)))
                })
                .reduce(|a, b| a || b),
            _ => None,
        }
    }
}

/// The trip count of loop `l` when its one latch ends in a test of a counter against a
/// constant: `i' = i + step`, `i` a phi of the header starting at a constant, the latch
/// leaving the loop when `i' == end` (or staying while `i' != end`, `i' < end`).
unsafe fn trip_count(l: &Loop) -> Option<i64> {
    unsafe {
        let [latch] = l.latches[..] else {
            return None;
        };
        let branch = LLVMGetBasicBlockTerminator(latch);
        if branch.is_null()
            || LLVMGetInstructionOpcode(branch) != LLVMOpcode::LLVMBr
            || LLVMIsConditional(branch) == 0
        {
            return None;
        }
        let test = LLVMGetOperand(branch, 0);
        if LLVMIsAInstruction(test).is_null()
            || LLVMGetInstructionOpcode(test) != LLVMOpcode::LLVMICmp
        {
            return None;
        }
        let (next, end) = (LLVMGetOperand(test, 0), LLVMGetOperand(test, 1));
        let end = constant(end)?;
        if LLVMIsAInstruction(next).is_null()
            || LLVMGetInstructionOpcode(next) != LLVMOpcode::LLVMAdd
        {
            return None;
        }
        let (phi, step) = (LLVMGetOperand(next, 0), constant(LLVMGetOperand(next, 1))?);
        if LLVMIsAInstruction(phi).is_null()
            || LLVMGetInstructionOpcode(phi) != LLVMOpcode::LLVMPHI
            || step <= 0
        {
            return None;
        }
        // The counter's start: its one value from outside the loop, a constant.
        let starts: Vec<i64> = (0..LLVMCountIncoming(phi))
            .filter(|&k| !l.body.contains(&LLVMGetIncomingBlock(phi, k)))
            .map(|k| constant(LLVMGetIncomingValue(phi, k)))
            .collect::<Option<_>>()?;
        let [start] = starts[..] else {
            return None;
        };
        // The successor that stays in the loop decides which way the test reads.
        let stays_on_true = l
            .body
            .contains(&llvm_sys::core::LLVMGetSuccessor(branch, 0));
        let counts = match LLVMGetICmpPredicate(test) {
            LLVMIntPredicate::LLVMIntEQ => !stays_on_true,
            LLVMIntPredicate::LLVMIntNE
            | LLVMIntPredicate::LLVMIntULT
            | LLVMIntPredicate::LLVMIntSLT => stays_on_true,
            _ => false,
        };
        // Checked: the constants are the user's, any 64-bit values.
        let span = end.checked_sub(start).filter(|&d| counts && d > 0)?;
        Some(span.checked_add(step - 1)? / step)
    }
}

/// The instructions in `blocks`.
unsafe fn instructions(blocks: &HashSet<LLVMBasicBlockRef>) -> usize {
    blocks
        .iter()
        .map(|&b| unsafe {
            let mut count = 0;
            let mut i = LLVMGetFirstInstruction(b);
            while !i.is_null() {
                count += 1;
                i = LLVMGetNextInstruction(i);
            }
            count
        })
        .sum()
}

/// The value of `v` when it is an integer constant.
unsafe fn constant(v: LLVMValueRef) -> Option<i64> {
    unsafe { (!LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetSExtValue(v)) }
}
