//! The analysis of one function body for one calling context: a forward data-flow over its MIR
//! (flow-sensitive, so a local reused for other values is judged at each point), iterated to a
//! fixpoint together with the set of divergent branches, since a value assigned under a
//! divergent branch is divergent where the branch's sides meet again.

use std::collections::BTreeSet;

use oxide_dialects::gpu::SpecialRegister;
use rustc_data_structures::fx::{FxHashMap, FxIndexMap};
use rustc_index::IndexVec;
use rustc_middle::{
    mir::{self, BasicBlock, Operand, START_BLOCK, TerminatorKind},
    ty::{self, Instance, TypingEnv},
};
use rustc_span::{Span, Spanned, Symbol, sym};

use super::{
    Analysis, Context, Summary,
    callees::{self, Callee, monomorphize},
    cfg::Cfg,
    state::{Abs, CauseId, Loc, State, Tree},
};
use crate::error::SyncKind;
use crate::registry::{DeviceFn, atomics::AtomicIntrinsic};

mod values;

/// Intrinsics that take pointers without reading or writing what they point to.
const POINTER_ARITHMETIC: &[Symbol] = &[
    sym::offset,
    sym::arith_offset,
    sym::ptr_offset_from,
    sym::ptr_offset_from_unsigned,
    sym::ptr_mask,
    sym::ptr_guaranteed_cmp,
    sym::ptr_metadata,
    sym::aggregate_raw_ptr,
    sym::size_of_val,
    sym::align_of_val,
    sym::transmute,
    sym::transmute_unchecked,
    sym::black_box,
    sym::assume,
    sym::select_unpredictable,
];

/// NVVM intrinsics that only ask which window of the generic address space a pointer points
/// into (`isspacep`): they read and write nothing.
const POINTER_QUERIES: &[&str] = &[
    "llvm.nvvm.isspacep.global",
    "llvm.nvvm.isspacep.shared",
    "llvm.nvvm.isspacep.local",
    "llvm.nvvm.isspacep.const",
];

/// Intrinsics besides the atomics that access memory other threads may write: the volatile and
/// non-temporal accesses.
const CONCURRENT: &[Symbol] = &[
    sym::volatile_load,
    sym::volatile_store,
    sym::volatile_copy_memory,
    sym::volatile_copy_nonoverlapping_memory,
    sym::volatile_set_memory,
    sym::unaligned_volatile_load,
    sym::unaligned_volatile_store,
    sym::nontemporal_store,
];

/// A call that may execute a barrier.
struct Site {
    span: Span,
    /// The function called, as the user wrote it.
    callee: String,
    /// Where the function called executes the barrier, when the call is not the barrier.
    barrier_in: Option<Span>,
    /// What the barrier is.
    kind: SyncKind,
}

pub(super) struct FnAnalysis<'x, 'r, 'tcx> {
    an: &'x mut Analysis<'r, 'tcx>,
    instance: Instance<'tcx>,
    body: &'tcx mir::Body<'tcx>,
    left_out: IndexVec<BasicBlock, bool>,
    succs: IndexVec<BasicBlock, Vec<BasicBlock>>,
    cfg: Cfg,
    ins: IndexVec<BasicBlock, Option<State>>,
    exit: Option<State>,
    /// Branches whose condition may differ between threads: why, and the condition's span.
    divergent: FxIndexMap<BasicBlock, (CauseId, Span)>,
    regions: FxHashMap<BasicBlock, Vec<bool>>,
    /// The thread-private locations each block may write.
    written: IndexVec<BasicBlock, BTreeSet<Loc>>,
    sites: FxIndexMap<BasicBlock, Site>,
    /// Calls that only some of the threads return from: the call's block, why, and the call.
    partial_returns: FxIndexMap<BasicBlock, (CauseId, Span)>,
    /// The span of the statement being analysed (for causes), and its source scope.
    span: Span,
    scope: mir::SourceScope,
}

