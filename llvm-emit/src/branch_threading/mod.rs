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
//! Only a block of phi nodes and a branch is threaded — or of phi nodes, one test of a phi
//! against a constant and a branch on it, the test decided by the value each predecessor brings
//! ([`compare`]: the `Option<&mut T>` of every output shape, tested against null) — and only
//! when every value merged there is used below one of its successors: no instruction is copied
//! or moved (so no barrier or other convergent operation changes the threads that reach it),
//! edges are redirected to where the branch would have sent them, and each merged value is
//! merged again where it is used.

mod compare;

use std::collections::HashSet;

use crate::cfg::{Cfg, successors};
use compare::Test;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMAttributeFunctionIndex;
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
use llvm_sys::core::{
    LLVMGetCalledValue, LLVMGetEnumAttributeAtIndex, LLVMGetEnumAttributeKindForName,
    LLVMGetIntrinsicID, LLVMIsAFunction,
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
    /// The test of a phi that the branch reads, when `b` holds one.
    test: Option<LLVMValueRef>,
    routes: Vec<(LLVMBasicBlockRef, LLVMBasicBlockRef)>,
    /// The successors of `b`.
    succs: Vec<LLVMBasicBlockRef>,
    /// For each successor `b` alone leads to: the blocks it dominates (where a merged value is
    /// used).
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
        first_on_path(cfg, pred, b, def_block, |c, branch, child| {
            (c == cond).then(|| branch.value_towards(child))
        })
    }
}

/// Walks up from the edge `pred → b` through single-predecessor blocks (at most [`MAX_CHAIN`],
/// not above block `stop`) and gives each conditional branch met — its condition, the branch,
/// and its successor on the path — to `read`, until `read` answers (`Some`); that answer.
unsafe fn first_on_path<T>(
    cfg: &Cfg,
    pred: LLVMBasicBlockRef,
    b: LLVMBasicBlockRef,
    stop: Option<LLVMBasicBlockRef>,
    mut read: impl FnMut(LLVMValueRef, &Branch, LLVMBasicBlockRef) -> Option<Option<T>>,
) -> Option<T> {
    unsafe {
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
                && let Some(answer) = read(c, &branch, child)
            {
                return answer;
            }
            if stop == Some(cur) {
                return None;
            }
            child = cur;
            cur = cfg.single_pred(cur)?;
        }
        None
    }
}

/// The phi nodes of `b` and the test of one of them, when they and its terminator are all it
/// holds (the test is optional).
unsafe fn phis_and_test(b: LLVMBasicBlockRef) -> Option<(Vec<LLVMValueRef>, Option<Test>)> {
    unsafe {
        let term = LLVMGetBasicBlockTerminator(b);
        let mut phis = Vec::new();
        let mut i = LLVMGetFirstInstruction(b);
        while i != term && LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
            phis.push(i);
            i = LLVMGetNextInstruction(i);
        }
        if i == term {
            return Some((phis, None));
        }
        let test = Test::of(i, &phis, term)?;
        (LLVMGetNextInstruction(i) == term).then_some((phis, Some(test)))
    }
}

