//! Recursion in device code, reported at compile time.
//!
//! ptxas sizes a thread's stack as if each function ran once; it cannot bound a recursion, and a
//! recursion that runs past the thread's stack faults on the GPU as `CUDA_ERROR_ILLEGAL_ADDRESS`
//! (a 64 KiB local array in a recursive helper did on the H200), with nothing pointing at the
//! recursion. So the backend warns, at the user's line, for each recursion left in the PTX: the
//! cycle of functions, and the bytes of stack each level takes.
//!
//! A warning and not an error: bounded recursion works (the corpus's `recursion` case: `fib`,
//! Ackermann), and no stack limit chosen at launch could be more than a guess without a bound
//! on the depth. The PTX and not MIR is what decides: LLVM turns a tail call into a loop
//! (`gcd`), and what it leaves is exactly what ptxas sees.

mod ptx;

use rustc_data_structures::fx::FxHashMap;
use rustc_middle::ty::{Instance, TyCtxt};
use rustc_span::Span;

use crate::error::CallSite;
use oxide_contract::KernelOptions;

use crate::import::{Calls, DeviceModule};
use crate::mir_util::display_instance;

type Function<'tcx> = (Instance<'tcx>, KernelOptions);

/// The device call graph the import found, and the PTX name of each function.
pub(crate) struct CallGraph<'tcx> {
    tcx: TyCtxt<'tcx>,
    by_name: FxHashMap<String, Function<'tcx>>,
    calls: Calls<'tcx>,
    /// The kernels' entries, in order.
    kernels: Vec<String>,
}

impl<'tcx> CallGraph<'tcx> {
    /// Takes the calls `module` recorded; `kernels` are each kernel's entry, instance and mode.
    pub(crate) fn take<'k>(
        module: &mut DeviceModule<'tcx>,
        kernels: impl IntoIterator<Item = (&'k str, Instance<'tcx>, KernelOptions)>,
    ) -> Self {
        let mut by_name: FxHashMap<String, Function<'tcx>> = module
            .device_functions()
            .map(|(name, instance, mode)| (name, (instance, mode)))
            .collect();
        let mut entries = Vec::new();
        for (entry, instance, mode) in kernels {
            by_name.insert(entry.to_string(), (instance, mode));
            entries.push(entry.to_string());
        }
        CallGraph {
            tcx: module.tcx,
            by_name,
            calls: std::mem::take(&mut module.calls),
            kernels: entries,
        }
    }

    /// A shortest path of calls from `from` to `to` (breadth first): each call's callee and
    /// its sites (the calls from the kernel's body to it, it last).
    fn path(&self, from: Function<'tcx>, to: Function<'tcx>) -> Option<Vec<Call<'_, 'tcx>>> {
        let mut came_from: FxHashMap<Function<'tcx>, (Function<'tcx>, &[CallSite])> =
            FxHashMap::default();
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(caller) = queue.pop_front() {
            let mut calls: Vec<_> = self.calls.get(&caller).into_iter().flatten().collect();
            // LLVM makes a loop of a tail call: a call whose result is used is the one that
            // stays a call in the PTX (the inner call of Ackermann's `a(m - 1, a(m, n - 1))`).
            calls.sort_by_key(|(_, sites)| self.is_tail_call(caller.0, sites));
            for (callee, sites) in calls {
                let callee = (*callee, caller.1);
                if came_from.contains_key(&callee) {
                    continue;
                }
                came_from.insert(callee, (caller, sites));
                if callee == to {
                    let mut path = Vec::new();
                    let mut at = callee;
                    loop {
                        let (caller, sites) = came_from[&at];
                        path.push((at.0, sites));
                        if caller == from {
                            break;
                        }
                        at = caller;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(callee);
            }
        }
        None
    }

    /// Whether the last of `sites` is a call in `caller` whose result `caller` returns at once.
    fn is_tail_call(&self, caller: Instance<'tcx>, sites: &[CallSite]) -> bool {
        use rustc_middle::mir::{RETURN_PLACE, TerminatorKind};
        let Some(site) = sites.last() else {
            return false;
        };
        let body = self.tcx.instance_mir(caller.def);
        body.basic_blocks.iter().any(|data| {
            let term = data.terminator();
            let TerminatorKind::Call {
                destination,
                target: Some(target),
                ..
            } = &term.kind
            else {
                return false;
            };
            term.source_info.span == site.span
                && destination.local == RETURN_PLACE
                && destination.projection.is_empty()
                && returns_at_once(body, *target)
        })
    }

    /// The cycle of Rust functions behind the PTX cycle `ptx_cycle` (LLVM may have inlined
    /// some of them into others): for each of its calls, the calls in MIR that it stands for.
    fn rust_cycle(&self, ptx_cycle: &[String]) -> Option<Vec<Call<'_, 'tcx>>> {
        let mut cycle = Vec::new();
        for (i, caller) in ptx_cycle.iter().enumerate() {
            let callee = &ptx_cycle[(i + 1) % ptx_cycle.len()];
            let (from, to) = (self.by_name.get(caller)?, self.by_name.get(callee)?);
            cycle.extend(self.path(*from, *to)?);
        }
        Some(cycle)
    }
}

