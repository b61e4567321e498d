//! The device path of one crate: find kernels, import, run passes, emit PTX, report errors as
//! spanned diagnostics.

use std::path::{Path, PathBuf};

use oxide_contract::KernelOptions;
use rustc_hir::def::DefKind;
use rustc_middle::ty::{Instance, TyCtxt};

use crate::{
    config::DeviceConfig,
    error::{DeviceError, DeviceErrorKind, HostOnly, Why},
    import::DeviceModule,
};

/// A kernel to compile: the instance, its PTX entry name and its options, and the item whose
/// name is its marker (the `const`, or the generic wrapper).
struct KernelSpec<'tcx> {
    instance: Instance<'tcx>,
    entry: String,
    mode: KernelOptions,
    marker: rustc_hir::def_id::DefId,
}

/// The kernel name and options a marker (an item name) carries
/// (`oxide_contract::parse_kernel_marker`); `Err` for an option this backend does not know (a
/// device-std newer than the backend).
fn kernel_prefix(item_name: &str) -> Option<Result<(&str, KernelOptions), String>> {
    Some(oxide_contract::parse_kernel_marker(item_name)?.map_err(|unknown| unknown.to_string()))
}

pub(crate) struct PtxImage {
    pub(crate) crate_name: String,
    pub(crate) ptx: String,
}

/// Every pipeline stage as text, for `cargo oxide pipeline`.
struct Dumps {
    rustc_mir: String,
    stages: oxide_dialects::StageDumps,
    llvm_ir: String,
    llvm_ir_opt: String,
    ptx: String,
}

/// Compiles the crate's kernels to PTX; `None` when it has none or on error (already reported).
pub(crate) fn compile_kernels(tcx: TyCtxt<'_>) -> Option<PtxImage> {
    // Every device mark where it is written, kernels or not: a library's marked function is
    // called from other crates' kernels.
    if crate::registry::check::check_crate(tcx) {
        return None;
    }
    let (kernels, kernel_errors, has_generic) = find_kernels(tcx);
    if !kernel_errors.is_empty() {
        for e in kernel_errors {
            report(tcx, e);
        }
        return None;
    }
    if kernels.is_empty() && !has_generic {
        return None;
    }
    let crate_name = tcx.crate_name(rustc_span::def_id::LOCAL_CRATE).to_string();
    let _span = tracing::info_span!("device", krate = %crate_name).entered();
    let config = DeviceConfig::from_session(tcx.sess)?;
    // The contract `sm = n` against the architecture of this build.
    let arch_cc = config.arch.compute_capability();
    let too_new: Vec<DeviceError> = kernels
        .iter()
        .filter_map(|k| {
            let needs = k.mode.min_sm.filter(|&needs| needs > arch_cc)?;
            Some(DeviceError::new(
                tcx.def_span(k.instance.def_id()),
                DeviceErrorKind::BadKernel {
                    kernel: k.entry.clone(),
                    why: format!(
                        "it is declared `#[kernel(sm = {needs})]` and this build compiles for {} \
                         (compute capability {}.{}): build for a newer architecture \
                         (`cargo oxide build --arch sm_{needs}`), or lower the contract",
                        config.arch,
                        arch_cc / 10,
                        arch_cc % 10
                    ),
                },
            ))
        })
        .collect();
    if !too_new.is_empty() {
        report_all(tcx, too_new);
        return None;
    }

    let result = crate::ice::catch(|| compile(tcx, &crate_name, &kernels, &config));
    let (ptx, dumps) = match result {
        Ok(Ok(ok)) => ok,
        Ok(Err(errors)) => {
            report_all(tcx, errors);
            return None;
        }
        Err(panic) => {
            let whole_crate = tcx.def_span(rustc_span::def_id::CRATE_DEF_ID);
            report(tcx, panic.into_error(&crate_name, whole_crate));
            // Queries the panic interrupted are poisoned: compiling the host code next could
            // only trip over them.
            tcx.dcx().abort_if_errors();
            return None;
        }
    };
    // `<stem>.ptx` beside the crate's own outputs (`vecadd-<hash>.ptx` under cargo, whose
    // `-C extra-filename` differs with the flags): a build with other flags (another
    // architecture) never overwrites it, so it stays the twin of the artifacts it was compiled
    // with, which cargo may reuse later. `<crate>.ptx` is the crate's last compilation.
    let outputs = tcx.output_filenames(());
    let stem_ptx = outputs.with_extension("ptx");
    let crate_ptx = stem_ptx
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        .join(format!("{crate_name}.ptx"));
    for path in [&stem_ptx, &crate_ptx] {
        if let Err(e) = std::fs::write(path, &ptx) {
            tcx.dcx()
                .err(format!("oxide: cannot write {}: {e}", path.display()));
        }
    }
    if config.dump {
        write_dumps(tcx, &outputs.with_extension("pipeline"), &dumps);
    }
    Some(PtxImage { crate_name, ptx })
}

