//! `core::intrinsics::atomic_*` (what `core::sync::atomic` is built on) to LLVM atomics.
//!
//! Scope: `core`'s atomics are device-scoped (`syncscope("device")`, PTX `.gpu`), what CUDA's
//! `atomicAdd` and friends are. They order and are atomic with respect to every thread of the
//! launch; host-mapped memory shared with the CPU needs system scope, which device-std's scoped
//! atomics give.

#[allow(unused_imports)]
use crate::import::prelude::*;
use pliron_llvm::{
    attributes::{AtomicOrderingAttr, SyncScopeAttr},
    op_interfaces::AlignableOpInterface,
    ops::{AtomicCmpxchgOp, AtomicLoadOp, AtomicRmwOp, AtomicStoreOp, ExtractValueOp, FenceOp},
};
use rustc_middle::{
    mir::{self, Operand as MirOperand},
    ty::{self, Instance},
};
use rustc_span::Spanned;

use super::{
    FnCx,
    operands::{Operand, OperandVal},
};
use crate::error::{DeviceResult, unsupported};
use crate::registry::atomics::{AtomicIntrinsic, AtomicScope, ScopedOp};

fn device_scope() -> SyncScopeAttr {
    AtomicScope::Device.attr()
}

/// The failure ordering of a compare-exchange whose success ordering is `success`: the
/// strongest a failed load may have (a load cannot release).
fn failure_ordering(success: &AtomicOrderingAttr) -> AtomicOrderingAttr {
    match success {
        AtomicOrderingAttr::Monotonic | AtomicOrderingAttr::Release => {
            AtomicOrderingAttr::Monotonic
        }
        AtomicOrderingAttr::Acquire | AtomicOrderingAttr::AcqRel => AtomicOrderingAttr::Acquire,
        AtomicOrderingAttr::SeqCst => AtomicOrderingAttr::SeqCst,
    }
}

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn atomic_intrinsic(
        &mut self,
        atomic: AtomicIntrinsic,
        instance: Instance<'tcx>,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let orderings = self.atomic_orderings(instance)?;
        let mut values = Vec::new();
        for arg in args {
            values.push(self.operand(&arg.node)?.immediate(self.span)?);
        }
        let dest = self.place(destination)?;
        let ordering = |i: usize| orderings.get(i).cloned().ok_or(());
        let bad_args = || unsupported(self.span, "an atomic intrinsic with these arguments");
        let result = match (atomic, values.as_slice()) {
            (AtomicIntrinsic::Load, &[ptr]) => {
                let Ok(ordering) = ordering(0) else {
                    return bad_args();
                };
                let ty = self.immediate_type(dest.layout)?;
                let align = dest.layout.align.abi.bytes() as u32;
                let load = self.emit(|ctx| {
                    let load = AtomicLoadOp::new(ctx, ptr, ty, ordering, device_scope());
                    load.set_alignment(ctx, align);
                    load
                });
                Some(OperandVal::Imm(
                    load.get_operation().deref(&self.m.ctx).get_result(0),
                ))
            }
            (AtomicIntrinsic::Store, &[ptr, value]) => {
                let Ok(ordering) = ordering(0) else {
                    return bad_args();
                };
                let align = self.layout_of(instance.args.type_at(0))?.align.abi.bytes() as u32;
                self.emit(|ctx| {
                    let store = AtomicStoreOp::new(ctx, value, ptr, ordering, device_scope());
                    store.set_alignment(ctx, align);
                    store
                });
                None
            }
            (AtomicIntrinsic::ReadModifyWrite(kind), &[ptr, value]) => {
                let Ok(ordering) = ordering(0) else {
                    return bad_args();
                };
                Some(OperandVal::Imm(self.emit_value(|ctx| {
                    AtomicRmwOp::new(ctx, ptr, value, kind.attr(), ordering, device_scope())
                })))
            }
            (AtomicIntrinsic::CompareExchange, &[ptr, expected, new]) => {
                let (Ok(success), Ok(failure)) = (ordering(0), ordering(1)) else {
                    return bad_args();
                };
                let pair = self.emit_value(|ctx| {
                    AtomicCmpxchgOp::new(ctx, ptr, expected, new, success, failure, device_scope())
                });
                let old = ExtractValueOp::new(&mut self.m.ctx, pair, vec![0])
                    .map_err(|e| self.internal(e))?;
                let old = self.push_value(old);
                let ok = ExtractValueOp::new(&mut self.m.ctx, pair, vec![1])
                    .map_err(|e| self.internal(e))?;
                let ok = self.push_value(ok);
                Some(OperandVal::Pair(old, ok))
            }
            (AtomicIntrinsic::Fence | AtomicIntrinsic::SingleThreadFence, &[]) => {
                let Ok(ordering) = ordering(0) else {
                    return bad_args();
                };
                let scope = if atomic == AtomicIntrinsic::Fence {
                    device_scope()
                } else {
                    SyncScopeAttr::SingleThread
                };
                // A relaxed fence orders nothing.
                if ordering != AtomicOrderingAttr::Monotonic {
                    self.emit(|ctx| FenceOp::new(ctx, ordering, scope));
                }
                None
            }
            _ => return bad_args(),
        };
        if let Some(val) = result {
            self.store_operand(
                Operand {
                    val,
                    layout: dest.layout,
                },
                dest,
            )?;
        }
        self.finish_call(target)
    }

    /// A call of a device-std scoped atomic: `op` at `scope` with `ordering`, on the call's
    /// scalar arguments (docs/contracts.md, "Device intrinsics").
    pub(crate) fn scoped_atomic(
        &mut self,
        path: &str,
        (op, scope, ordering): (ScopedOp, AtomicScope, AtomicOrderingAttr),
        values: &[pliron::value::Value],
    ) -> DeviceResult<Option<pliron::value::Value>> {
        let scope = scope.attr();
        match (op, values) {
            (ScopedOp::ReadModifyWrite(kind), &[ptr, value]) => Ok(Some(self.emit_value(|ctx| {
                AtomicRmwOp::new(ctx, ptr, value, kind.attr(), ordering, scope)
            }))),
            (ScopedOp::CompareExchange, &[ptr, expected, new]) => {
                let failure = failure_ordering(&ordering);
                let pair = self.emit_value(|ctx| {
                    AtomicCmpxchgOp::new(ctx, ptr, expected, new, ordering, failure, scope)
                });
                let old = ExtractValueOp::new(&mut self.m.ctx, pair, vec![0])
                    .map_err(|e| self.internal(e))?;
                Ok(Some(self.push_value(old)))
            }
            (ScopedOp::Fence, &[]) => {
                if ordering != AtomicOrderingAttr::Monotonic {
                    self.emit(|ctx| FenceOp::new(ctx, ordering, scope));
                }
                Ok(None)
            }
            _ => unsupported(
                self.span,
                format!("`{path}` (a scoped atomic with {} arguments)", values.len()),
            ),
        }
    }

    /// The instance's const generic `AtomicOrdering` arguments, in order.
    fn atomic_orderings(&self, instance: Instance<'tcx>) -> DeviceResult<Vec<AtomicOrderingAttr>> {
        instance
            .args
            .consts()
            .map(|c| {
                // `AtomicOrdering` is a fieldless enum: a branch holding its discriminant.
                let ordering = c
                    .to_value()
                    .to_branch()
                    .first()
                    .map(|discriminant| discriminant.to_leaf().to_atomic_ordering());
                match ordering {
                    Some(ty::AtomicOrdering::Relaxed) => Ok(AtomicOrderingAttr::Monotonic),
                    Some(ty::AtomicOrdering::Acquire) => Ok(AtomicOrderingAttr::Acquire),
                    Some(ty::AtomicOrdering::Release) => Ok(AtomicOrderingAttr::Release),
                    Some(ty::AtomicOrdering::AcqRel) => Ok(AtomicOrderingAttr::AcqRel),
                    Some(ty::AtomicOrdering::SeqCst) => Ok(AtomicOrderingAttr::SeqCst),
                    None => unsupported(self.span, "an atomic ordering that is not a constant"),
                }
            })
            .collect()
    }
}
