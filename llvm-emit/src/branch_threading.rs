//! Branch threading for the GPU: a block that only merges values and branches on a condition
//! whose value each of its predecessors already knows is bypassed.
//!
//! LLVM's JumpThreading pass does nothing on targets with divergent branches, NVPTX among them.
//! Without it the loop of every `for x in iter` keeps the shape that inlining `Iterator::next`
//! leaves: `next` merges its `Some` and `None` paths into one block, which then branches again on
//! the test `next` already made. The loop's exit then depends on a merged value, scalar
//! evolution finds no trip count, the loop is not unrolled, and an iterator over an array (its
//! `array::IntoIter`, indexed by its position) stays in local memory. Threading those blocks
//! gives every such loop the counted form a range loop has.
//!
//! Only a block of phi nodes and a branch is threaded, and only when every value merged there is
//! used below one of its successors: no instruction is copied or moved (so no barrier or other
//! convergent operation changes the threads that reach it), edges are redirected to where the
//! branch would have sent them, and each merged value is merged again where it is used.

use std::collections::HashSet;

use crate::cfg::{Cfg, successors};

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMOpcode;
use llvm_sys::core::{
    LLVMAddIncoming, LLVMBuildPhi, LLVMConstIntGetZExtValue, LLVMCountIncoming,
    LLVMCreateBuilderInContext, LLVMDeleteBasicBlock, LLVMDisposeBuilder, LLVMGetBasicBlockParent,
    LLVMGetBasicBlockTerminator, LLVMGetCondition, LLVMGetFirstBasicBlock, LLVMGetFirstInstruction,
    LLVMGetFirstUse, LLVMGetIncomingBlock, LLVMGetIncomingValue, LLVMGetInstructionOpcode,
    LLVMGetInstructionParent, LLVMGetModuleContext, LLVMGetNextInstruction, LLVMGetNextUse,
    LLVMGetNumOperands, LLVMGetNumSuccessors, LLVMGetOperand, LLVMGetPoison, LLVMGetSuccessor,
    LLVMGetSwitchCaseValue, LLVMGetUser, LLVMInstructionEraseFromParent, LLVMIsAConstantInt,
    LLVMIsAInstruction, LLVMIsConditional, LLVMPositionBuilderBefore, LLVMReplaceAllUsesWith,
    LLVMSetOperand, LLVMSetSuccessor, LLVMTypeOf,
};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};

/// How far up a chain of single-predecessor blocks a predecessor's knowledge is looked for.
const MAX_CHAIN: usize = 8;
/// Rounds over a function; each threads every block it can, and a thread can expose another.
const MAX_ROUNDS: usize = 64;

/// Threads every block of `module` that qualifies (see the module's documentation); returns how
/// many blocks were threaded.
pub(crate) fn thread_known_branches(module: &Module<'_>) -> usize {
    let mut threaded = 0;
    for function in module.get_functions() {
        // SAFETY: the function belongs to `module`, which outlives this call; every block and
        // instruction reached from it is read or changed only through LLVM's C API, in a way
        // that keeps the IR well formed (phis match predecessors; values dominate their uses).
        unsafe {
            if LLVMGetFirstBasicBlock(function.as_value_ref()).is_null() {
                continue;
            }
            for _ in 0..MAX_ROUNDS {
                let cfg = Cfg::of(function.as_value_ref());
                // One block per round: a plan's analysis holds only until the CFG changes.
                let Some(plan) = cfg.blocks.iter().find_map(|&b| plan(&cfg, b)) else {
                    break;
                };
                apply(plan);
                threaded += 1;
            }
        }
    }
    threaded
}

/// A block `b` to bypass: each predecessor in `routes` goes straight to the successor the branch
/// would take from it.
struct Plan {
    b: LLVMBasicBlockRef,
    phis: Vec<LLVMValueRef>,
    routes: Vec<(LLVMBasicBlockRef, LLVMBasicBlockRef)>,
    /// For each successor of `b`: the blocks it dominates (where a merged value is used).
    regions: Vec<(LLVMBasicBlockRef, HashSet<LLVMBasicBlockRef>)>,
}

/// The branch condition of a terminator and the successor taken for each of its values.
enum Branch {
    /// `br i1 %c, t, f`
    Cond {
        t: LLVMBasicBlockRef,
        f: LLVMBasicBlockRef,
    },
    /// `switch %c, default [value → dest]`
    Switch {
        default: LLVMBasicBlockRef,
        cases: Vec<(u64, LLVMBasicBlockRef)>,
    },
}

