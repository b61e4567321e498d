//! Barriers are block-uniform: a uniformity (divergence) analysis of each kernel's call graph
//! proves that every barrier, and every call of a function that may reach one, is executed by all
//! the threads of a block or by none, and rejects the others at compile time.
//!
//! A `bar.sync` that only some threads of a block reach is undefined behaviour on the GPU (it
//! hangs, or lets the block's threads run past each other). The design follows LLVM's
//! UniformityAnalysis:
//! - *divergent sources* are the thread index (`%tid`, unless `grid = "1d"` folds y/z to 0),
//!   device intrinsics (NVVM, inline PTX: `%laneid`, shuffles), atomics, and reads of memory
//!   other threads may write; block and grid indices and sizes, kernel arguments, constants and
//!   the elements of `&[T]` arguments with `T: Freeze` (no thread writes them while the kernel
//!   runs) are uniform;
//! - divergence flows through data (every operation of a divergent operand), through memory
//!   (thread-private locals are followed through pointers and across calls), and through
//!   control: a value assigned on one side of a divergent branch is divergent where the sides
//!   meet again (its immediate post-dominator), and so is a value a loop with a divergent exit
//!   assigned, after the loop;
//! - a barrier call is rejected when it lies in the region of a divergent branch: the nodes
//!   reachable from the branch before its immediate post-dominator (`cfg.rs`). That covers a
//!   divergent `if`, an early `return` or `break`, and a loop whose trip count is divergent.
//!
//! Blocks that can only panic are left out of the control flow: a panic traps, and a trap ends
//! the whole kernel, so a bounds or overflow check before a barrier does not make it divergent.
//! Calls are analysed per calling context (which arguments, and which memory they point to, are
//! divergent), so a helper with a barrier called with uniform arguments passes. docs/safety.md,
//! "Barriers are block-uniform", has the argument and the tests.
//!
//! Every function that may reach a barrier is also marked `convergent` in LLVM IR
//! ([`function_attributes`]), so that LLVM does not move the barrier's calls into divergent code.

mod body;
mod callees;
mod cfg;
mod state;

use pliron_llvm::llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr};
use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::attrs::InlineAttr;
use rustc_middle::ty::{self, Instance, Ty, TyCtxt, TypingEnv};
use rustc_span::Span;

pub(crate) use callees::BarrierReach;
use state::{Abs, CauseId, Loc};

use crate::{
    error::{DeviceError, DeviceErrorKind, DivergentBarrier, SyncKind},
    registry::Registry,
};

/// What a function is entered with: its arguments' values and the contents of the caller's
/// memory they point to (`Loc::Caller(n)` is `callers[n]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Context {
    args: Vec<Abs>,
    callers: Vec<Abs>,
}

/// What a call does, seen from the caller.
#[derive(Clone, Debug)]
struct Summary {
    ret: Abs,
    /// The final contents of each context location, where `written`.
    callers: Vec<Abs>,
    written: Vec<bool>,
    /// Why only some of the threads that call it may return (an endless loop under a
    /// divergent condition, in it or in a function it calls): after such a call, the caller
    /// runs on with only those threads, as after a divergent early `return`.
    partial_return: Option<CauseId>,
}

impl Summary {
    /// A call that returns nothing the caller sees and writes nothing.
    fn untouched(ctx: &Context) -> Summary {
        Summary {
            ret: Abs::uniform(),
            callers: ctx.callers.clone(),
            written: vec![false; ctx.callers.len()],
            partial_return: None,
        }
    }
}

/// Where a divergent value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cause {
    what: String,
    span: Span,
    /// The value is the same in every lane of a warp.
    warp: bool,
}