/// The crate's kernels; errors are spanned at the kernel they concern.
/// Also says whether the crate defines generic kernels (whose launchers need a PTX image even
/// when nothing instantiates them here).
///
/// Markers are item names (docs/contracts.md): a non-generic kernel is the function that the
/// `const` named by its marker holds, a generic one each instance of the function named by its
/// marker among the crate's mono items.
fn find_kernels<'tcx>(tcx: TyCtxt<'tcx>) -> (Vec<KernelSpec<'tcx>>, Vec<DeviceError>, bool) {
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    let mut has_generic = false;
    let bad_kernel = |def_id: rustc_hir::def_id::DefId, kernel: String, why: String| {
        DeviceError::new(
            tcx.def_span(def_id),
            DeviceErrorKind::BadKernel { kernel, why },
        )
    };
    for def_id in tcx.hir_crate_items(()).definitions() {
        let def_id = def_id.to_def_id();
        let kind = tcx.def_kind(def_id);
        if !matches!(kind, DefKind::Const { .. } | DefKind::Fn) {
            continue;
        }
        let item_name = tcx.item_name(def_id);
        let Some(marked) = kernel_prefix(item_name.as_str()) else {
            continue;
        };
        if kind == DefKind::Fn {
            has_generic = true;
            continue;
        }
        let (name, mode) = match marked {
            Ok(marked) => marked,
            Err(why) => {
                errors.push(bad_kernel(def_id, item_name.to_string(), why));
                continue;
            }
        };
        match marked_function(tcx, def_id, name) {
            Ok(kernel) => kernels.push(KernelSpec {
                instance: Instance::mono(tcx, kernel),
                entry: oxide_contract::kernel_entry(name),
                mode,
                marker: def_id,
            }),
            Err(why) => errors.push(bad_kernel(def_id, name.to_string(), why)),
        }
    }
    if has_generic {
        // A generic kernel is compiled for each instantiation its launchers reach, which the
        // host's mono items list (the launcher reifies the wrapper so that it is one).
        let mut seen = rustc_data_structures::fx::FxHashSet::default();
        for cgu in tcx.collect_and_partition_mono_items(()).codegen_units {
            for item in cgu.items().keys() {
                let rustc_middle::mono::MonoItem::Fn(instance) = item else {
                    continue;
                };
                let def_id = instance.def_id();
                if !def_id.is_local() || instance.args.is_empty() || !seen.insert(*instance) {
                    continue;
                }
                let Some(item_name) = tcx.opt_item_name(def_id) else {
                    continue;
                };
                let (name, mode) = match kernel_prefix(item_name.as_str()) {
                    None => continue,
                    Some(Ok(marked)) => marked,
                    Some(Err(why)) => {
                        errors.push(bad_kernel(def_id, item_name.to_string(), why));
                        continue;
                    }
                };
                let type_names: Vec<String> = instance
                    .args
                    .types()
                    .map(|ty| rustc_const_eval::util::type_name(tcx, ty))
                    .collect();
                let type_names: Vec<&str> = type_names.iter().map(String::as_str).collect();
                kernels.push(KernelSpec {
                    instance: *instance,
                    entry: oxide_contract::generic_entry(name, &type_names),
                    mode,
                    marker: def_id,
                });
            }
        }
    }
    kernels.sort_by(|a, b| a.entry.cmp(&b.entry));
    // The launcher finds a kernel by its entry alone: one entry, one kernel, one marker.
    for pair in kernels.windows(2) {
        let (first, second) = (&pair[0], &pair[1]);
        let (a, b) = (first.instance, second.instance);
        if first.entry != second.entry || (a == b && first.marker == second.marker) {
            continue;
        }
        let two_markers = first.marker != second.marker
            && (a == b || tcx.parent(first.marker) == tcx.parent(second.marker));
        let (why, at) = if two_markers {
            // Two markers of one kernel: one of them was not written by `#[kernel]` (a constant
            // named like a marker with other options), and compiling the kernel once per marker
            // would define its entry twice. Report it at the one the user wrote, if one was.
            let user_written = [second.marker, first.marker]
                .into_iter()
                .find(|m| !tcx.def_span(*m).from_expansion())
                .unwrap_or(second.marker);
            (
                format!(
                    "`{}` and `{}` would both be the PTX entry `{}`, and the launcher finds a kernel by its entry alone; an item named like a kernel marker is `#[kernel]`'s own: rename it",
                    tcx.def_path_str(first.marker),
                    tcx.def_path_str(second.marker),
                    first.entry
                ),
                user_written,
            )
        } else if a.def_id() == b.def_id() {
            // Two closures of one function share a `type_name`.
            (
                format!(
                    "two instantiations (`{}` and `{}`) have the same type names, so the launcher cannot tell them apart; give each closure its own function",
                    crate::mir_util::display_instance(tcx, a),
                    crate::mir_util::display_instance(tcx, b)
                ),
                b.def_id(),
            )
        } else {
            (
                format!(
                    "`{}` and `{}` would both be the PTX entry `{}`, and the launcher finds a kernel by its entry alone; give the kernels of a crate distinct names",
                    tcx.def_path_str(a.def_id()),
                    tcx.def_path_str(b.def_id()),
                    first.entry
                ),
                b.def_id(),
            )
        };
        errors.push(bad_kernel(at, second.entry.clone(), why));
    }
    (kernels, errors, has_generic)
}

