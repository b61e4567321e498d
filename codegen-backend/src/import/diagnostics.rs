//! Where an error happened, as the user sees it: the chain of calls from the kernel's body to
//! the construct, through MIR inlining (whose spans point into the inlined callee, often the
//! standard library) and through real calls (recorded when the callee was declared).

use rustc_middle::{mir, ty::Instance};

use super::{FnCx, FnDecl};
use crate::error::{CallSite, DeviceError, DeviceErrorKind, DeviceResult};
use crate::mir_util::display_instance;

impl<'tcx> FnCx<'tcx, '_> {
    /// The calls inlined into this body that lead to `scope`, outermost first: each inlined
    /// scope records its callee and the span of the call it replaced.
    pub(crate) fn inlined_call_sites(&self, scope: mir::SourceScope) -> Vec<CallSite> {
        let mut sites = Vec::new();
        let mut scope = scope;
        loop {
            let data = &self.mir.source_scopes[scope];
            if let Some((callee, span)) = data.inlined {
                // The callee is written in this body's generics.
                let callee = Instance {
                    def: callee.def,
                    args: self.monomorphize(callee.args),
                };
                sites.push(CallSite {
                    span,
                    callee: display_instance(self.m.tcx, callee),
                });
            }
            // Scopes between inlined ones add no call.
            match data.inlined_parent_scope {
                Some(parent) => scope = parent,
                None => break,
            }
        }
        sites.reverse();
        sites
    }

    /// The calls from the kernel's body to the statement being imported.
    fn call_sites_here(&self) -> Vec<CallSite> {
        let mut sites = self.call_sites.clone();
        sites.extend(self.inlined_call_sites(self.scope));
        sites
    }

    /// `e` placed in this function: its call path and call sites, and a span where MIR has none.
    pub(crate) fn locate(&self, mut e: DeviceError) -> DeviceError {
        if e.call_path.is_empty() {
            e.call_path = self.call_path.clone();
            e.call_sites = self.call_sites_here();
        }
        // Some MIR (promoted constants, shims) has no span of its own: point at the function.
        if e.span.is_dummy() {
            e.span = if self.span.is_dummy() {
                self.mir.span
            } else {
                self.span
            };
        }
        e
    }

    /// Keeps `e`, found in block `bb`, unless it only follows from a host-only call already
    /// reported in this function (`host_only`, each with its block).
    pub(crate) fn record(
        &mut self,
        e: DeviceError,
        bb: mir::BasicBlock,
        host_only: &[(mir::BasicBlock, DeviceError)],
    ) {
        // The arguments of the call: `COUNTER` in `COUNTER.with(..)`, the pieces of `write!`.
        let call_span = self.mir.basic_blocks[bb].terminator().source_info.span;
        let in_reported_call = host_only
            .iter()
            .any(|(b, _)| *b == bb && call_span.contains(e.span));
        // What the call made, for the same reason: dropping the `Box` that `Box::new` made.
        let same_reason = |other: &DeviceError| match (&e.kind, &other.kind) {
            (
                DeviceErrorKind::NotOnGpu { why, .. },
                DeviceErrorKind::NotOnGpu { why: other, .. },
            ) => why == other,
            _ => false,
        };
        if in_reported_call || host_only.iter().any(|(_, other)| same_reason(other)) {
            return;
        }
        let e = self.locate(e);
        self.errors.push(e);
    }

    /// The declaration of `callee`, called at the current span, queuing its body with the path
    /// that reaches it.
    pub(crate) fn declare_callee(&mut self, callee: Instance<'tcx>) -> DeviceResult<FnDecl> {
        let call_path = self.call_path.clone();
        let mut sites = self.call_sites_here();
        sites.push(CallSite {
            span: self.span,
            callee: display_instance(self.m.tcx, callee),
        });
        self.m
            .calls
            .entry((self.instance, self.mode))
            .or_default()
            .push((callee, sites.clone()));
        self.m
            .declare(callee, self.mode, self.span, &call_path, sites)
    }
}