impl<'x, 'r, 'tcx> FnAnalysis<'x, 'r, 'tcx> {
    /// Analyses `instance` entered with `ctx`: reports the barriers it executes under a divergent
    /// condition, and returns what the call does to its caller's values.
    pub(super) fn run(
        an: &'x mut Analysis<'r, 'tcx>,
        instance: Instance<'tcx>,
        ctx: &Context,
    ) -> Summary {
        let tcx = an.tcx;
        let body = tcx.instance_mir(instance.def);
        let left_out = callees::left_out_blocks(tcx, an.registry, instance, body);
        if left_out[START_BLOCK] {
            // The function always traps: the kernel ends there, nothing flows back.
            return Summary::untouched(ctx);
        }
        let blocks = &body.basic_blocks;
        let succs: IndexVec<BasicBlock, Vec<BasicBlock>> = blocks
            .iter_enumerated()
            .map(|(bb, data)| {
                if left_out[bb] {
                    return Vec::new();
                }
                let mut live: Vec<BasicBlock> =
                    live_successors(tcx, instance, &data.terminator().kind)
                        .into_iter()
                        .filter(|s| !left_out[*s])
                        .collect();
                live.sort_unstable();
                live.dedup();
                live
            })
            .collect();
        // `Unreachable` counts as a return for the control flow: no thread executes it (it
        // follows an exhaustive `match`), so it must not read as a thread that stays behind.
        let returns: Vec<bool> = blocks
            .iter_enumerated()
            .map(|(bb, data)| {
                !left_out[bb]
                    && matches!(
                        data.terminator().kind,
                        TerminatorKind::Return | TerminatorKind::Unreachable
                    )
            })
            .collect();
        let cfg = Cfg::new(
            succs
                .iter()
                .map(|s| s.iter().map(|b| b.index()).collect())
                .collect(),
            &returns,
        );
        let mut entry = State::new(body.local_decls.len(), ctx.callers.clone());
        for (i, arg) in ctx.args.iter().enumerate().take(body.arg_count) {
            entry.locals[i + 1] = Tree::Leaf(arg.clone());
        }
        let mut ins: IndexVec<BasicBlock, Option<State>> =
            IndexVec::from_elem_n(None, blocks.len());
        ins[START_BLOCK] = Some(entry);
        let mut fa = FnAnalysis {
            an,
            instance,
            body,
            left_out,
            succs,
            cfg,
            ins,
            exit: None,
            divergent: FxIndexMap::default(),
            regions: FxHashMap::default(),
            written: IndexVec::from_elem_n(BTreeSet::new(), blocks.len()),
            sites: FxIndexMap::default(),
            partial_returns: FxIndexMap::default(),
            span: body.span,
            scope: mir::OUTERMOST_SOURCE_SCOPE,
        };
        fa.fixpoint();
        fa.check_barriers();
        fa.summary(ctx)
    }

    fn fixpoint(&mut self) {
        let rpo = self.body.basic_blocks.reverse_postorder();
        loop {
            let mut changed = false;
            let mut exit: Option<State> = None;
            for &bb in rpo {
                if self.left_out[bb] {
                    continue;
                }
                let Some(mut state) = self.ins[bb].clone() else {
                    continue;
                };
                self.sync_dependence(bb.index(), &mut state);
                let mut written = BTreeSet::new();
                let data = &self.body.basic_blocks[bb];
                for stmt in &data.statements {
                    self.span = stmt.source_info.span;
                    self.statement(&stmt.kind, &mut state, &mut written);
                }
                let term = data.terminator();
                self.span = term.source_info.span;
                self.scope = term.source_info.scope;
                changed |= self.terminator(bb, term, &mut state, &mut written);
                for loc in written {
                    changed |= self.written[bb].insert(loc);
                }
                for succ in self.succs[bb].clone() {
                    changed |= match &mut self.ins[succ] {
                        Some(existing) => existing.join(&state),
                        slot @ None => {
                            *slot = Some(state.clone());
                            true
                        }
                    };
                }
                if matches!(term.kind, TerminatorKind::Return) {
                    match &mut exit {
                        Some(e) => {
                            e.join(&state);
                        }
                        None => exit = Some(state),
                    }
                }
            }
            if !changed {
                if let Some(e) = &mut exit {
                    let node = self.cfg.exit();
                    let mut e2 = e.clone();
                    self.sync_dependence(node, &mut e2);
                    *e = e2;
                }
                self.exit = exit;
                return;
            }
        }
    }

