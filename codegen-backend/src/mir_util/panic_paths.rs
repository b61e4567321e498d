//! Blocks from which every path panics. A panic traps on the GPU, so such a block is compiled to
//! one `mir.trap`: the code that builds the panic's message (formatting, `&dyn Debug`, function
//! pointers) is never compiled, and `assert!(x, "{y}")` or `Result::unwrap` work in kernels.
//! A call of a function outside the standard library stops the walk: what it does before the
//! panic is kept (`device_assert!` prints its message with `printf!`, then panics).

use rustc_index::IndexVec;
use rustc_middle::{
    mir::{self, TerminatorKind},
    ty::{self, EarlyBinder, Instance, TyCtxt, TypingEnv},
};

use crate::registry::Registry;

/// The function `func` (a call's callee in `body` of `instance`) names, if it is a function
/// item.
fn callee<'tcx>(
    tcx: TyCtxt<'tcx>,
    instance: Instance<'tcx>,
    body: &mir::Body<'tcx>,
    func: &mir::Operand<'tcx>,
) -> Option<rustc_hir::def_id::DefId> {
    let callee_ty = instance.instantiate_mir_and_normalize_erasing_regions(
        tcx,
        TypingEnv::fully_monomorphized(),
        EarlyBinder::bind(func.ty(body, tcx)),
    );
    match *callee_ty.kind() {
        ty::FnDef(def_id, _) => Some(def_id),
        _ => None,
    }
}

/// Whether `func` is a function outside the standard library (the user's, device-std's).
fn calls_non_std<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    instance: Instance<'tcx>,
    body: &mir::Body<'tcx>,
    func: &mir::Operand<'tcx>,
) -> bool {
    callee(tcx, instance, body, func).is_some_and(|def_id| !registry.is_std(def_id))
}

/// The path of the standard-library panic function `func` calls, if it is one.
fn std_panic_callee<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    instance: Instance<'tcx>,
    body: &mir::Body<'tcx>,
    func: &mir::Operand<'tcx>,
) -> Option<String> {
    let def_id = callee(tcx, instance, body, func)?;
    registry
        .is_std_panic(def_id)
        .then(|| ty::print::with_no_trimmed_paths!(tcx.def_path_str(def_id)))
}

/// For each block of `body` (of `instance`), the panic it inevitably reaches (`None` where some
/// path does not panic). The import compiles these blocks to a trap; the uniformity analysis
/// leaves them out of the control flow.
pub(crate) fn panic_only_blocks<'tcx>(
    tcx: TyCtxt<'tcx>,
    registry: &Registry<'tcx>,
    instance: Instance<'tcx>,
    body: &mir::Body<'tcx>,
) -> IndexVec<mir::BasicBlock, Option<String>> {
    let blocks = &body.basic_blocks;
    let mut panics: IndexVec<mir::BasicBlock, Option<String>> = blocks
        .iter()
        .map(|data| match &data.terminator().kind {
            TerminatorKind::Call { func, .. } if !data.is_cleanup => {
                std_panic_callee(tcx, registry, instance, body, func)
            }
            _ => None,
        })
        .collect();
    // Backwards to a fixpoint: a block all of whose (non-unwind) successors panic, panics.
    loop {
        let mut changed = false;
        for (bb, data) in blocks.iter_enumerated() {
            if panics[bb].is_some() || data.is_cleanup {
                continue;
            }
            if let TerminatorKind::Call { func, .. } = &data.terminator().kind
                && calls_non_std(tcx, registry, instance, body, func)
            {
                continue;
            }
            let successors: Vec<mir::BasicBlock> = data
                .terminator()
                .successors()
                .filter(|s| !blocks[*s].is_cleanup)
                .collect();
            if successors.is_empty() {
                continue;
            }
            if successors.iter().all(|s| panics[*s].is_some()) {
                panics[bb] = panics[successors[0]].clone();
                changed = true;
            }
        }
        if !changed {
            return panics;
        }
    }
}