/// The analysis of one kernel: the causes found, the summaries of the functions analysed so far
/// (per calling context), and the barriers reported.
struct Analysis<'r, 'tcx> {
    tcx: TyCtxt<'tcx>,
    registry: &'r Registry<'tcx>,
    reach: &'r mut BarrierReach<'tcx>,
    grid_1d: bool,
    causes: Vec<Cause>,
    cause_ids: FxHashMap<Cause, CauseId>,
    summaries: FxHashMap<(Instance<'tcx>, Context), Summary>,
    /// The functions being analysed, from the kernel down, with their names for errors.
    path: Vec<(Instance<'tcx>, String)>,
    errors: Vec<DeviceError>,
    reported: FxHashSet<(Span, Span)>,
    pointer_types: FxHashMap<Ty<'tcx>, bool>,
}

impl<'r, 'tcx> Analysis<'r, 'tcx> {
    /// Whether a value of `ty` may hold a pointer. Values are field-insensitive, so without this
    /// an integer read from a struct would carry the struct's pointers (and reading through them
    /// anything they point to).
    fn holds_pointers(&mut self, ty: Ty<'tcx>) -> bool {
        if let Some(known) = self.pointer_types.get(&ty) {
            return *known;
        }
        // A recursive type meets itself only through a pointer.
        self.pointer_types.insert(ty, true);
        let tcx = self.tcx;
        let holds = match ty.kind() {
            ty::Bool
            | ty::Char
            | ty::Int(_)
            | ty::Uint(_)
            | ty::Float(_)
            | ty::Never
            | ty::Str
            | ty::FnDef(..) => false,
            ty::Array(element, _) | ty::Slice(element) => self.holds_pointers(*element),
            ty::Tuple(fields) => fields.iter().any(|field| self.holds_pointers(field)),
            ty::Adt(adt, args) => {
                let fields: Vec<Ty<'tcx>> = adt
                    .all_fields()
                    .map(|field| {
                        tcx.normalize_erasing_regions(
                            TypingEnv::fully_monomorphized(),
                            field.ty(tcx, args),
                        )
                    })
                    .collect();
                fields.into_iter().any(|field| self.holds_pointers(field))
            }
            _ => true,
        };
        self.pointer_types.insert(ty, holds);
        holds
    }

    fn cause(&mut self, what: String, span: Span) -> CauseId {
        self.cause_of(what, span, false)
    }

    /// A cause of values that differ between warps but not between the lanes of one.
    fn warp_cause(&mut self, what: String, span: Span) -> CauseId {
        self.cause_of(what, span, true)
    }

    fn cause_of(&mut self, what: String, span: Span, warp: bool) -> CauseId {
        let cause = Cause { what, span, warp };
        if let Some(id) = self.cause_ids.get(&cause) {
            return *id;
        }
        let index = self.causes.len() as u32;
        let id = CauseId(if warp { index | CauseId::WARP } else { index });
        self.causes.push(cause.clone());
        self.cause_ids.insert(cause, id);
        id
    }

    /// Whether `span` is in the crate being compiled (the user's code).
    fn is_local(&self, span: Span) -> bool {
        let span = span.source_callsite();
        !span.is_dummy()
            && self
                .tcx
                .sess
                .source_map()
                .lookup_source_file(span.lo())
                .cnum
                == rustc_span::def_id::LOCAL_CRATE
    }

    /// The cause of a call's divergent result, seen at the call: a cause inside another crate
    /// (`thread_idx_z()` deep in `ThreadIndex::linear`) is named by the call the user wrote.
    fn cause_at_call(&mut self, cause: CauseId, callee: Instance<'tcx>, call: Span) -> CauseId {
        let inner = &self.causes[cause.index()];
        if self.is_local(inner.span) || !self.is_local(call) {
            return cause;
        }
        let warp = inner.warp;
        let what = format!(
            "`{}()`, whose result depends on {}",
            body::callee_name(self.tcx, callee),
            inner.what
        );
        self.cause_of(what, call, warp)
    }

    /// Why only some threads come back from a call of `callee` at `call`, in the caller's
    /// terms: `cause` is the callee's reason.
    fn cause_of_partial_return(
        &mut self,
        cause: CauseId,
        callee: Instance<'tcx>,
        call: Span,
    ) -> CauseId {
        let inner = &self.causes[cause.index()];
        let warp = inner.warp;
        let what = format!(
            "`{}()`, which some threads may never return from: it loops forever on a condition that depends on {}",
            body::callee_name(self.tcx, callee),
            inner.what
        );
        self.cause_of(what, call, warp)
    }

    /// What a call of `instance` in `ctx` does; analyses it (once per context).
    fn summary(&mut self, instance: Instance<'tcx>, ctx: Context, span: Span) -> Summary {
        let key = (instance, ctx);
        if let Some(known) = self.summaries.get(&key) {
            return known.clone();
        }
        let (instance, ctx) = key;
        if self.path.iter().any(|(f, _)| *f == instance) {
            return self.recursive(&ctx, span);
        }
        let name = crate::mir_util::display_instance(self.tcx, instance);
        self.path.push((instance, name));
        let summary = body::FnAnalysis::run(self, instance, &ctx);
        self.path.pop();
        self.summaries.insert((instance, ctx), summary.clone());
        summary
    }

    /// A recursive call: not followed, so everything it can touch is divergent.
    fn recursive(&mut self, ctx: &Context, span: Span) -> Summary {
        let what = "the result of a recursive call, which the analysis does not follow".into();
        let cause = self.cause(what, span);
        let everything = Abs::pointer(
            Some(cause),
            (0..ctx.callers.len() as u32)
                .map(Loc::Caller)
                .chain([Loc::Shared]),
        );
        Summary {
            ret: everything.clone(),
            callers: vec![everything; ctx.callers.len()],
            written: vec![true; ctx.callers.len()],
            partial_return: None,
        }
    }

    fn report(
        &mut self,
        call: Span,
        callee: String,
        barrier_in_callee: Option<Span>,
        kind: SyncKind,
        condition: Span,
        cause: CauseId,
    ) {
        if !self.reported.insert((call, condition)) {
            return;
        }
        let cause = self.causes[cause.index()].clone();
        let divergent = DivergentBarrier {
            callee,
            barrier_in_callee,
            kind,
            condition,
            cause: cause.what,
            cause_span: cause.span,
        };
        let mut error =
            DeviceError::new(call, DeviceErrorKind::DivergentBarrier(Box::new(divergent)));
        error.call_path = self.path.iter().map(|(_, name)| name.clone()).collect();
        self.errors.push(error);
    }
}

impl Analysis<'_, '_> {
    /// Values given to `callee` that must be block-uniform and are not (`cause`): reported at
    /// the place the divergence comes from when that is the user's code (where it can be
    /// changed), else at the call.
    fn report_operands(&mut self, call: Span, callee: String, cause: CauseId) {
        let cause = self.causes[cause.index()].clone();
        let at = if self.is_local(cause.span) {
            cause.span
        } else {
            call
        };
        if !self.reported.insert((at, call)) {
            return;
        }
        let mut error = DeviceError::new(
            at,
            DeviceErrorKind::DivergentOperands {
                callee,
                cause: cause.what,
                cause_span: cause.span,
            },
        );
        error.call_path = self.path.iter().map(|(_, name)| name.clone()).collect();
        self.errors.push(error);
    }
}

/// Checks that every barrier kernel `instance` (PTX entry `entry`) may execute is reached by all
/// the threads of a block or by none; one error per barrier call that is not.
/// `reach` is the crate's, which the importer filled while marking functions `convergent`;
/// `grid_1d` is the kernel's launch contract, which folds the y and z thread indices to 0.
pub(crate) fn check_kernel<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    reach: &mut BarrierReach<'tcx>,
    instance: Instance<'tcx>,
    grid_1d: bool,
    entry: &str,
) -> Vec<DeviceError> {
    if !reach.may_reach(tcx, registry, instance) {
        // Nothing to check: most kernels.
        return Vec::new();
    }
    let body = tcx.instance_mir(instance.def);
    let args = (1..=body.arg_count)
        .map(|arg| {
            let ty = callees::monomorphize(
                tcx,
                instance,
                body.local_decls[rustc_middle::mir::Local::from_usize(arg)].ty,
            );
            kernel_argument(tcx, ty)
        })
        .collect();
    let mut analysis = Analysis {
        tcx,
        registry,
        reach,
        grid_1d,
        causes: Vec::new(),
        cause_ids: FxHashMap::default(),
        summaries: FxHashMap::default(),
        path: Vec::new(),
        errors: Vec::new(),
        reported: FxHashSet::default(),
        pointer_types: FxHashMap::default(),
    };
    analysis.path.push((instance, entry.to_string()));
    // The kernel itself is entered once: analysed directly rather than through `summary`.
    let ctx = Context {
        args,
        callers: Vec::new(),
    };
    body::FnAnalysis::run(&mut analysis, instance, &ctx);
    analysis.errors
}

/// A kernel argument: the same in every thread. What a `&[T]` argument points to is `Frozen`
/// when `T` has no interior mutability (the launcher borrows the buffer shared for the whole
/// launch, so no thread writes it); any other pointer points to memory threads may write.
fn kernel_argument<'tcx>(tcx: TyCtxt<'tcx>, ty: ty::Ty<'tcx>) -> Abs {
    let frozen = match ty.kind() {
        ty::Ref(_, pointee, rustc_hir::Mutability::Not) => {
            let element = match pointee.kind() {
                ty::Slice(element) | ty::Array(element, _) => *element,
                _ => *pointee,
            };
            element.is_freeze(tcx, TypingEnv::fully_monomorphized())
        }
        _ => false,
    };
    Abs::pointer(None, [if frozen { Loc::Frozen } else { Loc::Shared }])
}

