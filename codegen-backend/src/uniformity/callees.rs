//! What a call in a device function calls, resolved as the import resolves it (`import::calls`),
//! and which functions may reach a barrier: a function that calls a barrier, or a function that
//! may reach one, over the call graph (recursion included).

use rustc_abi::ExternAbi;
use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::DefId;
use rustc_middle::{
    mir::{self, TerminatorKind},
    ty::{self, EarlyBinder, Instance, InstanceKind, Ty, TyCtxt, TypingEnv},
};
use rustc_span::{Span, Symbol};

use crate::error::SyncKind;
use crate::registry::{DeviceFn, Registry};

/// What a call resolves to.
#[derive(Clone, Debug)]
pub(crate) enum Callee<'tcx> {
    /// A `#[oxide_gpu::barrier]` or `#[oxide_gpu::warp_collective]` function.
    Barrier(DefId, SyncKind),
    /// Another device-std intrinsic.
    Device(DefId, DeviceFn),
    /// A `#[oxide_gpu::warp_uniform]` function: its result is the same in every lane of a warp
    /// (it may differ between warps), whatever its body computes it from.
    WarpUniform(DefId),
    /// A standard-library panic: it traps.
    Panic,
    /// A rustc intrinsic, by its symbol.
    Intrinsic(Symbol),
    /// Drop glue of a type without destructors.
    Nothing,
    /// A function compiled from its MIR; `spread` for the `rust-call` ABI, whose last argument
    /// (a tuple) the callee receives as separate arguments.
    Body {
        instance: Instance<'tcx>,
        spread: bool,
    },
    /// A call the import rejects (a function pointer, `dyn`, no MIR): anything may happen.
    Unknown,
}

pub(crate) fn monomorphize<'tcx, T>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>, value: T) -> T
where
    T: rustc_middle::ty::TypeFoldable<TyCtxt<'tcx>> + Copy,
{
    instance.instantiate_mir_and_normalize_erasing_regions(
        tcx,
        TypingEnv::fully_monomorphized(),
        EarlyBinder::bind(value),
    )
}

/// What the call of `func` in `body` (of `caller`) calls.
pub(crate) fn resolve_call<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    caller: Instance<'tcx>,
    body: &mir::Body<'tcx>,
    func: &mir::Operand<'tcx>,
) -> Callee<'tcx> {
    let callee_ty = monomorphize(tcx, caller, func.ty(body, tcx));
    let instance = match *callee_ty.kind() {
        ty::FnDef(def_id, args) => {
            match Instance::try_resolve(tcx, TypingEnv::fully_monomorphized(), def_id, args) {
                Ok(Some(instance)) => instance,
                _ => return Callee::Unknown,
            }
        }
        _ => match constant_fn_pointer(tcx, caller, func) {
            Some(instance) => instance,
            None => return Callee::Unknown,
        },
    };
    let def_id = instance.def_id();
    match registry.device_fn(def_id) {
        Ok(Some(DeviceFn::Barrier)) => return Callee::Barrier(def_id, SyncKind::Barrier),
        Ok(Some(DeviceFn::WarpCollective)) => {
            return Callee::Barrier(def_id, SyncKind::WarpCollective);
        }
        Ok(Some(device_fn)) => return Callee::Device(def_id, device_fn),
        Ok(None) => {}
        Err(_) => return Callee::Unknown,
    }
    if registry.is_std_panic(def_id) {
        return Callee::Panic;
    }
    if registry.is_warp_uniform(def_id) {
        return Callee::WarpUniform(def_id);
    }
    match instance.def {
        InstanceKind::Intrinsic(_) => Callee::Intrinsic(tcx.item_name(def_id)),
        InstanceKind::Virtual(..) => Callee::Unknown,
        InstanceKind::DropGlue(_, None) => Callee::Nothing,
        InstanceKind::Item(_) if tcx.is_foreign_item(def_id) || !tcx.is_mir_available(def_id) => {
            Callee::Unknown
        }
        _ => Callee::Body {
            instance,
            spread: matches!(callee_ty.kind(), ty::FnDef(..))
                && callee_ty.fn_sig(tcx).abi() == ExternAbi::RustCall,
        },
    }
}

