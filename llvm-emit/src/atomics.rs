//! Atomics: `atomicrmw`, `cmpxchg`, `fence`, atomic loads and stores, each with its ordering
//! and sync scope.
//!
//! inkwell neither sets sync scopes nor builds floating-point `atomicrmw`s, so these use
//! LLVM's C API directly.
//!
//! Sync scopes are the ones the NVPTX backend knows: pliron-llvm's `SyncScopeAttr::System`
//! (LLVM's default scope; PTX `.sys`), `NamedScope("device")` (`.gpu`), `NamedScope("cluster")`
//! (`.cluster`) and `NamedScope("block")` (`.cta`). Any other name, and `SingleThread` on
//! anything but a fence (where it is no instruction), is rejected here: NVPTX would abort
//! the process on it later.

use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, InstructionValue};
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, core as llvm};
use pliron::{context::Ptr, op::Op, operation::Operation};
use pliron_llvm::{
    attributes::{AtomicOrderingAttr, AtomicRmwKindAttr, SyncScopeAttr},
    op_interfaces::ATTR_KEY_SYNC_SCOPE,
    ops::{AtomicCmpxchgOp, AtomicLoadOp, AtomicRmwOp, AtomicStoreOp, FenceOp},
};

use crate::{
    errors::EmitError,
    translator::{OpValue, Translator},
};

/// The NVPTX sync scope names, with the PTX scope each becomes (for error messages).
const NVPTX_SCOPES: [(&str, &str); 3] =
    [("block", "cta"), ("cluster", "cluster"), ("device", "gpu")];

fn llvm_ordering(ordering: &AtomicOrderingAttr) -> LLVMAtomicOrdering {
    match ordering {
        AtomicOrderingAttr::Monotonic => LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
        AtomicOrderingAttr::Acquire => LLVMAtomicOrdering::LLVMAtomicOrderingAcquire,
        AtomicOrderingAttr::Release => LLVMAtomicOrdering::LLVMAtomicOrderingRelease,
        AtomicOrderingAttr::AcqRel => LLVMAtomicOrdering::LLVMAtomicOrderingAcquireRelease,
        AtomicOrderingAttr::SeqCst => LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
    }
}

/// Can NVPTX do atomics on `value`'s type? Wider than 64 bits it cannot on the supported PTX
/// ISAs (and stops the process on it); other type errors are LLVM's verifier's to report.
fn atomic_width_ok(value: BasicValueEnum<'_>) -> bool {
    match value {
        BasicValueEnum::IntValue(i) => i.get_type().get_bit_width() <= 64,
        BasicValueEnum::FloatValue(_)
        | BasicValueEnum::PointerValue(_)
        | BasicValueEnum::ArrayValue(_)
        | BasicValueEnum::StructValue(_)
        | BasicValueEnum::VectorValue(_)
        | BasicValueEnum::ScalableVectorValue(_) => true,
    }
}

/// The fences around a monotonic `atomicrmw` that give it `ordering`: (before, after).
///
/// LLVM 22's NVPTX backend prints every `atomicrmw` as a relaxed `atom` at the default `.gpu`
/// scope, whatever its ordering and scope say (later LLVMs honour them). The PTX memory model's
/// mapping of C++ atomics allows a release fence before and an acquire fence after a relaxed
/// `atom` instead of `atom.acq_rel`, and `fence.sc` before one for sequential consistency; the
/// fences carry the op's scope. Only the system scope of the `atom` itself is lost (it is
/// atomic at `.gpu` scope), which no fence can restore.
fn rmw_fences(
    ordering: &AtomicOrderingAttr,
) -> (Option<LLVMAtomicOrdering>, Option<LLVMAtomicOrdering>) {
    use LLVMAtomicOrdering::{
        LLVMAtomicOrderingAcquire as Acquire, LLVMAtomicOrderingRelease as Release,
        LLVMAtomicOrderingSequentiallyConsistent as SeqCst,
    };
    match ordering {
        AtomicOrderingAttr::Monotonic => (None, None),
        AtomicOrderingAttr::Acquire => (None, Some(Acquire)),
        AtomicOrderingAttr::Release => (Some(Release), None),
        AtomicOrderingAttr::AcqRel => (Some(Release), Some(Acquire)),
        AtomicOrderingAttr::SeqCst => (Some(SeqCst), Some(Acquire)),
    }
}