    /// Where the sides of a divergent branch meet again, what either side wrote differs between
    /// threads (and, after a loop with a divergent exit, what the loop wrote).
    fn sync_dependence(&mut self, node: usize, state: &mut State) {
        let joining: Vec<(BasicBlock, CauseId)> = self
            .divergent
            .iter()
            .filter(|(b, _)| self.cfg.ipdom(b.index()) == Some(node))
            .map(|(b, (cause, _))| (*b, *cause))
            .collect();
        for (branch, cause) in joining {
            let region = self.region(branch).to_vec();
            for (v, inside) in region.into_iter().enumerate() {
                if !inside {
                    continue;
                }
                for loc in &self.written[BasicBlock::from_usize(v)] {
                    state.diverge(*loc, Some(cause));
                }
            }
        }
    }

    fn region(&mut self, branch: BasicBlock) -> &[bool] {
        let cfg = &self.cfg;
        self.regions
            .entry(branch)
            .or_insert_with(|| cfg.region(branch.index()))
    }

    /// Reports each barrier call inside the region of a divergent branch, naming the closest
    /// such branch (the one with the smallest region).
    fn check_barriers(&mut self) {
        let sites: Vec<(BasicBlock, Span, String, Option<Span>, SyncKind)> = self
            .sites
            .iter()
            .filter(|(bb, _)| self.ins[**bb].is_some())
            .map(|(bb, s)| (*bb, s.span, s.callee.clone(), s.barrier_in, s.kind))
            .collect();
        let branches: Vec<(BasicBlock, CauseId, Span)> = self
            .divergent
            .iter()
            .map(|(b, (cause, span))| (*b, *cause, *span))
            .collect();
        for (bb, span, callee, barrier_in, kind) in sites {
            let mut closest: Option<(usize, CauseId, Span)> = None;
            for &(branch, cause, condition) in &branches {
                // Every lane of a warp takes a warp-uniform branch together: a warp collective
                // may depend on one (a barrier may not).
                if kind == SyncKind::WarpCollective && cause.is_warp_uniform() {
                    continue;
                }
                let region = self.region(branch);
                if !region[bb.index()] {
                    continue;
                }
                let size = region.iter().filter(|inside| **inside).count();
                if closest.is_none_or(|(best, _, _)| size < best) {
                    closest = Some((size, cause, condition));
                }
            }
            // After a call that only some threads return from, every node it reaches runs
            // without the others (the closest branch, if any, is named first).
            if closest.is_none() {
                for (&call, &(cause, call_span)) in &self.partial_returns {
                    if kind == SyncKind::WarpCollective && cause.is_warp_uniform() {
                        continue;
                    }
                    if self.cfg.reaches_from_successors(call.index(), bb.index()) {
                        closest = Some((0, cause, call_span));
                        break;
                    }
                }
            }
            if let Some((_, cause, condition)) = closest {
                self.an
                    .report(span, callee, barrier_in, kind, condition, cause);
            }
        }
    }

    fn summary(&self, ctx: &Context) -> Summary {
        let Some(exit) = &self.exit else {
            // It never returns.
            return Summary::untouched(ctx);
        };
        // A pointer to one of the callee's own locals does not outlive it.
        let escape = |abs: &Abs| Abs {
            div: abs.div,
            pts: abs
                .pts
                .iter()
                .map(|l| {
                    if let Loc::Local(_) = l {
                        Loc::Shared
                    } else {
                        *l
                    }
                })
                .collect(),
        };
        let written: BTreeSet<Loc> = self.written.iter().flatten().copied().collect();
        Summary {
            partial_return: self.partial_return(),
            ret: escape(&exit.locals[mir::RETURN_PLACE.index()].flat()),
            callers: exit.callers.iter().map(escape).collect(),
            written: (0..ctx.callers.len())
                .map(|j| written.contains(&Loc::Caller(j as u32)))
                .collect(),
        }
    }
    /// Why only some of the threads entering may return: a divergent branch whose region
    /// holds a reached node from which no return is reachable (an endless loop that only some
    /// threads enter), or a reached call that only some threads return from.
    fn partial_return(&self) -> Option<CauseId> {
        let returns = self.cfg.reaches_a_return();
        for (branch, (cause, _)) in &self.divergent {
            let region = self
                .regions
                .get(branch)
                .cloned()
                .unwrap_or_else(|| self.cfg.region(branch.index()));
            let stuck = region.iter().enumerate().any(|(v, &inside)| {
                inside && !returns[v] && self.ins[BasicBlock::from_usize(v)].is_some()
            });
            if stuck {
                return Some(*cause);
            }
        }
        self.partial_returns
            .iter()
            .find(|(bb, _)| self.ins[**bb].is_some())
            .map(|(_, (cause, _))| *cause)
    }

