//! Arithmetic, comparisons, casts, `select`, `freeze` and constants.

use inkwell::{
    FloatPredicate, IntPredicate,
    values::{
        AsValueRef, BasicValue, BasicValueEnum, FastMathFlags, InstructionOpcode, InstructionValue,
    },
};
use pliron::{builtin::attributes::BoolAttr, context::Ptr, op::Op, operation::Operation};
use pliron_llvm::{
    attributes::{
        FCmpPredicateAttr, FastmathFlags, FastmathFlagsAttr, ICmpPredicateAttr,
        IntegerOverflowFlagsAttr,
    },
    op_interfaces::{
        ATTR_KEY_FAST_MATH_FLAGS, ATTR_KEY_INTEGER_OVERFLOW_FLAGS, ATTR_KEY_NNEG_FLAG,
    },
    ops::{ConstantOp, FCmpOp, ICmpOp, SelectOp},
};

use crate::{
    constants::undef_or_poison,
    errors::EmitError,
    translator::{OpValue, Translator},
};

/// pliron's fast-math bits are numbered differently from LLVM's, so map them one by one.
fn llvm_fast_math(flags: FastmathFlagsAttr) -> FastMathFlags {
    const MAP: [(FastmathFlags, FastMathFlags); 7] = [
        (FastmathFlags::NNAN, FastMathFlags::NoNaNs),
        (FastmathFlags::NINF, FastMathFlags::NoInfs),
        (FastmathFlags::NSZ, FastMathFlags::NoSignedZeros),
        (FastmathFlags::ARCP, FastMathFlags::AllowReciprocal),
        (FastmathFlags::CONTRACT, FastMathFlags::AllowContract),
        (FastmathFlags::AFN, FastMathFlags::ApproxFunc),
        (FastmathFlags::REASSOC, FastMathFlags::AllowReassoc),
    ];
    MAP.iter()
        .filter(|(p, _)| flags.0.contains(*p))
        .fold(FastMathFlags::empty(), |acc, (_, l)| acc | *l)
}

/// Sets fast-math flags on `inst`. Constant-folded results are not instructions and carry no
/// flags; LLVM also refuses flags on non-FP instructions, which the pliron verifier already
/// rules out, so both are silently skipped.
pub(crate) fn apply_fast_math(inst: Option<InstructionValue<'_>>, flags: FastmathFlagsAttr) {
    if let Some(inst) = inst
        && !flags.0.is_empty()
    {
        let _ = inst.set_fast_math_flags(llvm_fast_math(flags));
    }
}

fn int_predicate(p: &ICmpPredicateAttr) -> IntPredicate {
    match p {
        ICmpPredicateAttr::EQ => IntPredicate::EQ,
        ICmpPredicateAttr::NE => IntPredicate::NE,
        ICmpPredicateAttr::SLT => IntPredicate::SLT,
        ICmpPredicateAttr::SLE => IntPredicate::SLE,
        ICmpPredicateAttr::SGT => IntPredicate::SGT,
        ICmpPredicateAttr::SGE => IntPredicate::SGE,
        ICmpPredicateAttr::ULT => IntPredicate::ULT,
        ICmpPredicateAttr::ULE => IntPredicate::ULE,
        ICmpPredicateAttr::UGT => IntPredicate::UGT,
        ICmpPredicateAttr::UGE => IntPredicate::UGE,
    }
}

fn float_predicate(p: &FCmpPredicateAttr) -> FloatPredicate {
    match p {
        FCmpPredicateAttr::False => FloatPredicate::PredicateFalse,
        FCmpPredicateAttr::OEQ => FloatPredicate::OEQ,
        FCmpPredicateAttr::OGT => FloatPredicate::OGT,
        FCmpPredicateAttr::OGE => FloatPredicate::OGE,
        FCmpPredicateAttr::OLT => FloatPredicate::OLT,
        FCmpPredicateAttr::OLE => FloatPredicate::OLE,
        FCmpPredicateAttr::ONE => FloatPredicate::ONE,
        FCmpPredicateAttr::ORD => FloatPredicate::ORD,
        FCmpPredicateAttr::UEQ => FloatPredicate::UEQ,
        FCmpPredicateAttr::UGT => FloatPredicate::UGT,
        FCmpPredicateAttr::UGE => FloatPredicate::UGE,
        FCmpPredicateAttr::ULT => FloatPredicate::ULT,
        FCmpPredicateAttr::ULE => FloatPredicate::ULE,
        FCmpPredicateAttr::UNE => FloatPredicate::UNE,
        FCmpPredicateAttr::UNO => FloatPredicate::UNO,
        FCmpPredicateAttr::True => FloatPredicate::PredicateTrue,
    }
}