impl Branch {
    unsafe fn of(term: LLVMValueRef) -> Option<(LLVMValueRef, Branch)> {
        unsafe {
            match LLVMGetInstructionOpcode(term) {
                LLVMOpcode::LLVMBr if LLVMIsConditional(term) != 0 => Some((
                    LLVMGetCondition(term),
                    Branch::Cond {
                        t: LLVMGetSuccessor(term, 0),
                        f: LLVMGetSuccessor(term, 1),
                    },
                )),
                LLVMOpcode::LLVMSwitch => {
                    // Case values are read as 64 bits: a wider switch is left alone.
                    let width =
                        llvm_sys::core::LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(term, 0)));
                    if width > 64 {
                        return None;
                    }
                    let n = LLVMGetNumSuccessors(term);
                    let mut cases = Vec::new();
                    for i in 1..n {
                        let value = LLVMGetSwitchCaseValue(term, i);
                        if LLVMIsAConstantInt(value).is_null() {
                            return None;
                        }
                        cases.push((LLVMConstIntGetZExtValue(value), LLVMGetSuccessor(term, i)));
                    }
                    Some((
                        LLVMGetOperand(term, 0),
                        Branch::Switch {
                            default: LLVMGetSuccessor(term, 0),
                            cases,
                        },
                    ))
                }
                _ => None,
            }
        }
    }

    fn target(&self, value: u64) -> LLVMBasicBlockRef {
        match self {
            Branch::Cond { t, f } => {
                if value != 0 {
                    *t
                } else {
                    *f
                }
            }
            Branch::Switch { default, cases } => cases
                .iter()
                .find(|(v, _)| *v == value)
                .map_or(*default, |(_, d)| *d),
        }
    }

    /// The condition's value when the branch goes to `child`, if only one value goes there.
    fn value_towards(&self, child: LLVMBasicBlockRef) -> Option<u64> {
        match self {
            Branch::Cond { t, f } if t != f => {
                if child == *t {
                    Some(1)
                } else if child == *f {
                    Some(0)
                } else {
                    None
                }
            }
            Branch::Cond { .. } => None,
            Branch::Switch { default, cases } => {
                let mut hits = cases.iter().filter(|(_, d)| *d == child);
                match (hits.next(), hits.next()) {
                    (Some((v, _)), None) if *default != child => Some(*v),
                    _ => None,
                }
            }
        }
    }
}

/// The value of `cond` on the edge `pred → b`, when a branch on `cond` above `pred` (through
/// single-predecessor blocks, not above `cond`'s definition) decides it.
unsafe fn known_on_edge(
    cfg: &Cfg,
    cond: LLVMValueRef,
    pred: LLVMBasicBlockRef,
    b: LLVMBasicBlockRef,
) -> Option<u64> {
    unsafe {
        let def_block =
            (!LLVMIsAInstruction(cond).is_null()).then(|| LLVMGetInstructionParent(cond));
        let (mut cur, mut child) = (pred, b);
        let mut seen = HashSet::new();
        for _ in 0..MAX_CHAIN {
            if !seen.insert(cur) {
                return None;
            }
            let term = LLVMGetBasicBlockTerminator(cur);
            if term.is_null() {
                return None;
            }
            if let Some((c, branch)) = Branch::of(term)
                && c == cond
            {
                return branch.value_towards(child);
            }
            if def_block == Some(cur) {
                return None;
            }
            child = cur;
            cur = cfg.single_pred(cur)?;
        }
        None
    }
}

/// The phi nodes of `b`, when they and its terminator are all it holds.
unsafe fn only_phis(b: LLVMBasicBlockRef) -> Option<Vec<LLVMValueRef>> {
    unsafe {
        let term = LLVMGetBasicBlockTerminator(b);
        let mut phis = Vec::new();
        let mut i = LLVMGetFirstInstruction(b);
        while i != term {
            if LLVMGetInstructionOpcode(i) != LLVMOpcode::LLVMPHI {
                return None;
            }
            phis.push(i);
            i = LLVMGetNextInstruction(i);
        }
        Some(phis)
    }
}