/// What an `atomicrmw` kind operates on: LLVM's verifier insists on the value's type.
#[derive(PartialEq)]
enum RmwOperand {
    /// `xchg`: an integer, a float or a pointer.
    Any,
    Integer,
    Float,
}

fn llvm_rmw(kind: &AtomicRmwKindAttr) -> (LLVMAtomicRMWBinOp, RmwOperand) {
    use LLVMAtomicRMWBinOp as B;
    use RmwOperand::{Any, Float, Integer};
    match kind {
        AtomicRmwKindAttr::Xchg => (B::LLVMAtomicRMWBinOpXchg, Any),
        AtomicRmwKindAttr::Add => (B::LLVMAtomicRMWBinOpAdd, Integer),
        AtomicRmwKindAttr::Sub => (B::LLVMAtomicRMWBinOpSub, Integer),
        AtomicRmwKindAttr::And => (B::LLVMAtomicRMWBinOpAnd, Integer),
        AtomicRmwKindAttr::Nand => (B::LLVMAtomicRMWBinOpNand, Integer),
        AtomicRmwKindAttr::Or => (B::LLVMAtomicRMWBinOpOr, Integer),
        AtomicRmwKindAttr::Xor => (B::LLVMAtomicRMWBinOpXor, Integer),
        AtomicRmwKindAttr::Max => (B::LLVMAtomicRMWBinOpMax, Integer),
        AtomicRmwKindAttr::Min => (B::LLVMAtomicRMWBinOpMin, Integer),
        AtomicRmwKindAttr::UMax => (B::LLVMAtomicRMWBinOpUMax, Integer),
        AtomicRmwKindAttr::UMin => (B::LLVMAtomicRMWBinOpUMin, Integer),
        AtomicRmwKindAttr::FAdd => (B::LLVMAtomicRMWBinOpFAdd, Float),
        AtomicRmwKindAttr::FSub => (B::LLVMAtomicRMWBinOpFSub, Float),
        AtomicRmwKindAttr::FMax => (B::LLVMAtomicRMWBinOpFMax, Float),
        AtomicRmwKindAttr::FMin => (B::LLVMAtomicRMWBinOpFMin, Float),
    }
}

fn operand_fits(kind: &RmwOperand, value: BasicValueEnum<'_>) -> bool {
    match value {
        BasicValueEnum::IntValue(_) => *kind != RmwOperand::Float,
        BasicValueEnum::FloatValue(_) => *kind != RmwOperand::Integer,
        BasicValueEnum::PointerValue(_) => *kind == RmwOperand::Any,
        BasicValueEnum::ArrayValue(_)
        | BasicValueEnum::StructValue(_)
        | BasicValueEnum::VectorValue(_)
        | BasicValueEnum::ScalableVectorValue(_) => false,
    }
}