/// What dropping a value of `ty` calls.
pub(crate) fn resolve_drop<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Callee<'tcx> {
    let glue = Instance::resolve_drop_glue(tcx, ty);
    match glue.def {
        InstanceKind::DropGlue(_, None) => Callee::Nothing,
        _ => Callee::Body {
            instance: glue,
            spread: false,
        },
    }
}

/// The function a constant function pointer points to (core's sort picks its routine so).
fn constant_fn_pointer<'tcx>(
    tcx: TyCtxt<'tcx>,
    caller: Instance<'tcx>,
    func: &mir::Operand<'tcx>,
) -> Option<Instance<'tcx>> {
    let mir::Operand::Constant(constant) = func else {
        return None;
    };
    let value = monomorphize(tcx, caller, constant.const_)
        .eval(tcx, TypingEnv::fully_monomorphized(), constant.span)
        .ok()?;
    let mir::ConstValue::Scalar(mir::interpret::Scalar::Ptr(ptr, _)) = value else {
        return None;
    };
    match tcx.global_alloc(ptr.into_raw_parts().0.alloc_id()) {
        mir::interpret::GlobalAlloc::Function { instance } => Some(instance),
        _ => None,
    }
}

/// For each block, whether the analysis leaves it out: blocks that inevitably panic (they trap,
/// and a trap ends the whole kernel), `unreachable` ones, and cleanup blocks (unwinding does not
/// exist on the GPU).
pub(crate) fn left_out_blocks<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    instance: Instance<'tcx>,
    body: &mir::Body<'tcx>,
) -> rustc_index::IndexVec<mir::BasicBlock, bool> {
    let panics = crate::mir_util::panic_only_blocks(tcx, registry, instance, body);
    let blocks = &body.basic_blocks;
    let mut out: rustc_index::IndexVec<mir::BasicBlock, bool> = blocks
        .iter_enumerated()
        .map(|(bb, data)| {
            data.is_cleanup
                || panics[bb].is_some()
                || matches!(data.terminator().kind, TerminatorKind::Unreachable)
        })
        .collect();
    // A block every path from which ends in a trap or `unreachable` is one too.
    loop {
        let mut changed = false;
        for (bb, data) in blocks.iter_enumerated() {
            if out[bb] {
                continue;
            }
            let mut succs = data.terminator().successors().peekable();
            if succs.peek().is_some() && data.terminator().successors().all(|s| out[s]) {
                out[bb] = true;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// Which functions may reach a barrier, decided once per function for the whole crate.
#[derive(Default)]
pub(crate) struct BarrierReach<'tcx> {
    /// Whether each function explored may reach a barrier, and where: the call (of the barrier
    /// or of a function reaching it) and what it calls.
    decided: FxHashMap<Instance<'tcx>, Option<(Span, Option<Instance<'tcx>>)>>,
    /// The functions that may reach a real barrier (`sync_threads()`), not only warp
    /// collectives: a call of one is a barrier, whatever its first sync point is.
    reach_barrier: FxHashSet<Instance<'tcx>>,
}

impl<'tcx> BarrierReach<'tcx> {
    /// Whether a call of `instance` may execute a barrier.
    pub(crate) fn may_reach(
        &mut self,
        tcx: TyCtxt<'tcx>,
        registry: &Registry<'tcx>,
        instance: Instance<'tcx>,
    ) -> bool {
        if let Some(known) = self.decided.get(&instance) {
            return known.is_some();
        }
        // The part of the call graph below `instance` not decided yet.
        let mut graph: FxHashMap<Instance<'tcx>, Calls<'tcx>> = FxHashMap::default();
        let mut stack = vec![instance];
        while let Some(f) = stack.pop() {
            if self.decided.contains_key(&f) || graph.contains_key(&f) {
                continue;
            }
            let calls = calls_of(tcx, registry, f);
            stack.extend(calls.callees.iter().map(|(_, g)| *g));
            graph.insert(f, calls);
        }
        // Least fixpoint: nothing reaches a barrier until a call shows that it does.
        let mut reach: FxHashMap<Instance<'tcx>, Option<(Span, Option<Instance<'tcx>>)>> = graph
            .iter()
            .map(|(f, calls)| (*f, calls.barrier.map(|(span, _)| (span, None))))
            .collect();
        loop {
            let mut changed = false;
            for (f, calls) in &graph {
                if reach[f].is_some() {
                    continue;
                }
                let via = calls.callees.iter().find(|(_, g)| {
                    self.decided
                        .get(g)
                        .or_else(|| reach.get(g))
                        .is_some_and(Option::is_some)
                });
                if let Some(&(span, g)) = via {
                    reach.insert(*f, Some((span, Some(g))));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Which of them may reach a real barrier: directly, or through a callee that may.
        loop {
            let mut changed = false;
            for (f, calls) in &graph {
                if self.reach_barrier.contains(f) {
                    continue;
                }
                if calls.real_barrier
                    || calls
                        .callees
                        .iter()
                        .any(|(_, g)| self.reach_barrier.contains(g))
                {
                    self.reach_barrier.insert(*f);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.decided.extend(reach);
        self.decided[&instance].is_some()
    }

    /// What a call of `instance` (which may reach a sync point) is: a barrier when it may reach
    /// `sync_threads()`, else a warp collective.
    pub(crate) fn kind_of(&self, instance: Instance<'tcx>) -> SyncKind {
        if self.reach_barrier.contains(&instance) {
            SyncKind::Barrier
        } else {
            SyncKind::WarpCollective
        }
    }

    /// Where a function that may reach a barrier executes one: the barrier call, following the
    /// calls that lead to it.
    pub(crate) fn barrier_in(&self, instance: Instance<'tcx>) -> Option<Span> {
        let mut at = instance;
        // Bounded: a cycle of functions reaching a barrier through each other has a barrier
        // call in one of them, so following witnesses reaches it.
        for _ in 0..=self.decided.len() {
            match self.decided.get(&at)? {
                Some((span, None)) => return Some(*span),
                Some((_, Some(next))) => at = *next,
                None => return None,
            }
        }
        None
    }
}

/// The calls of one function: the first barrier it calls, and the functions it calls (with
/// the call's span).
struct Calls<'tcx> {
    barrier: Option<(Span, SyncKind)>,
    /// Whether it calls `sync_threads()` itself.
    real_barrier: bool,
    callees: Vec<(Span, Instance<'tcx>)>,
}

fn calls_of<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    instance: Instance<'tcx>,
) -> Calls<'tcx> {
    let body = tcx.instance_mir(instance.def);
    let left_out = left_out_blocks(tcx, registry, instance, body);
    let mut calls = Calls {
        barrier: None,
        real_barrier: false,
        callees: Vec::new(),
    };
    for (bb, data) in body.basic_blocks.iter_enumerated() {
        if left_out[bb] {
            continue;
        }
        let term = data.terminator();
        let (callee, span) = match &term.kind {
            TerminatorKind::Call { func, fn_span, .. } => {
                (resolve_call(tcx, registry, instance, body, func), *fn_span)
            }
            TerminatorKind::Drop { place, .. } => (
                resolve_drop(tcx, monomorphize(tcx, instance, place.ty(body, tcx).ty)),
                term.source_info.span,
            ),
            _ => continue,
        };
        match callee {
            Callee::Barrier(_, kind) => {
                calls.barrier.get_or_insert((span, kind));
                calls.real_barrier |= kind == SyncKind::Barrier;
            }
            Callee::Body { instance, .. } => calls.callees.push((span, instance)),
            _ => {}
        }
    }
    calls
}