impl<'ll> Translator<'_, 'll> {
    /// The fast-math flags under the shared `llvm_fast_math_flags` key, if any.
    fn fast_math_attr(&self, opr: Ptr<Operation>) -> Option<FastmathFlagsAttr> {
        let op = opr.deref(self.ctx);
        op.attributes
            .get::<FastmathFlagsAttr>(&ATTR_KEY_FAST_MATH_FLAGS)
            .copied()
    }

    /// An integer binary op; `opcode` is the one its dispatch entry names.
    pub(crate) fn int_binop(
        &mut self,
        opr: Ptr<Operation>,
        opcode: InstructionOpcode,
    ) -> OpValue<'ll> {
        let (lhs, rhs) = (self.operand(opr, 0)?, self.operand(opr, 1)?);
        let value = self.built(
            opr,
            self.builder
                .build_binop(opcode, lhs, rhs, &self.result_name(opr)),
        )?;
        let flags = opr
            .deref(self.ctx)
            .attributes
            .get::<IntegerOverflowFlagsAttr>(&ATTR_KEY_INTEGER_OVERFLOW_FLAGS)
            .cloned();
        if let (Some(flags), Some(inst)) = (flags, value.as_instruction_value()) {
            // Only add/sub/mul/shl accept these; pliron only allows the attribute on those.
            let _ = inst.set_no_signed_wrap_flag(flags.nsw);
            let _ = inst.set_no_unsigned_wrap_flag(flags.nuw);
        }
        Ok(Some(value))
    }

    /// A floating-point binary op; `opcode` is the one its dispatch entry names.
    pub(crate) fn float_binop(
        &mut self,
        opr: Ptr<Operation>,
        opcode: InstructionOpcode,
    ) -> OpValue<'ll> {
        let (lhs, rhs) = (self.operand(opr, 0)?, self.operand(opr, 1)?);
        let value = self.built(
            opr,
            self.builder
                .build_binop(opcode, lhs, rhs, &self.result_name(opr)),
        )?;
        if let Some(fmf) = self.fast_math_attr(opr) {
            apply_fast_math(value.as_instruction_value(), fmf);
        }
        Ok(Some(value))
    }

    pub(crate) fn fneg(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let name = self.result_name(opr);
        let value: BasicValueEnum<'ll> = match self.operand(opr, 0)? {
            BasicValueEnum::FloatValue(v) => self
                .built(opr, self.builder.build_float_neg(v, &name))?
                .into(),
            BasicValueEnum::VectorValue(v) => self
                .built(opr, self.builder.build_float_neg(v, &name))?
                .into(),
            _ => return Err(EmitError::invalid(self.ctx, opr, "operand is not a float")),
        };
        if let Some(fmf) = self.fast_math_attr(opr) {
            apply_fast_math(value.as_instruction_value(), fmf);
        }
        Ok(Some(value))
    }

    pub(crate) fn icmp(&mut self, op: ICmpOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(pred) = op
            .get_attr_llvm_icmp_predicate(ctx)
            .map(|p| int_predicate(&p))
        else {
            return Err(EmitError::invalid(ctx, opr, "missing predicate"));
        };
        let name = self.result_name(opr);
        let b = &self.builder;
        let value: BasicValueEnum<'ll> = match (self.operand(opr, 0)?, self.operand(opr, 1)?) {
            (BasicValueEnum::IntValue(l), BasicValueEnum::IntValue(r)) => self
                .built(opr, b.build_int_compare(pred, l, r, &name))?
                .into(),
            (BasicValueEnum::PointerValue(l), BasicValueEnum::PointerValue(r)) => self
                .built(opr, b.build_int_compare(pred, l, r, &name))?
                .into(),
            (BasicValueEnum::VectorValue(l), BasicValueEnum::VectorValue(r)) => self
                .built(opr, b.build_int_compare(pred, l, r, &name))?
                .into(),
            _ => return Err(EmitError::invalid(ctx, opr, "operands are not comparable")),
        };
        Ok(Some(value))
    }

    pub(crate) fn fcmp(&mut self, op: FCmpOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(pred) = op
            .get_attr_llvm_fcmp_predicate(ctx)
            .map(|p| float_predicate(&p))
        else {
            return Err(EmitError::invalid(ctx, opr, "missing predicate"));
        };
        let name = self.result_name(opr);
        let b = &self.builder;
        let value: BasicValueEnum<'ll> = match (self.operand(opr, 0)?, self.operand(opr, 1)?) {
            (BasicValueEnum::FloatValue(l), BasicValueEnum::FloatValue(r)) => self
                .built(opr, b.build_float_compare(pred, l, r, &name))?
                .into(),
            (BasicValueEnum::VectorValue(l), BasicValueEnum::VectorValue(r)) => self
                .built(opr, b.build_float_compare(pred, l, r, &name))?
                .into(),
            _ => return Err(EmitError::invalid(ctx, opr, "operands are not floats")),
        };
        if let Some(fmf) = self.fast_math_attr(opr) {
            apply_fast_math(value.as_instruction_value(), fmf);
        }
        Ok(Some(value))
    }

    /// A cast; `opcode` is the one its dispatch entry names.
    pub(crate) fn cast(&mut self, opr: Ptr<Operation>, opcode: InstructionOpcode) -> OpValue<'ll> {
        let arg = self.operand(opr, 0)?;
        let to = self.result_type(opr)?;
        let value = self.built(
            opr,
            self.builder
                .build_cast(opcode, arg, to, &self.result_name(opr)),
        )?;
        let Some(inst) = value.as_instruction_value() else {
            return Ok(Some(value));
        };
        let op = opr.deref(self.ctx);
        if let Some(fmf) = op
            .attributes
            .get::<FastmathFlagsAttr>(&ATTR_KEY_FAST_MATH_FLAGS)
        {
            apply_fast_math(Some(inst), *fmf);
        }
        let nneg = op
            .attributes
            .get::<BoolAttr>(&ATTR_KEY_NNEG_FLAG)
            .is_some_and(|b| bool::from(b.clone()));
        if nneg && matches!(opcode, InstructionOpcode::ZExt | InstructionOpcode::UIToFP) {
            // inkwell only exposes `nneg` for zext; LLVM's C API takes both.
            unsafe { llvm_sys::core::LLVMSetNNeg(inst.as_value_ref(), 1) };
        }
        Ok(Some(value))
    }

    pub(crate) fn select(&mut self, op: SelectOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let (then, otherwise) = (self.operand(opr, 1)?, self.operand(opr, 2)?);
        let name = self.result_name(opr);
        let value = match self.operand(opr, 0)? {
            BasicValueEnum::IntValue(c) => self.builder.build_select(c, then, otherwise, &name),
            BasicValueEnum::VectorValue(c) => self.builder.build_select(c, then, otherwise, &name),
            _ => return Err(EmitError::invalid(ctx, opr, "condition is not an i1")),
        };
        let value = self.built(opr, value)?;
        if let Some(fmf) = op.get_attr_llvm_select_fast_math_flags(ctx).map(|f| *f) {
            apply_fast_math(value.as_instruction_value(), fmf);
        }
        Ok(Some(value))
    }

    /// `llvm.constant`: any of the attributes [`crate::constants`] supports.
    pub(crate) fn constant(&mut self, op: ConstantOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let Some(attr) = op.get_attr_llvm_constant_value(ctx) else {
            return Err(EmitError::invalid(ctx, opr, "missing value"));
        };
        let ty = opr.deref(ctx).get_type(0);
        self.const_value(opr, &**attr, ty).map(Some)
    }

    /// `llvm.undef` (`undef`) and `llvm.poison` (not `undef`).
    pub(crate) fn undef_or_poison(&mut self, opr: Ptr<Operation>, undef: bool) -> OpValue<'ll> {
        let ty = self.result_type(opr)?;
        Ok(Some(undef_or_poison(ty, undef)))
    }

    /// `llvm.zero`.
    pub(crate) fn zero(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        Ok(Some(self.result_type(opr)?.const_zero()))
    }

    /// `llvm.freeze`; inkwell has no builder method for it.
    pub(crate) fn freeze(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let arg = self.operand(opr, 0)?;
        // SAFETY: the builder is positioned (translation always is) and `arg` is a value of
        // this context; freeze takes any first-class type and returns that type.
        let value = unsafe {
            BasicValueEnum::new(llvm_sys::core::LLVMBuildFreeze(
                self.builder.as_mut_ptr(),
                arg.as_value_ref(),
                c"".as_ptr(),
            ))
        };
        value.set_name(&self.result_name(opr));
        Ok(Some(value))
    }
}