/// Where a use sits for dominance: its instruction's block, or for a phi the incoming block.
unsafe fn use_sites(value: LLVMValueRef) -> Vec<(LLVMValueRef, u32, LLVMBasicBlockRef)> {
    let mut sites = Vec::new();
    unsafe {
        let mut users = Vec::new();
        let mut u = LLVMGetFirstUse(value);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !users.contains(&user) {
                users.push(user);
            }
            u = LLVMGetNextUse(u);
        }
        for user in users {
            if LLVMIsAInstruction(user).is_null() {
                continue;
            }
            let is_phi = LLVMGetInstructionOpcode(user) == LLVMOpcode::LLVMPHI;
            for i in 0..LLVMGetNumOperands(user) as u32 {
                if LLVMGetOperand(user, i) != value {
                    continue;
                }
                let site = if is_phi {
                    LLVMGetIncomingBlock(user, i)
                } else {
                    LLVMGetInstructionParent(user)
                };
                sites.push((user, i, site));
            }
        }
    }
    sites
}

unsafe fn plan(cfg: &Cfg, b: LLVMBasicBlockRef) -> Option<Plan> {
    unsafe {
        if b == cfg.entry {
            return None;
        }
        let phis = only_phis(b)?;
        let (cond, branch) = Branch::of(LLVMGetBasicBlockTerminator(b))?;
        if phis.contains(&cond) || !LLVMIsAConstantInt(cond).is_null() {
            // A phi of constants is SimplifyCFG's to thread; a constant is its to fold.
            return None;
        }
        let succs = successors(b);
        for &s in &succs {
            if s == b || cfg.preds(s) != [b] {
                return None;
            }
        }
        let mut routes = Vec::new();
        for &p in cfg.preds(b) {
            if routes.iter().any(|(q, _)| *q == p)
                || successors(p).iter().filter(|&&s| s == b).count() != 1
            {
                return None;
            }
            let value = known_on_edge(cfg, cond, p, b)?;
            routes.push((p, branch.target(value)));
        }
        if routes.is_empty() {
            return None;
        }
        // Where a warp that split reconverges is the split's immediate post-dominator. A split
        // on `cond` itself sends each side to one successor of `b` either way; a split on
        // anything else that rejoins at `b` would, once `b` is gone, rejoin only further down,
        // and its threads could reach a barrier or a warp collective below `b` apart (PTX's
        // `.aligned` barriers and `.sync` collectives need them together): not threaded.
        // (LLVM's own JumpThreading does nothing on a GPU for this reason.)
        let ipdom = cfg.immediate_post_dominators()?;
        for &y in &cfg.blocks {
            let term = LLVMGetBasicBlockTerminator(y);
            if term.is_null() || LLVMGetNumSuccessors(term) < 2 || ipdom.get(&y) != Some(&Some(b)) {
                continue;
            }
            match Branch::of(term) {
                Some((c, _)) if c == cond => {}
                _ => return None,
            }
        }
        let regions: Vec<_> = succs
            .iter()
            .map(|&s| (s, cfg.not_reached_without(s)))
            .collect();
        // Every use of a merged value must sit below one successor (or in dead code), so that it
        // can take the value merged again there.
        let reachable = cfg.reachable();
        for &phi in &phis {
            for (user, _, site) in use_sites(phi) {
                if phis.contains(&user) {
                    // A merge of merged values (a loop through `b` alone) is left alone.
                    return None;
                }
                if reachable.contains(&site) && !regions.iter().any(|(_, r)| r.contains(&site)) {
                    return None;
                }
            }
        }
        Some(Plan {
            b,
            phis,
            routes,
            regions,
        })
    }
}

/// The value `v` has on the edge from `p` into the bypassed block: its incoming value there when
/// it is one of the block's phis, else itself.
unsafe fn value_from(plan: &Plan, v: LLVMValueRef, p: LLVMBasicBlockRef) -> LLVMValueRef {
    unsafe {
        if plan.phis.contains(&v) {
            for i in 0..LLVMCountIncoming(v) {
                if LLVMGetIncomingBlock(v, i) == p {
                    return LLVMGetIncomingValue(v, i);
                }
            }
        }
        v
    }
}

/// A phi of `ty` at the top of `block` with `incoming`.
unsafe fn new_phi(
    block: LLVMBasicBlockRef,
    ty: llvm_sys::prelude::LLVMTypeRef,
    incoming: &[(LLVMValueRef, LLVMBasicBlockRef)],
) -> LLVMValueRef {
    unsafe {
        let function = LLVMGetBasicBlockParent(block);
        let ll = LLVMGetModuleContext(llvm_sys::core::LLVMGetGlobalParent(function));
        let builder = LLVMCreateBuilderInContext(ll);
        LLVMPositionBuilderBefore(builder, LLVMGetFirstInstruction(block));
        let phi = LLVMBuildPhi(builder, ty, c"".as_ptr());
        LLVMDisposeBuilder(builder);
        let (mut values, mut blocks): (Vec<_>, Vec<_>) = incoming.iter().copied().unzip();
        LLVMAddIncoming(
            phi,
            values.as_mut_ptr(),
            blocks.as_mut_ptr(),
            values.len() as u32,
        );
        phi
    }
}

