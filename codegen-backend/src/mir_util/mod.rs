//! MIR utilities: facts of a monomorphised body that both the uniformity analysis and the
//! importer read, kept below both so that neither reaches into the other for them.

mod panic_paths;

use rustc_middle::ty::{Instance, TyCtxt};

pub(crate) use panic_paths::panic_only_blocks;

/// How errors and the recursion report name an instance: its full path with its generic
/// arguments.
pub(crate) fn display_instance<'tcx>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> String {
    rustc_middle::ty::print::with_no_trimmed_paths!(
        tcx.def_path_str_with_args(instance.def_id(), instance.args)
    )
}
