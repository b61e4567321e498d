//! MIR terminators: control flow, returns, asserts (which trap on failure).

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::mir::TrapOp;
use pliron::{
    builtin::attributes::IntegerAttr,
    builtin::types::{IntegerType, Signedness},
    utils::apint::APInt,
};
use pliron_llvm::{
    attributes::ICmpPredicateAttr,
    ops::{BrOp, CondBrOp, ReturnOp, SwitchCase, SwitchOp},
};
use rustc_middle::mir::{self, AssertKind, TerminatorKind};

use super::{FnCx, LocalPlace, abi::RetPass, operands::OperandVal};
use crate::error::{DeviceError, DeviceErrorKind, DeviceResult, not_on_gpu, unsupported};

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn terminator(&mut self, term: &mir::Terminator<'tcx>) -> DeviceResult<()> {
        match &term.kind {
            TerminatorKind::Goto { target }
            | TerminatorKind::FalseEdge {
                real_target: target,
                ..
            }
            | TerminatorKind::FalseUnwind {
                real_target: target,
                ..
            } => self.goto(*target),
            TerminatorKind::SwitchInt { discr, targets } => self.switch_int(discr, targets),
            TerminatorKind::Return => self.ret(),
            TerminatorKind::Unreachable => self.trap("entered unreachable code"),
            TerminatorKind::UnwindResume | TerminatorKind::UnwindTerminate(_) => {
                self.trap("unwinding")
            }
            TerminatorKind::Drop { place, target, .. } => self.drop_place(*place, *target),
            TerminatorKind::Call {
                func,
                args,
                destination,
                target,
                fn_span,
                ..
            } => {
                self.span = *fn_span;
                self.call(func, args, *destination, *target)
            }
            TerminatorKind::Assert {
                cond,
                expected,
                msg,
                target,
                ..
            } => {
                // An overflow check inherited from std (`#[rustc_inherit_overflow_checks]`, e.g.
                // `i32::abs`, `Sum for i32`) follows the kernel crate's setting, as on the host:
                // without overflow checks the operation wraps.
                if msg.is_optional_overflow_check() && !self.m.tcx.sess.overflow_checks() {
                    return self.goto(*target);
                }
                let cond = self.operand(cond)?.immediate(self.span)?;
                let ok = self.block(*target);
                let fail = self.new_block("panic");
                let (if_true, if_false) = if *expected { (ok, fail) } else { (fail, ok) };
                self.emit(|ctx| CondBrOp::new(ctx, cond, if_true, vec![], if_false, vec![]));
                self.cur = fail;
                self.trap(&assert_message(msg))
            }
            TerminatorKind::TailCall { .. } => {
                unsupported(self.span, "`become` (explicit tail calls)")
            }
            TerminatorKind::InlineAsm { .. } => not_on_gpu(
                self.span,
                "inline assembly",
                "it is written for the host's instruction set; PTX inline assembly is not supported",
            ),
            TerminatorKind::Yield { .. } | TerminatorKind::CoroutineDrop => {
                not_on_gpu(self.span, "a coroutine", "kernels run to completion")
            }
        }
    }

    /// Runs the drop glue of `place`: destructors run on the GPU like any device code, and types
    /// that own heap memory are rejected where they free it.
    fn drop_place(&mut self, place: mir::Place<'tcx>, target: mir::BasicBlock) -> DeviceResult<()> {
        let tcx = self.m.tcx;
        let ty = self.monomorphize(place.ty(self.mir, tcx).ty);
        let glue = rustc_middle::ty::Instance::resolve_drop_glue(tcx, ty);
        if let rustc_middle::ty::InstanceKind::DropGlue(_, None) = glue.def {
            return self.goto(target);
        }
        let heap = ty.is_box()
            || ty
                .ty_adt_def()
                .is_some_and(|adt| tcx.crate_name(adt.did().krate) == rustc_span::sym::alloc);
        if heap {
            let kind = DeviceErrorKind::HeapDrop { ty: ty.to_string() };
            return Err(DeviceError::new(self.span, kind));
        }
        let place = self.place(place)?;
        let ptr_ty = rustc_middle::ty::Ty::new_mut_ptr(tcx, ty);
        let ptr_layout = self.layout_of(ptr_ty)?;
        let decl = self.declare_callee(glue)?;
        let unit = self.layout_of(tcx.types.unit)?;
        let dest = super::places::PlaceRef::new_sized(place.ptr, unit);
        let arg = super::operands::Operand {
            val: OperandVal::Imm(place.ptr),
            layout: ptr_layout,
        };
        self.emit_device_call(&decl, vec![arg], dest)?;
        self.goto(target)
    }

    pub(crate) fn goto(&mut self, target: mir::BasicBlock) -> DeviceResult<()> {
        let block = self.block(target);
        self.emit(|ctx| BrOp::new(ctx, block, vec![]));
        Ok(())
    }

    pub(crate) fn trap(&mut self, message: &str) -> DeviceResult<()> {
        self.emit(|ctx| TrapOp::new(ctx, message));
        Ok(())
    }

    fn switch_int(
        &mut self,
        discr: &mir::Operand<'tcx>,
        targets: &mir::SwitchTargets,
    ) -> DeviceResult<()> {
        let discr = self.operand(discr)?;
        let value = discr.immediate(self.span)?;
        let bits = if discr.layout.ty.is_bool() {
            1
        } else {
            discr.layout.size.bits()
        };
        let otherwise = self.block(targets.otherwise());
        let cases: Vec<(u128, mir::BasicBlock)> = targets.iter().collect();
        if let [(case, target)] = cases[..] {
            let case_value = self.const_int(bits, case);
            let is_case = self.icmp(ICmpPredicateAttr::EQ, value, case_value);
            let target = self.block(target);
            self.emit(|ctx| CondBrOp::new(ctx, is_case, target, vec![], otherwise, vec![]));
            return Ok(());
        }
        // A two-way match whose other values cannot occur (an `Option`'s or a `bool`'s
        // discriminant) is a conditional branch, as rustc's LLVM backend emits it: a `switch`
        // with a trapping default keeps LLVM from simplifying it, and its SimplifyCFG drops a
        // loop's `llvm.loop` mark (`oxide::unroll`'s) where it rewrites such a `switch`.
        if let [(case, target), (_, other)] = cases[..]
            && self.mir.basic_blocks[targets.otherwise()].is_empty_unreachable()
        {
            let case_value = self.const_int(bits, case);
            let is_case = self.icmp(ICmpPredicateAttr::EQ, value, case_value);
            let (target, other) = (self.block(target), self.block(other));
            self.emit(|ctx| CondBrOp::new(ctx, is_case, target, vec![], other, vec![]));
            return Ok(());
        }
        let int_ty = IntegerType::get(self.ctx(), bits as u32, Signedness::Signless);
        let width = std::num::NonZero::new(bits as usize).expect("width");
        let cases = cases
            .into_iter()
            .map(|(case, target)| SwitchCase {
                value: IntegerAttr::new(int_ty, APInt::from_u128(case, width)),
                dest: self.block(target),
                dest_opds: vec![],
            })
            .collect();
        self.emit(|ctx| SwitchOp::new(ctx, value, otherwise, vec![], cases));
        Ok(())
    }

    fn ret(&mut self) -> DeviceResult<()> {
        let ret_local = mir::RETURN_PLACE;
        match self.abi.as_ref().map(|a| a.ret.clone()) {
            None | Some(RetPass::Void) => {
                self.emit(|ctx| ReturnOp::new(ctx, None));
            }
            Some(RetPass::Imm) => {
                let place = self.place(mir::Place::from(ret_local))?;
                let value = self.load_operand(place)?.immediate(self.span)?;
                self.emit(|ctx| ReturnOp::new(ctx, Some(value)));
            }
            Some(RetPass::OutPtr) => {
                if let LocalPlace::Slot(slot) = self.locals[ret_local] {
                    let out = self.ret_out.expect("out pointer parameter");
                    let dest = super::places::PlaceRef::new_sized(out, slot.layout);
                    self.store_operand(
                        super::operands::Operand {
                            val: OperandVal::Mem(slot.ptr, slot.align),
                            layout: slot.layout,
                        },
                        dest,
                    )?;
                }
                self.emit(|ctx| ReturnOp::new(ctx, None));
            }
        }
        Ok(())
    }
}

fn assert_message(msg: &AssertKind<mir::Operand<'_>>) -> String {
    match msg {
        AssertKind::BoundsCheck { .. } => "index out of bounds".into(),
        AssertKind::Overflow(op, ..) => format!("attempt to compute `{op:?}` with overflow"),
        AssertKind::OverflowNeg(_) => "attempt to negate with overflow".into(),
        AssertKind::DivisionByZero(_) => "attempt to divide by zero".into(),
        AssertKind::RemainderByZero(_) => {
            "attempt to calculate the remainder with a divisor of zero".into()
        }
        AssertKind::MisalignedPointerDereference { .. } => "misaligned pointer dereference".into(),
        AssertKind::NullPointerDereference => "null pointer dereference".into(),
        other => format!("assertion failed: {other:?}"),
    }
}