/// The function that the marker `const` `def_id` holds: a local, non-generic function named
/// `name`, as `#[kernel]` writes it (`const __oxide_kernel__k: fn(..) = k;`).
fn marked_function(
    tcx: TyCtxt<'_>,
    def_id: rustc_hir::def_id::DefId,
    name: &str,
) -> Result<rustc_hir::def_id::DefId, String> {
    use rustc_middle::mir::{
        ConstValue,
        interpret::{GlobalAlloc, Scalar},
    };
    let not_a_kernel = || {
        format!(
            "a kernel marker `{}` must be a `const` holding the function `{name}` (what `#[kernel]` writes)",
            tcx.item_name(def_id)
        )
    };
    let Ok(ConstValue::Scalar(Scalar::Ptr(ptr, _))) = tcx.const_eval_poly(def_id) else {
        return Err(not_a_kernel());
    };
    let GlobalAlloc::Function { instance } = tcx.global_alloc(ptr.into_raw_parts().0.alloc_id())
    else {
        return Err(not_a_kernel());
    };
    let function = instance.def_id();
    let named = tcx
        .opt_item_name(function)
        .is_some_and(|n| n.as_str() == name);
    if function.is_local() && instance.args.is_empty() && named {
        Ok(function)
    } else {
        Err(not_a_kernel())
    }
}