/// Whether block `bb` of `body` returns without doing anything (through `goto`s).
fn returns_at_once(
    body: &rustc_middle::mir::Body<'_>,
    mut bb: rustc_middle::mir::BasicBlock,
) -> bool {
    use rustc_middle::mir::{StatementKind, TerminatorKind};
    for _ in 0..body.basic_blocks.len() {
        let data = &body.basic_blocks[bb];
        let nothing = data.statements.iter().all(|s| {
            matches!(
                s.kind,
                StatementKind::StorageLive(_) | StatementKind::StorageDead(_) | StatementKind::Nop
            )
        });
        if !nothing {
            return false;
        }
        match data.terminator().kind {
            TerminatorKind::Return => return true,
            TerminatorKind::Goto { target } => bb = target,
            _ => return false,
        }
    }
    false
}

/// A call: its callee and its sites (the calls from the kernel's body to it, it last).
type Call<'g, 'tcx> = (Instance<'tcx>, &'g [CallSite]);

/// One recursion to report.
struct Recursion {
    /// The kernels that reach it.
    kernels: Vec<String>,
    /// Its functions, in call order, by Rust name.
    cycle: Vec<String>,
    /// The functions of the cycle left in the PTX (the others were inlined into them), each
    /// with its local frame.
    frames: Vec<(String, u64)>,
    /// The calls from a kernel's body to the call that closes the cycle.
    sites: Vec<CallSite>,
}

/// Warns about each recursion left in `ptx`, once per cycle of Rust functions (a function
/// reached from kernels of two modes is in the PTX twice).
pub(crate) fn warn<'tcx>(tcx: TyCtxt<'tcx>, graph: &CallGraph<'tcx>, ptx_text: &str) {
    let functions = ptx::functions(ptx_text);
    let groups = ptx::recursive_groups(&functions);
    if groups.is_empty() {
        return;
    }
    let reach: Vec<(&str, Vec<&str>)> = graph
        .kernels
        .iter()
        .map(|k| (k.as_str(), ptx::reachable(&functions, k)))
        .collect();
    let mut found: Vec<Recursion> = Vec::new();
    for group in &groups {
        let in_group = |name: &str| group.iter().any(|g| g == name);
        // The kernels that reach the group, and where the first of them enters it.
        let mut kernels = Vec::new();
        let mut start = None;
        for (kernel, order) in &reach {
            if let Some(&entry) = order.iter().find(|name| in_group(name)) {
                kernels.push(kernel.to_string());
                start.get_or_insert(entry);
            }
        }
        let Some(start) = start else {
            continue;
        };
        let cycle = ptx::cycle_from(&functions, group, start);
        let rust_name = |ptx_name: &str| match graph.by_name.get(ptx_name) {
            Some(&(instance, _)) => display_instance(tcx, instance),
            None => ptx_name.to_string(),
        };
        let frames = cycle
            .iter()
            .map(|n| (rust_name(n), functions[n].frame))
            .collect();
        // Named as the user wrote it: the cycle of calls in MIR, which ends with the call
        // that closes it. (Without MIR for it, which cannot happen, the PTX names.)
        let (names, sites) = match graph.rust_cycle(&cycle) {
            Some(calls) => {
                let names = calls
                    .iter()
                    .map(|(callee, _)| display_instance(tcx, *callee));
                let mut names: Vec<String> = names.collect();
                // The callees, the start last: put the start first.
                names.rotate_right(1);
                let sites = calls.last().map(|(_, s)| s.to_vec()).unwrap_or_default();
                (names, sites)
            }
            None => (cycle.clone(), Vec::new()),
        };
        // The same functions, entered elsewhere from a kernel of another mode.
        let same_functions = |other: &[String]| {
            let (mut a, mut b) = (other.to_vec(), names.clone());
            a.sort();
            b.sort();
            a == b
        };
        if let Some(same) = found.iter_mut().find(|r| same_functions(&r.cycle)) {
            same.kernels.extend(kernels);
            continue;
        }
        found.push(Recursion {
            kernels,
            frames,
            cycle: names,
            sites,
        });
    }
    for mut recursion in found {
        recursion.kernels.sort();
        recursion.kernels.dedup();
        report(tcx, &recursion);
    }
}