    fn terminator(
        &mut self,
        bb: BasicBlock,
        term: &mir::Terminator<'tcx>,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) -> bool {
        match &term.kind {
            TerminatorKind::SwitchInt { discr, .. } => {
                let condition = self.operand(discr, state);
                match condition.div {
                    // A branch found divergent again with a stronger cause (a warp-uniform
                    // condition that turns out to differ between lanes) is recorded anew.
                    Some(cause)
                        if self.succs[bb].len() > 1
                            && self
                                .divergent
                                .get(&bb)
                                .is_none_or(|(known, _)| known.stronger(cause) != *known) =>
                    {
                        self.divergent.insert(bb, (cause, term.source_info.span));
                        true
                    }
                    _ => false,
                }
            }
            TerminatorKind::Call {
                func,
                args,
                destination,
                fn_span,
                ..
            } => {
                self.span = *fn_span;
                let callee = callees::resolve_call(
                    self.an.tcx,
                    self.an.registry,
                    self.instance,
                    self.body,
                    func,
                );
                let result = self.call(bb, callee, args, state, written);
                self.write(*destination, Tree::Leaf(result), true, state, written);
                false
            }
            TerminatorKind::Drop { place, .. } => {
                let tcx = self.an.tcx;
                let ty = monomorphize(tcx, self.instance, place.ty(self.body, tcx).ty);
                if let Callee::Body { instance, .. } = callees::resolve_drop(tcx, ty) {
                    let target = self.target(*place, state);
                    let pointer = Abs::pointer(target.div, target.locs);
                    self.body_call(bb, instance, vec![pointer], state, written);
                }
                false
            }
            _ => false,
        }
    }

    /// The value a call returns, after applying what it does to memory.
    fn call(
        &mut self,
        bb: BasicBlock,
        callee: Callee<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) -> Abs {
        let tcx = self.an.tcx;
        let values: Vec<Abs> = args.iter().map(|a| self.operand(&a.node, state)).collect();
        match callee {
            Callee::Barrier(def_id, kind) => {
                let name = format!("{}()", tcx.item_name(def_id));
                self.sites.insert(
                    bb,
                    self.site(Site {
                        span: self.span,
                        callee: name,
                        barrier_in: None,
                        kind,
                    }),
                );
                Abs::uniform()
            }
            Callee::Device(def_id, DeviceFn::SpecialRegister(register)) => {
                let folded = self.an.grid_1d && register.value_in_1d_grid().is_some();
                // Only the thread index differs between the threads of a block; block and grid
                // indices and sizes are the same in all of them.
                let thread_index = matches!(
                    register,
                    SpecialRegister::TidX | SpecialRegister::TidY | SpecialRegister::TidZ
                );
                if folded || !thread_index {
                    Abs::uniform()
                } else {
                    let what = format!(
                        "`{}()`, the thread's index in its block (`%{}`)",
                        tcx.item_name(def_id),
                        register.ptx_name()
                    );
                    Abs::divergent(self.an.cause(what, self.span))
                }
            }
            Callee::WarpUniform(def_id) => {
                let what = format!(
                    "`{}()`, the same in every lane of a warp but not in every warp",
                    tcx.item_name(def_id)
                );
                Abs::divergent(self.an.warp_cause(what, self.span))
            }
            Callee::Device(_, DeviceFn::UniformOperands) => {
                // The slot map of a computed-slot shared step: one map for the whole block.
                if let Some(cause) = values.iter().find_map(|v| v.div) {
                    let site = self.site(Site {
                        span: self.span,
                        callee: String::new(),
                        barrier_in: None,
                        kind: SyncKind::Barrier,
                    });
                    // Named by the function the user's code called: the call inlined here, or
                    // the first function of another crate on the path from the kernel.
                    let tcx = self.an.tcx;
                    let callee = if site.callee.is_empty() {
                        self.an
                            .path
                            .iter()
                            .find(|(f, _)| !f.def_id().is_local())
                            .map(|(f, _)| callee_name(tcx, *f))
                            .unwrap_or_default()
                    } else {
                        site.callee
                    };
                    self.an.report_operands(site.span, callee, cause);
                }
                Abs::uniform()
            }
            Callee::Device(_, DeviceFn::SharedAddress) => {
                let div = values.first().and_then(|v| v.div);
                Abs::pointer(div, [Loc::Shared])
            }
            Callee::Device(_, DeviceFn::Nvvm { intrinsic })
                if POINTER_QUERIES.contains(&intrinsic.as_str()) =>
            {
                // Which window a pointer points into: no memory touched, and the same answer in
                // every thread that holds the same pointer.
                let mut result = Abs::uniform();
                result.diverge(values.first().and_then(|v| v.div));
                result
            }
            Callee::Device(_, DeviceFn::SharedWindow | DeviceFn::FloatConvert { .. }) => {
                // A shared pointer's offset in its window, a float conversion: no memory
                // touched, the same in every thread that holds the same operand.
                let mut result = Abs::uniform();
                result.diverge(values.first().and_then(|v| v.div));
                result
            }
            Callee::Device(def_id, _) => {
                // NVVM intrinsics and inline PTX: per-thread unless proven otherwise, and they
                // may write what their pointer arguments point to.
                let what = format!(
                    "`{}()`, a device intrinsic whose result may differ between threads",
                    tcx.item_name(def_id)
                );
                let result = Abs::divergent(self.an.cause(what, self.span));
                for value in &values {
                    self.write_through(value, &result, state, written);
                }
                result
            }
            Callee::Panic | Callee::Nothing => Abs::uniform(),
            Callee::Intrinsic(name) => self.intrinsic(name, &values, state, written),
            Callee::Body { instance, spread } => {
                let arg_count = tcx.instance_mir(instance.def).arg_count;
                let params = if spread && !values.is_empty() {
                    // `rust-call`: the tuple's fields are the callee's last arguments.
                    let (tuple, rest) = values.split_last().expect("non-empty");
                    let mut params = rest.to_vec();
                    params.resize(arg_count.max(rest.len()), tuple.clone());
                    params
                } else {
                    values
                };
                self.body_call(bb, instance, params, state, written)
            }
            Callee::Unknown => {
                let cause = self.an.cause(
                    "the result of a call the analysis cannot follow".into(),
                    self.span,
                );
                let result = Abs::pointer(Some(cause), [Loc::Shared]);
                for value in &values {
                    self.write_through(value, &result, state, written);
                }
                result
            }
        }
    }