impl<'ll> Translator<'_, 'll> {
    /// LLVM's id for the op's sync scope, in this LLVM context. (Read here rather than with
    /// `SyncScopeInterface::syncscope`, which panics on an op without one.)
    fn sync_scope(&self, opr: Ptr<Operation>) -> Result<u32, EmitError> {
        let op = opr.deref(self.ctx);
        let Some(scope) = op.attributes.get::<SyncScopeAttr>(&ATTR_KEY_SYNC_SCOPE) else {
            return Err(EmitError::invalid(self.ctx, opr, "missing sync scope"));
        };
        let name = match scope {
            SyncScopeAttr::System => scope.to_name(),
            // NVPTX aborts the process on it.
            SyncScopeAttr::SingleThread => {
                return Err(EmitError::invalid(
                    self.ctx,
                    opr,
                    "the single-thread sync scope has no NVPTX equivalent",
                ));
            }
            SyncScopeAttr::NamedScope(name) => {
                let name = name.as_str();
                if !NVPTX_SCOPES.iter().any(|(known, _)| *known == name) {
                    let known: Vec<String> = NVPTX_SCOPES
                        .iter()
                        .map(|(llvm, ptx)| format!("\"{llvm}\" (.{ptx})"))
                        .collect();
                    return Err(EmitError::invalid(
                        self.ctx,
                        opr,
                        format!(
                            "sync scope \"{name}\" is not an NVPTX scope; the named ones are {}, \
                             and the system scope (.sys) is the default one",
                            known.join(", ")
                        ),
                    ));
                }
                // Before Hopper a cluster is one block, so the device scope covers it; NVPTX
                // aborts on a cluster scope there.
                if name == "cluster" && !self.cluster_scope {
                    "device".to_string()
                } else {
                    name.to_string()
                }
            }
        };
        // SAFETY: the pointer and length describe `name`, which outlives the call.
        Ok(unsafe { llvm::LLVMGetSyncScopeID(self.ll.raw(), name.as_ptr().cast(), name.len()) })
    }

    /// Gives an instruction built through the C API the op's result name and returns it as the
    /// op's value.
    fn named(
        &self,
        opr: Ptr<Operation>,
        raw: llvm_sys::prelude::LLVMValueRef,
    ) -> BasicValueEnum<'ll> {
        // SAFETY: `raw` is a non-void instruction just built in this context.
        let value = unsafe { BasicValueEnum::new(raw) };
        value.set_name(&self.result_name(opr));
        value
    }

    /// `llvm.atomicrmw`: the old value.
    pub(crate) fn atomic_rmw(&mut self, op: AtomicRmwOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let (Some(kind), Some(ordering)) = (
            op.get_attr_llvm_rmw_kind(ctx),
            op.get_attr_llvm_rmw_ordering(ctx),
        ) else {
            return Err(EmitError::invalid(ctx, opr, "missing kind or ordering"));
        };
        let (binop, wants) = llvm_rmw(&kind);
        let ptr = self.pointer_operand(opr, 0)?;
        let value = self.operand(opr, 1)?;
        if !operand_fits(&wants, value) || !atomic_width_ok(value) {
            return Err(EmitError::invalid(
                ctx,
                opr,
                format!(
                    "atomicrmw {kind:?} cannot operate on {}",
                    value.get_type().print_to_string().to_string()
                ),
            ));
        }
        let scope = self.sync_scope(opr)?;
        let (leading, trailing) = rmw_fences(&ordering);
        if let Some(fence) = leading {
            self.build_fence(fence, scope);
        }
        // SAFETY: the builder is positioned, the operands are a pointer and a value of a type
        // the operation takes, all of this context.
        let raw = unsafe {
            llvm::LLVMBuildAtomicRMWSyncScope(
                self.builder.as_mut_ptr(),
                binop,
                ptr.as_value_ref(),
                value.as_value_ref(),
                LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                scope,
            )
        };
        let old = self.named(opr, raw);
        if let Some(fence) = trailing {
            self.build_fence(fence, scope);
        }
        Ok(Some(old))
    }

    fn build_fence(&self, ordering: LLVMAtomicOrdering, scope: u32) {
        // SAFETY: the builder is positioned; a fence has no operands.
        unsafe {
            llvm::LLVMBuildFenceSyncScope(self.builder.as_mut_ptr(), ordering, scope, c"".as_ptr())
        };
    }

    /// `llvm.cmpxchg`: `{ loaded value, success }`.
    pub(crate) fn cmpxchg(&mut self, op: AtomicCmpxchgOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let (Some(success), Some(failure)) = (
            op.get_attr_llvm_cas_success_ordering(ctx),
            op.get_attr_llvm_cas_failure_ordering(ctx),
        ) else {
            return Err(EmitError::invalid(ctx, opr, "missing orderings"));
        };
        let ptr = self.pointer_operand(opr, 0)?;
        let (cmp, new) = (self.operand(opr, 1)?, self.operand(opr, 2)?);
        let scalar = matches!(
            cmp,
            BasicValueEnum::IntValue(_) | BasicValueEnum::PointerValue(_)
        );
        if !scalar || cmp.get_type() != new.get_type() || !atomic_width_ok(cmp) {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "the compared and the new value must be integers (of 64 bits at most) or \
                 pointers, of one type",
            ));
        }
        let scope = self.sync_scope(opr)?;
        // SAFETY: as for `atomicrmw`; both values have one integer or pointer type.
        let raw = unsafe {
            llvm::LLVMBuildAtomicCmpXchgSyncScope(
                self.builder.as_mut_ptr(),
                ptr.as_value_ref(),
                cmp.as_value_ref(),
                new.as_value_ref(),
                llvm_ordering(&success),
                llvm_ordering(&failure),
                scope,
            )
        };
        Ok(Some(self.named(opr, raw)))
    }

    /// `llvm.fence`.
    pub(crate) fn fence(&mut self, op: FenceOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(ordering) = op.get_attr_llvm_fence_ordering(ctx) else {
            return Err(EmitError::invalid(ctx, opr, "missing ordering"));
        };
        if *ordering == AtomicOrderingAttr::Monotonic {
            return Err(EmitError::invalid(ctx, opr, "a fence cannot be monotonic"));
        }
        // A single-thread fence only orders against signal handlers of the same thread, which
        // GPU threads do not have, so it is no instruction (NVPTX would abort on one).
        let single_thread = opr
            .deref(ctx)
            .attributes
            .get::<SyncScopeAttr>(&ATTR_KEY_SYNC_SCOPE)
            .is_some_and(|s| *s == SyncScopeAttr::SingleThread);
        if !single_thread {
            let scope = self.sync_scope(opr)?;
            self.build_fence(llvm_ordering(&ordering), scope);
        }
        Ok(None)
    }

    /// Makes a plain load or store atomic.
    fn make_atomic(
        &self,
        opr: Ptr<Operation>,
        inst: InstructionValue<'ll>,
        value: BasicValueEnum<'ll>,
        ordering: &AtomicOrderingAttr,
    ) -> Result<(), EmitError> {
        if !atomic_width_ok(value) {
            return Err(EmitError::invalid(
                self.ctx,
                opr,
                "NVPTX has no atomic loads or stores wider than 64 bits",
            ));
        }
        let scope = self.sync_scope(opr)?;
        // SAFETY: `inst` is a load or a store; LLVM takes any ordering and scope on those
        // (the verifier rejects the combinations it does not allow).
        unsafe {
            llvm::LLVMSetOrdering(inst.as_value_ref(), llvm_ordering(ordering));
            llvm::LLVMSetAtomicSyncScopeID(inst.as_value_ref(), scope);
        }
        self.memory_attrs(opr, Some(inst))
    }

    /// `llvm.atomic_load`.
    pub(crate) fn atomic_load(&mut self, op: AtomicLoadOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(ordering) = op.get_attr_llvm_ld_ordering(ctx) else {
            return Err(EmitError::invalid(ctx, opr, "missing ordering"));
        };
        let ptr = self.pointer_operand(opr, 0)?;
        let ty = self.result_type(opr)?;
        let value = self.built(
            opr,
            self.builder.build_load(ty, ptr, &self.result_name(opr)),
        )?;
        let inst = value
            .as_instruction_value()
            .ok_or_else(|| EmitError::invalid(ctx, opr, "the load was folded away"))?;
        self.make_atomic(opr, inst, value, &ordering)?;
        Ok(Some(value))
    }

    /// `llvm.atomic_store`.
    pub(crate) fn atomic_store(&mut self, op: AtomicStoreOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(ordering) = op.get_attr_llvm_st_ordering(ctx) else {
            return Err(EmitError::invalid(ctx, opr, "missing ordering"));
        };
        let value = self.operand(opr, 0)?;
        let ptr = self.pointer_operand(opr, 1)?;
        let inst = self.built(opr, self.builder.build_store(ptr, value))?;
        self.make_atomic(opr, inst, value, &ordering)?;
        Ok(None)
    }
}