fn report(tcx: TyCtxt<'_>, r: &Recursion) {
    let kernels = match &r.kernels[..] {
        [one] => format!("kernel `{one}` recurses"),
        many => format!(
            "kernels {} recurse",
            many.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut cycle: Vec<String> = r.cycle.iter().map(|f| format!("`{f}`")).collect();
    cycle.push(cycle[0].clone());
    let message = format!(
        "oxide: {kernels} ({}): ptxas cannot bound the stack of a recursion, and one deeper than \
         the thread's stack faults on the GPU (CUDA_ERROR_ILLEGAL_ADDRESS)",
        cycle.join(" -> ")
    );
    let (span, label) = match user_site(tcx, &r.sites) {
        Some((i, site)) if i + 1 == r.sites.len() => (site.span, "the recursive call".to_string()),
        Some((_, site)) => (
            site.span,
            format!("this call of `{}` reaches the recursion", site.callee),
        ),
        None => (
            tcx.def_span(rustc_span::def_id::CRATE_DEF_ID),
            String::new(),
        ),
    };
    let mut diag = tcx.dcx().struct_span_warn(span, message);
    if !label.is_empty() {
        diag.span_label(span, label);
    }
    let total: u64 = r.frames.iter().map(|(_, bytes)| bytes).sum();
    if total == 0 {
        diag.note(
            "each level of the recursion takes the registers and return address ptxas saves \
             for a call; ptxas sizes the stack as if each function ran once",
        );
    } else {
        let each: Vec<String> = r
            .frames
            .iter()
            .filter(|(_, bytes)| *bytes > 0)
            .map(|(f, bytes)| format!("`{f}`: {bytes}"))
            .collect();
        diag.note(format!(
            "each level of the recursion takes {total} bytes of stack for its local variables \
             ({}), and more for what ptxas saves for a call; ptxas sizes the stack as if each \
             function ran once",
            each.join(", ")
        ));
    }
    diag.help(
        "rewrite the recursion as a loop that keeps its pending work in a fixed-size array (an \
         explicit stack), whose size is then known at compile time",
    );
    diag.emit();
}

/// The innermost of `sites` in the crate being compiled, with its index: the user's line.
fn user_site<'s>(tcx: TyCtxt<'_>, sites: &'s [CallSite]) -> Option<(usize, &'s CallSite)> {
    let source_map = tcx.sess.source_map();
    let local = |span: Span| {
        let span = span.source_callsite();
        !span.is_dummy()
            && source_map.lookup_source_file(span.lo()).cnum == rustc_span::def_id::LOCAL_CRATE
    };
    sites.iter().enumerate().rev().find(|(_, s)| local(s.span))
}