    /// A call site as the user wrote it: a call that MIR inlining copied into this body is
    /// reported at the outermost inlined call, which is in this function's own source.
    fn site(&self, site: Site) -> Site {
        let scopes = &self.body.source_scopes;
        let mut scope = Some(self.scope);
        let mut outermost = None;
        while let Some(s) = scope {
            if let Some((instance, span)) = scopes[s].inlined {
                outermost = Some((instance, span));
            }
            scope = scopes[s].parent_scope;
        }
        match outermost {
            Some((instance, span)) => Site {
                span,
                callee: callee_name(self.an.tcx, instance),
                barrier_in: site.barrier_in.or(Some(site.span)),
                kind: site.kind,
            },
            None => site,
        }
    }

    /// A call of a function compiled from its MIR: its summary for this context.
    fn body_call(
        &mut self,
        bb: BasicBlock,
        callee: Instance<'tcx>,
        params: Vec<Abs>,
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) -> Abs {
        let tcx = self.an.tcx;
        if self.an.reach.may_reach(tcx, self.an.registry, callee) {
            let barrier_in = self.an.reach.barrier_in(callee);
            let site = Site {
                span: self.span,
                callee: callee_name(tcx, callee),
                barrier_in,
                kind: self.an.reach.kind_of(callee),
            };
            self.sites.insert(bb, self.site(site));
        }
        // The caller's locations the callee can see, numbered for its context.
        let mut order: Vec<Loc> = Vec::new();
        let mut index: FxHashMap<Loc, u32> = FxHashMap::default();
        let mut queue: Vec<Loc> = params.iter().flat_map(|p| p.pts.iter().copied()).collect();
        while let Some(loc) = queue.pop() {
            if !loc.is_tracked() || index.contains_key(&loc) {
                continue;
            }
            index.insert(loc, order.len() as u32);
            order.push(loc);
            if let Some(contents) = state.tracked(loc) {
                queue.extend(contents.pts.iter().copied());
            }
        }
        let to_callee = |abs: &Abs| Abs {
            div: abs.div,
            pts: abs
                .pts
                .iter()
                .map(|l| index.get(l).map_or(*l, |j| Loc::Caller(*j)))
                .collect(),
        };
        let ctx = Context {
            args: params.iter().map(to_callee).collect(),
            callers: order
                .iter()
                .map(|l| to_callee(&state.tracked(*l).expect("tracked")))
                .collect(),
        };
        let summary = self.an.summary(callee, ctx, self.span);
        let to_caller = |abs: &Abs| Abs {
            div: abs.div,
            pts: abs
                .pts
                .iter()
                .map(|l| match l {
                    Loc::Caller(j) => order[*j as usize],
                    other => *other,
                })
                .collect(),
        };
        for (j, loc) in order.iter().enumerate() {
            if summary.written[j] {
                let value = to_caller(&summary.callers[j]);
                state.join_into(*loc, &value);
                written.insert(*loc);
            }
        }
        if let Some(cause) = summary.partial_return {
            let cause = self.an.cause_of_partial_return(cause, callee, self.span);
            self.partial_returns.insert(bb, (cause, self.span));
        }
        let mut result = to_caller(&summary.ret);
        if let Some(cause) = result.div {
            result.div = Some(self.an.cause_at_call(cause, callee, self.span));
        }
        result
    }