/// Applies `plan`: every predecessor of `b` is routed (`plan` gives up otherwise), so `b` goes.
unsafe fn apply(plan: Plan) {
    unsafe {
        let b = plan.b;
        let routed_to = |s: LLVMBasicBlockRef| {
            plan.routes
                .iter()
                .filter(move |(_, t)| *t == s)
                .map(|(p, _)| *p)
        };

        // 1. The successors' own phis (one incoming each, from `b`) gain the routed edges.
        for &(s, _) in &plan.regions {
            let incoming_from: Vec<_> = routed_to(s).collect();
            let own = only_leading_phis(s);
            for phi in own {
                let v = LLVMGetIncomingValue(phi, 0);
                let incoming: Vec<_> = incoming_from
                    .iter()
                    .map(|&p| (value_from(&plan, v, p), p))
                    .collect();
                let replacement = if incoming.is_empty() {
                    LLVMGetPoison(LLVMTypeOf(phi))
                } else {
                    new_phi(s, LLVMTypeOf(phi), &incoming)
                };
                LLVMReplaceAllUsesWith(phi, replacement);
                LLVMInstructionEraseFromParent(phi);
            }
        }
        // 2. Each merged value is merged again at the top of each successor below which it is
        // used.
        for &phi in &plan.phis {
            let sites = use_sites(phi);
            for (s, region) in &plan.regions {
                let here: Vec<_> = sites
                    .iter()
                    .filter(|(user, _, site)| region.contains(site) && !plan.phis.contains(user))
                    .collect();
                if here.is_empty() {
                    continue;
                }
                let incoming: Vec<_> = routed_to(*s)
                    .map(|p| (value_from(&plan, phi, p), p))
                    .collect();
                let replacement = if incoming.is_empty() {
                    LLVMGetPoison(LLVMTypeOf(phi))
                } else {
                    new_phi(*s, LLVMTypeOf(phi), &incoming)
                };
                for &&(user, i, _) in &here {
                    LLVMSetOperand(user, i, replacement);
                }
            }
        }
        // 3. The routed predecessors skip `b`.
        for &(p, s) in &plan.routes {
            let term = LLVMGetBasicBlockTerminator(p);
            for i in 0..LLVMGetNumSuccessors(term) {
                if LLVMGetSuccessor(term, i) == b {
                    LLVMSetSuccessor(term, i, s);
                }
            }
        }
        // 4. `b` has no predecessor left: its phis' last uses (each other's, or in dead code)
        // take poison, and it goes.
        for &phi in &plan.phis {
            LLVMReplaceAllUsesWith(phi, LLVMGetPoison(LLVMTypeOf(phi)));
        }
        LLVMDeleteBasicBlock(b);
    }
}

