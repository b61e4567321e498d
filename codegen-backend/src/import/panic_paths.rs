//! Blocks from which every path panics. A panic traps on the GPU, so such a block is compiled to
//! one `mir.trap`: the code that builds the panic's message (formatting, `&dyn Debug`, function
//! pointers) is never compiled, and `assert!(x, "{y}")` or `Result::unwrap` work in kernels.

use rustc_index::IndexVec;
use rustc_middle::{
    mir::{self, TerminatorKind},
    ty,
};

use super::FnCx;

impl<'tcx> FnCx<'tcx, '_> {
    /// The path of the standard-library panic function `func` calls, if it is one.
    pub(crate) fn std_panic_callee(&self, func: &mir::Operand<'tcx>) -> Option<String> {
        let tcx = self.m.tcx;
        let callee_ty = self.monomorphize(func.ty(self.mir, tcx));
        let ty::FnDef(def_id, _) = *callee_ty.kind() else {
            return None;
        };
        self.m
            .registry
            .is_std_panic(def_id)
            .then(|| ty::print::with_no_trimmed_paths!(tcx.def_path_str(def_id)))
    }

    /// For each block, the panic it inevitably reaches (`None` where some path does not panic).
    pub(crate) fn panic_only_blocks(&self) -> IndexVec<mir::BasicBlock, Option<String>> {
        let blocks = &self.mir.basic_blocks;
        let mut panics: IndexVec<mir::BasicBlock, Option<String>> = blocks
            .iter()
            .map(|data| match &data.terminator().kind {
                TerminatorKind::Call { func, .. } if !data.is_cleanup => {
                    self.std_panic_callee(func)
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
}