/// Whether a block reachable from `starts` holds a call that may be convergent: any call but
/// one of an LLVM intrinsic not marked `convergent` (inline assembly counts as convergent).
unsafe fn reaches_convergent(starts: &[LLVMBasicBlockRef]) -> bool {
    unsafe {
        let convergent =
            LLVMGetEnumAttributeKindForName(c"convergent".as_ptr(), "convergent".len());
        let mut seen: HashSet<LLVMBasicBlockRef> = starts.iter().copied().collect();
        let mut stack = starts.to_vec();
        while let Some(block) = stack.pop() {
            let mut i = LLVMGetFirstInstruction(block);
            while !i.is_null() {
                if matches!(
                    LLVMGetInstructionOpcode(i),
                    LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
                ) {
                    let callee = LLVMGetCalledValue(i);
                    let harmless = !LLVMIsAFunction(callee).is_null()
                        && LLVMGetIntrinsicID(callee) != 0
                        && LLVMGetEnumAttributeAtIndex(
                            callee,
                            LLVMAttributeFunctionIndex,
                            convergent,
                        )
                        .is_null();
                    if !harmless {
                        return true;
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
            for s in successors(block) {
                if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        false
    }
}

/// The value phi `phi` takes on the edge from `p`.
unsafe fn incoming_on(phi: LLVMValueRef, p: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    unsafe {
        (0..LLVMCountIncoming(phi))
            .find(|&i| LLVMGetIncomingBlock(phi, i) == p)
            .map(|i| LLVMGetIncomingValue(phi, i))
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
        let (phis, test) = phis_and_test(b)?;
        let (cond, branch) = Branch::of(LLVMGetBasicBlockTerminator(b))?;
        if phis.contains(&cond) || !LLVMIsAConstantInt(cond).is_null() {
            // A phi of constants is SimplifyCFG's to thread; a constant is its to fold.
            return None;
        }
        if test.as_ref().is_some_and(|t| t.icmp != cond) {
            return None;
        }
        let succs = successors(b);
        let distinct: HashSet<_> = succs.iter().collect();
        if distinct.len() != succs.len() || succs.contains(&b) {
            return None;
        }
        let mut routes = Vec::new();
        for &p in cfg.preds(b) {
            if routes.iter().any(|(q, _)| *q == p)
                || successors(p).iter().filter(|&&s| s == b).count() != 1
            {
                return None;
            }
            let value = match &test {
                Some(t) => t.value_on_edge(cfg, incoming_on(t.phi, p)?, p, b)?,
                None => known_on_edge(cfg, cond, p, b)?,
            };
            let target = branch.target(value);
            // A second edge from `p` into a successor it already reaches would need its phis
            // to take two values from one block.
            if cfg.preds(target).contains(&p) {
                return None;
            }
            routes.push((p, target));
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
        // When nothing below `b` needs the warp together (no barrier, no collective: the
        // stores after a kernel's last loop), where a split rejoins does not matter.
        let ipdom = cfg.immediate_post_dominators()?;
        let mut convergent_below = None;
        for &y in &cfg.blocks {
            let term = LLVMGetBasicBlockTerminator(y);
            if term.is_null() || LLVMGetNumSuccessors(term) < 2 || ipdom.get(&y) != Some(&Some(b)) {
                continue;
            }
            match Branch::of(term) {
                Some((c, _)) if c == cond => {}
                _ => {
                    if *convergent_below.get_or_insert_with(|| reaches_convergent(&succs)) {
                        return None;
                    }
                }
            }
        }
        let regions: Vec<_> = succs
            .iter()
            .filter(|&&s| cfg.preds(s) == [b])
            .map(|&s| (s, cfg.not_reached_without(s)))
            .collect();
        // Every use of a merged value must sit below a successor only `b` leads to (or in dead
        // code), so that it can take the value merged again there.
        let reachable = cfg.reachable();
        let test = test.map(|t| t.icmp);
        for &phi in &phis {
            for (user, _, site) in use_sites(phi) {
                if Some(user) == test {
                    continue;
                }
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
            test,
            routes,
            succs,
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

        // 1. The successors' own phis take, instead of their value from `b`, that value as it
        // is on each routed edge.
        for &s in &plan.succs {
            for phi in only_leading_phis(s) {
                let mut incoming = Vec::new();
                let mut from_b = None;
                for i in 0..LLVMCountIncoming(phi) {
                    let (v, block) = (LLVMGetIncomingValue(phi, i), LLVMGetIncomingBlock(phi, i));
                    if block == b {
                        from_b = Some(v);
                    } else {
                        incoming.push((v, block));
                    }
                }
                if let Some(v) = from_b {
                    incoming.extend(routed_to(s).map(|p| (value_from(&plan, v, p), p)));
                }
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
                    .filter(|(user, _, site)| {
                        region.contains(site)
                            && !plan.phis.contains(user)
                            && Some(*user) != plan.test
                    })
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
mod tests;