fn compile<'tcx>(
    tcx: TyCtxt<'tcx>,
    crate_name: &str,
    kernels: &[KernelSpec<'tcx>],
    config: &DeviceConfig,
) -> Result<(String, Dumps), Vec<DeviceError>> {
    let mut module = DeviceModule::new(tcx, crate_name, config.dump);
    module.has_libdevice = config.libdevice.is_some();
    module.reserve_entries(kernels.iter().map(|k| k.entry.as_str()));
    let mut errors = Vec::new();
    for kernel in kernels {
        if let Err(e) = module.import_kernel(kernel.instance, &kernel.entry, kernel.mode) {
            errors.extend(e);
        }
    }
    if errors.is_empty() {
        // Every barrier must be reached by all the threads of a block or by none.
        for kernel in kernels {
            let divergent = crate::uniformity::check_kernel(
                tcx,
                &module.registry,
                &mut module.barriers,
                kernel.instance,
                kernel.mode.grid_1d,
                &kernel.entry,
            );
            errors.extend(divergent);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let whole_crate = tcx.def_span(rustc_span::def_id::CRATE_DEF_ID);
    let internal = |message: String| {
        vec![DeviceError::new(
            whole_crate,
            DeviceErrorKind::Internal {
                function: crate_name.to_string(),
                message,
            },
        )]
    };
    let rustc_mir = module.mir_text.take().unwrap_or_default();
    let kernel_names = module.kernels.clone();
    let calls = crate::recursion::CallGraph::take(
        &mut module,
        kernels
            .iter()
            .map(|k| (k.entry.as_str(), k.instance, k.mode)),
    );
    let DeviceModule {
        mut ctx,
        module: module_op,
        ..
    } = module;
    let stages = oxide_dialects::run_pipeline(&mut ctx, module_op, config.dump)
        .map_err(|e| internal(e.to_string()))?;
    let options = oxide_llvm_emit::EmitOptions {
        arch: config.arch,
        opt_level: 3,
        kernels: kernel_names,
        libdevice: config.libdevice.clone(),
        dump_ir: config.dump,
    };
    let output = oxide_llvm_emit::emit_ptx(&ctx, module_op, &options)
        .map_err(|e| internal(e.to_string()))?;
    crate::recursion::warn(tcx, &calls, &output.ptx);
    let dumps = Dumps {
        rustc_mir,
        stages,
        // Present exactly when `config.dump` asks for the dump these are written to.
        llvm_ir: output.llvm_ir_unoptimized.unwrap_or_default(),
        llvm_ir_opt: output.llvm_ir.unwrap_or_default(),
        ptx: output.ptx.clone(),
    };
    Ok((output.ptx, dumps))
}

/// Reports every error once, in source order. Once means: a construct reached from several
/// kernels (or from one kernel in two modes) is one mistake, and so are the pieces of one macro
/// call that fail for one reason (`write!` makes several calls into the formatting machinery).
fn report_all(tcx: TyCtxt<'_>, errors: Vec<DeviceError>) {
    let mut errors: Vec<(rustc_span::Span, DeviceError)> = errors
        .into_iter()
        .map(|e| (user_span(tcx, &e).0, e))
        .collect();
    errors.sort_by_key(|(span, _)| *span);
    // A heap value's drop follows from the reported call that made it.
    let made_on_heap: Vec<Option<String>> = errors
        .iter()
        .filter(|(_, e)| match &e.kind {
            DeviceErrorKind::NotOnGpu { why, .. } => *why == Why::HostOnly(HostOnly::Heap),
            _ => false,
        })
        .map(|(_, e)| e.call_path.first().cloned())
        .collect();
    errors.retain(|(_, e)| {
        !matches!(e.kind, DeviceErrorKind::HeapDrop { .. })
            || !made_on_heap.contains(&e.call_path.first().cloned())
    });
    let mut seen = rustc_data_structures::fx::FxHashSet::default();
    for (span, e) in errors {
        let (span, reason) = match &e.kind {
            DeviceErrorKind::NotOnGpu { why, .. } => (span.source_callsite(), why.to_string()),
            // One report per static: the fix is at its declaration.
            DeviceErrorKind::StaticMut { declared, .. } => (*declared, e.kind.to_string()),
            other => (span.source_callsite(), other.to_string()),
        };
        if seen.insert((span, reason)) {
            report(tcx, e);
        }
    }
}

/// Where the user should look for `e`: the innermost of its call sites and its own span that is
/// in the crate being compiled (so an unsupported construct inside `f32::sin` is reported at the
/// user's `x.sin()`), with the index of that call site (`None`: the error's own span).
fn user_span(tcx: TyCtxt<'_>, e: &DeviceError) -> (rustc_span::Span, Option<usize>) {
    let source_map = tcx.sess.source_map();
    // A span inside a macro's expansion counts where the macro is called (`println!`).
    let in_user_crate = |span: rustc_span::Span| {
        let span = span.source_callsite();
        !span.is_dummy()
            && source_map.lookup_source_file(span.lo()).cnum == rustc_span::def_id::LOCAL_CRATE
    };
    if in_user_crate(e.span) {
        return (e.span, None);
    }
    match e
        .call_sites
        .iter()
        .rposition(|site| in_user_crate(site.span))
    {
        Some(i) => (e.call_sites[i].span, Some(i)),
        None => (e.span, None),
    }
}

fn report(tcx: TyCtxt<'_>, e: DeviceError) {
    let (primary, site) = user_span(tcx, &e);
    let mut diag = tcx
        .dcx()
        .struct_span_err(primary, format!("oxide: {}", e.kind));
    // The way from the user's line to the construct, when it goes into other crates.
    if let Some(i) = site {
        let sites = &e.call_sites;
        diag.span_label(
            primary,
            format!("this call of `{}` reaches it", sites[i].callee),
        );
        for pair in sites[i..].windows(2) {
            diag.span_note(
                pair[1].span,
                format!("`{}` calls `{}` here", pair[0].callee, pair[1].callee),
            );
        }
        let holder = &sites.last().expect("a call site").callee;
        diag.span_note(e.span, format!("the construct, in `{holder}`"));
    }
    // Every function on the way, inlined ones included.
    let through: Vec<&str> = e.call_sites.iter().map(|s| s.callee.as_str()).collect();
    match (e.call_path.first(), through.is_empty()) {
        (Some(kernel), false) => {
            diag.note(format!(
                "reached from kernel `{kernel}` through {}",
                through.join(" -> ")
            ));
        }
        (Some(kernel), true) if e.call_path.len() > 1 => {
            diag.note(format!(
                "reached from kernel `{kernel}` through {}",
                e.call_path[1..].join(" -> ")
            ));
        }
        (Some(kernel), true) => {
            diag.note(format!("in kernel `{kernel}`"));
        }
        (None, _) => {}
    }
    if let DeviceErrorKind::Internal { .. } = e.kind {
        diag.note(
            "this is a bug in oxide, not in your code: please report it to oxide with this kernel",
        );
    }
    if let DeviceErrorKind::StaticMut { declared, .. } = e.kind {
        diag.span_note(declared, "declared here");
        diag.help("for memory each block has its own copy of (CUDA's `__shared__`), use a `static` `oxide::shared::SharedArray`; for a grid-wide counter, a `static` atomic; for results, a `DisjointSlice`");
    }
    if let DeviceErrorKind::DivergentBarrier(barrier) = &e.kind {
        for (span, note) in barrier.notes() {
            diag.span_note(span, note);
        }
        diag.help(barrier.help());
    }
    if let DeviceErrorKind::DivergentOperands {
        cause, cause_span, ..
    } = &e.kind
    {
        if *cause_span != e.span {
            diag.span_note(*cause_span, format!("they depend on {cause}"));
        } else {
            diag.note(format!("they depend on {cause}"));
        }
        diag.help("compute them from what the whole block shares: constants, block and grid sizes and indices, kernel arguments, and what is computed from those alone (a loop counter of a loop every thread runs alike)");
    }
    if let DeviceErrorKind::NoMir { .. } = e.kind {
        diag.help("device code can call functions of other crates that are generic or `#[inline]`; build with `cargo oxide`, which passes `-Zalways-encode-mir`");
    }
    diag.emit();
}

fn write_dumps(tcx: TyCtxt<'_>, dir: &Path, dumps: &Dumps) {
    let files = [
        ("1-rustc-mir.txt", Some(&dumps.rustc_mir)),
        ("2-mir-dialect.txt", dumps.stages.mir_dialect.as_ref()),
        (
            "3-mir-dialect-opt.txt",
            dumps.stages.mir_dialect_opt.as_ref(),
        ),
        ("4-llvm-dialect.txt", dumps.stages.llvm_dialect.as_ref()),
        ("5-llvm-ir.ll", Some(&dumps.llvm_ir)),
        ("6-llvm-ir-opt.ll", Some(&dumps.llvm_ir_opt)),
        ("7-ptx.ptx", Some(&dumps.ptx)),
    ];
    // Start empty, so that no file of an earlier compiler's stages lingers beside these.
    let _ = std::fs::remove_dir_all(dir);
    let result = std::fs::create_dir_all(dir).and_then(|()| {
        files
            .iter()
            .filter_map(|(name, text)| Some((name, (*text)?)))
            .try_for_each(|(name, text)| std::fs::write(dir.join(name), text))
    });
    if let Err(e) = result {
        tcx.dcx().warn(format!(
            "oxide: cannot write the pipeline dump to {}: {e}",
            dir.display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_markers_carry_name_and_mode() {
        let plain = kernel_prefix("__oxide_kernel__vecadd").unwrap().unwrap();
        assert_eq!(plain.0, "vecadd");
        assert_eq!(plain.1, KernelOptions::default());
        let both = kernel_prefix("__oxide_kernel_grid1d_strict__my_kernel")
            .unwrap()
            .unwrap();
        assert_eq!(both.0, "my_kernel");
        assert_eq!(
            both.1,
            KernelOptions {
                strict_float: true,
                grid_1d: true,
                ..KernelOptions::default()
            }
        );
        let bounded = kernel_prefix("__oxide_kernel_maxthreads256_minblocks2_sm80__k")
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                bounded.1.max_threads,
                bounded.1.min_blocks_per_sm,
                bounded.1.min_sm
            ),
            (Some(256), Some(2), Some(80))
        );
        assert_eq!(
            kernel_prefix("__oxide_kernel_bogus__k")
                .unwrap()
                .unwrap_err(),
            "kernel `k` has the option `bogus`, which this backend does not know"
        );
        assert!(kernel_prefix("vecadd").is_none());
    }
}