    fn intrinsic(
        &mut self,
        name: Symbol,
        args: &[Abs],
        state: &mut State,
        written: &mut BTreeSet<Loc>,
    ) -> Abs {
        if AtomicIntrinsic::of(name).is_some() || CONCURRENT.contains(&name) {
            let what =
                format!("the result of `{name}`, which reads memory other threads may write");
            let result = Abs::pointer(Some(self.an.cause(what, self.span)), [Loc::Shared]);
            for arg in args {
                self.write_through(arg, &result, state, written);
            }
            return result;
        }
        let mut result = args.iter().fold(Abs::uniform(), |acc, a| acc.joined(a));
        let touches_memory = args.iter().any(|a| !a.pts.is_empty());
        if touches_memory && !POINTER_ARITHMETIC.contains(&name) {
            // Any other intrinsic given a pointer may read and write what it points to.
            for arg in args {
                let pointee = self.pointee(arg, state);
                result.join(&pointee);
            }
            for arg in args {
                self.write_through(arg, &result, state, written);
            }
        }
        result
    }
}

/// How the user names what a call calls: the function's name (a closure has none).
pub(super) fn callee_name<'tcx>(tcx: ty::TyCtxt<'tcx>, callee: Instance<'tcx>) -> String {
    match callee.def {
        ty::InstanceKind::Item(def_id) => match tcx.opt_item_name(def_id) {
            Some(name) => name.to_string(),
            None => crate::mir_util::display_instance(tcx, callee),
        },
        _ => crate::mir_util::display_instance(tcx, callee),
    }
}

/// The successors of a terminator on the GPU: no unwinding, a failed assertion traps, and a
/// switch on a constant (`if T::IS_ZST` in a generic body) takes one way.
fn live_successors<'tcx>(
    tcx: ty::TyCtxt<'tcx>,
    instance: Instance<'tcx>,
    kind: &TerminatorKind<'tcx>,
) -> Vec<BasicBlock> {
    match kind {
        TerminatorKind::SwitchInt {
            discr: Operand::Constant(constant),
            targets,
        } => match monomorphize(tcx, instance, constant.const_)
            .try_eval_bits(tcx, TypingEnv::fully_monomorphized())
        {
            Some(value) => vec![targets.target_for_value(value)],
            None => targets.all_targets().to_vec(),
        },
        TerminatorKind::Goto { target }
        | TerminatorKind::Assert { target, .. }
        | TerminatorKind::Drop { target, .. }
        | TerminatorKind::Call {
            target: Some(target),
            ..
        }
        | TerminatorKind::FalseEdge {
            real_target: target,
            ..
        }
        | TerminatorKind::FalseUnwind {
            real_target: target,
            ..
        }
        | TerminatorKind::Yield { resume: target, .. } => vec![*target],
        TerminatorKind::SwitchInt { targets, .. } => targets.all_targets().to_vec(),
        TerminatorKind::InlineAsm { targets, .. } => targets.to_vec(),
        TerminatorKind::Call { target: None, .. }
        | TerminatorKind::Return
        | TerminatorKind::Unreachable
        | TerminatorKind::UnwindResume
        | TerminatorKind::UnwindTerminate(_)
        | TerminatorKind::TailCall { .. }
        | TerminatorKind::CoroutineDrop => Vec::new(),
    }
}