/// The LLVM function attributes of `instance`: `convergent` when it may reach a barrier (LLVM
/// must not make such a call control-dependent on more values than it is), `noinline` for
/// `#[inline(never)]`, and the mark of a kernel's body in `#[kernel]`'s wrapper.
pub(crate) fn function_attributes<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    reach: &mut BarrierReach<'tcx>,
    instance: Instance<'tcx>,
) -> LlvmAttributesAttr {
    let mut attrs = LlvmAttributesAttr::new();
    if reach.may_reach(tcx, registry, instance) {
        attrs.set("convergent", LlvmAttrValue::Unit);
    }
    // A warp-uniform function is `#[inline(never)]` only so that the analysis sees its call in
    // MIR; LLVM may inline it.
    if let InlineAttr::Never = tcx.codegen_instance_attrs(instance.def).inline
        && !registry.is_warp_uniform(instance.def_id())
    {
        attrs.set("noinline", LlvmAttrValue::Unit);
    }
    // The body `#[kernel]` wraps, which llvm-emit inlines where O3 did not.
    if instance.def_id().is_local()
        && tcx
            .opt_item_name(instance.def_id())
            .is_some_and(|name| name.as_str() == oxide_contract::KERNEL_BODY_FN)
    {
        attrs.set(
            oxide_contract::KERNEL_BODY_ATTRIBUTE,
            LlvmAttrValue::Str(String::new()),
        );
    }
    attrs
}