/// The phi nodes at the top of `b`.
unsafe fn only_leading_phis(b: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut phis = Vec::new();
    unsafe {
        let mut i = LLVMGetFirstInstruction(b);
        while !i.is_null() && LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
            phis.push(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    phis
}

#[cfg(test)]
mod tests {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    use super::*;

    fn threaded(ir: &str) -> (usize, String) {
        let ll = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
        let module = ll.create_module_from_ir(buffer).expect("test IR parses");
        module.verify().expect("test IR is valid");
        let n = thread_known_branches(&module);
        module
            .verify()
            .unwrap_or_else(|e| panic!("{e}\n{}", module.print_to_string()));
        (n, module.print_to_string().to_string())
    }

    /// `for x in iter`'s loop after `next` is inlined: the block merging `next`'s two paths
    /// branches again on the test the header made.
    const NEXT_MERGE: &str = r#"
define void @f(ptr %out, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %merged, %body ]
  %more = icmp ne i64 %i, %n
  br i1 %more, label %some, label %merge
some:
  %next = add i64 %i, 1
  br label %merge
merge:
  %merged = phi i64 [ %next, %some ], [ %i, %head ]
  %item = phi i64 [ %i, %some ], [ 0, %head ]
  br i1 %more, label %body, label %exit
body:
  %p = getelementptr i64, ptr %out, i64 %item
  store i64 %item, ptr %p
  br label %head
exit:
  ret void
}
"#;

    #[test]
    fn threads_the_merge_after_next() {
        let (n, out) = threaded(NEXT_MERGE);
        assert_eq!(n, 1, "{out}");
        assert!(!out.contains("merge:"), "{out}");
        // The header exits straight out; `some` goes straight to the body, whose values are
        // merged again there (one incoming edge each).
        assert!(
            out.contains("br i1 %more, label %some, label %exit"),
            "{out}"
        );
        assert!(out.contains("some:                                             ; preds = %head\n  %next = add i64 %i, 1\n  br label %body"), "{out}");
    }

    #[test]
    fn leaves_a_merge_whose_values_are_used_after_both_paths() {
        // `%v` is used in `join`, which both successors reach: nowhere to merge it again.
        let ir = r#"
define void @f(i1 %more, ptr %out) {
entry:
  br i1 %more, label %a, label %merge
a:
  br label %merge
merge:
  %v = phi i64 [ 1, %a ], [ 2, %entry ]
  br i1 %more, label %yes, label %no
yes:
  br label %join
no:
  br label %join
join:
  store i64 %v, ptr %out
  ret void
}
"#;
        let (n, out) = threaded(ir);
        assert_eq!(n, 0, "{out}");
    }

    #[test]
    fn leaves_a_merge_a_predecessor_does_not_decide() {
        // `other` reaches the merge without a branch on `%more` above it.
        let ir = r#"
define void @f(i1 %c, i1 %more, ptr %out) {
entry:
  br i1 %c, label %test, label %other
test:
  br i1 %more, label %merge, label %merge2
merge2:
  br label %merge
other:
  br label %merge
merge:
  %v = phi i64 [ 1, %test ], [ 2, %merge2 ], [ 3, %other ]
  br i1 %more, label %yes, label %no
yes:
  store i64 %v, ptr %out
  ret void
no:
  ret void
}
"#;
        let (n, out) = threaded(ir);
        assert_eq!(n, 0, "{out}");
    }

    #[test]
    fn leaves_a_merge_that_computes() {
        // A block with more than phis would have to be copied: it is not threaded.
        let ir = NEXT_MERGE.replace(
            "  %item = phi i64 [ %i, %some ], [ 0, %head ]\n",
            "  %item = phi i64 [ %i, %some ], [ 0, %head ]\n  store i64 0, ptr %out\n",
        );
        let (n, out) = threaded(&ir);
        assert_eq!(n, 0, "{out}");
    }

    /// Review of 9156baf: a split on `%x` rejoined at `b`; threading sent both of its sides
    /// straight to the barrier in `s`, where they would arrive apart. Not threaded.
    #[test]
    fn leaves_a_merge_where_another_split_reconverges() {
        let ir = r#"
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent
declare void @g(i64)
define void @f(i1 %c, i1 %x, ptr %o) {
entry:
  br i1 %x, label %q1, label %q2
q1:
  br i1 %c, label %p1, label %p2
q2:
  br i1 %c, label %p3, label %p4
p1:
  store i64 1, ptr %o
  br label %b
p2:
  store i64 2, ptr %o
  br label %b
p3:
  store i64 3, ptr %o
  br label %b
p4:
  store i64 4, ptr %o
  br label %b
b:
  %m = phi i64 [ 1, %p1 ], [ 2, %p2 ], [ 3, %p3 ], [ 4, %p4 ]
  br i1 %c, label %s, label %t
s:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @g(i64 %m)
  br label %exit
t:
  call void @g(i64 %m)
  br label %exit
exit:
  ret void
}
"#;
        let (n, out) = threaded(ir);
        assert_eq!(n, 0, "{out}");
    }

    /// Review of 9156baf: switch cases were read as 64 bits, so `1` and `2^64 + 1` looked alike.
    /// A switch wider than 64 bits is not threaded.
    #[test]
    fn leaves_a_switch_wider_than_64_bits() {
        let ir = r#"
declare void @g(i32)
define i32 @f(i128 %v) {
entry:
  switch i128 %v, label %exit [ i128 18446744073709551617, label %p
                                i128 7, label %q ]
p:
  call void @g(i32 1)
  br label %b
q:
  call void @g(i32 2)
  br label %b
b:
  %m = phi i32 [ 10, %p ], [ 20, %q ]
  switch i128 %v, label %d [ i128 1, label %s1
                             i128 18446744073709551617, label %s2
                             i128 7, label %s3 ]
s1:
  ret i32 %m
s2:
  %m2 = add i32 %m, 1000
  ret i32 %m2
s3:
  %m3 = add i32 %m, 2000
  ret i32 %m3
d:
  ret i32 -1
exit:
  ret i32 0
}
"#;
        let (n, out) = threaded(ir);
        assert_eq!(n, 0, "{out}");
    }
}
