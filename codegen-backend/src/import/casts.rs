//! MIR casts with Rust's semantics (float-to-int saturates, `as` between ints wraps).

#[allow(unused_imports)]
use crate::import::prelude::*;
use pliron_llvm::{
    attributes::{FastmathFlags, FastmathFlagsAttr},
    op_interfaces::CastOpInterface,
    op_interfaces::FastMathFlags,
    ops::{BitcastOp, FPExtOp, FPTruncOp, IntToPtrOp, PtrToIntOp, SIToFPOp, UIToFPOp},
};
use rustc_abi::{BackendRepr, Primitive};
use rustc_middle::{
    mir::CastKind,
    ty::{self, Ty, adjustment::PointerCoercion},
};

use super::{
    FnCx,
    operands::{Operand, OperandVal},
    types,
};
use crate::error::{DeviceResult, not_on_gpu, unsupported};
use crate::registry::Float16;
use pliron::builtin::types::{BF16Type, FP16Type, FP32Type};
use pliron::r#type::TypeHandle;
use pliron::value::Value;
use rustc_middle::mir::Operand as MirOperand;
use rustc_span::Spanned;

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn cast(
        &mut self,
        kind: CastKind,
        value: Operand<'tcx>,
        to: Ty<'tcx>,
    ) -> DeviceResult<Operand<'tcx>> {
        let layout = self.layout_of(to)?;
        let from = value.layout.ty;
        let val = match kind {
            CastKind::IntToInt => {
                let v = value.immediate(self.span)?;
                let from_bits = if from.is_bool() {
                    1
                } else {
                    value.layout.size.bits()
                };
                let to_bits = layout.size.bits();
                OperandVal::Imm(self.int_resize(v, from_bits, to_bits, types::is_signed(from)))
            }
            CastKind::FloatToInt | CastKind::IntToFloat
                if layout.size.bits() > 64 || value.layout.size.bits() > 64 =>
            {
                // NVPTX has no 128-bit conversions and no compiler-rt: device-std has them.
                use crate::registry::SoftFn as S;
                use rustc_middle::ty::{FloatTy as F, IntTy as I, UintTy as U};
                let soft = match (from.kind(), to.kind()) {
                    (ty::Int(I::I128), ty::Float(F::F32)) => S::I128ToF32,
                    (ty::Uint(U::U128), ty::Float(F::F32)) => S::U128ToF32,
                    (ty::Int(I::I128), ty::Float(F::F64)) => S::I128ToF64,
                    (ty::Uint(U::U128), ty::Float(F::F64)) => S::U128ToF64,
                    (ty::Float(F::F32), ty::Int(I::I128)) => S::F32ToI128,
                    (ty::Float(F::F32), ty::Uint(U::U128)) => S::F32ToU128,
                    (ty::Float(F::F64), ty::Int(I::I128)) => S::F64ToI128,
                    (ty::Float(F::F64), ty::Uint(U::U128)) => S::F64ToU128,
                    _ => {
                        return unsupported(self.span, format!("the cast from `{from}` to `{to}`"));
                    }
                };
                return self.soft_call(soft, vec![value], layout);
            }
            CastKind::FloatToInt => {
                // The saturating intrinsics are exactly Rust's `as` (NaN -> 0, clamp to range).
                let v = value.immediate(self.span)?;
                let sign = if types::is_signed(to) {
                    "fptosi"
                } else {
                    "fptoui"
                };
                let to_bits = layout.size.bits();
                let from_bits = value.layout.size.bits();
                let int_ty = types::int(self.ctx(), to_bits);
                OperandVal::Imm(self.intrinsic(
                    &format!("llvm.{sign}.sat.i{to_bits}.f{from_bits}"),
                    int_ty,
                    vec![v],
                ))
            }
            CastKind::IntToFloat => {
                let v = value.immediate(self.span)?;
                let float_ty = self.immediate_type(layout)?;
                let op = if types::is_signed(from) {
                    self.emit_value(|ctx| SIToFPOp::new(ctx, v, float_ty))
                } else {
                    self.emit_value(|ctx| UIToFPOp::new_with_nneg(ctx, v, float_ty, false))
                };
                OperandVal::Imm(op)
            }
            CastKind::FloatToFloat => {
                let v = value.immediate(self.span)?;
                let float_ty = self.immediate_type(layout)?;
                let (from_bits, to_bits) = (value.layout.size.bits(), layout.size.bits());
                OperandVal::Imm(if to_bits > from_bits {
                    let ext = self.emit(|ctx| FPExtOp::new(ctx, v, float_ty));
                    ext.set_fast_math_flags(
                        &self.m.ctx,
                        FastmathFlagsAttr::from(FastmathFlags::empty()),
                    );
                    ext.get_result(&self.m.ctx)
                } else if to_bits < from_bits {
                    let trunc = self.emit(|ctx| FPTruncOp::new(ctx, v, float_ty));
                    trunc.set_fast_math_flags(
                        &self.m.ctx,
                        FastmathFlagsAttr::from(FastmathFlags::empty()),
                    );
                    trunc.get_result(&self.m.ctx)
                } else {
                    v
                })
            }
            CastKind::PtrToPtr | CastKind::FnPtrToPtr | CastKind::Subtype => {
                match (value.val, layout.backend_repr) {
                    (OperandVal::Pair(p, _), BackendRepr::Scalar(_)) => OperandVal::Imm(p),
                    (v, _) => v,
                }
            }
            CastKind::PointerExposeProvenance => {
                let v = value.immediate(self.span)?;
                let int_ty = types::int(self.ctx(), layout.size.bits());
                OperandVal::Imm(self.emit_value(|ctx| PtrToIntOp::new(ctx, v, int_ty)))
            }
            CastKind::PointerWithExposedProvenance => {
                let v = value.immediate(self.span)?;
                let ptr_ty = types::ptr(self.ctx());
                OperandVal::Imm(self.emit_value(|ctx| IntToPtrOp::new(ctx, v, ptr_ty)))
            }
            CastKind::PointerCoercion(coercion, _) => {
                return self.pointer_coercion(coercion, value, layout, to);
            }
            CastKind::Transmute => return self.transmute(value, layout),
        };
        Ok(Operand { val, layout })
    }

    fn pointer_coercion(
        &mut self,
        coercion: PointerCoercion,
        value: Operand<'tcx>,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
        to: Ty<'tcx>,
    ) -> DeviceResult<Operand<'tcx>> {
        let val = match coercion {
            PointerCoercion::MutToConstPointer | PointerCoercion::ArrayToPointer => value.val,
            PointerCoercion::Unsize => {
                let (Some(from_pointee), Some(to_pointee)) =
                    (value.layout.ty.builtin_deref(true), to.builtin_deref(true))
                else {
                    return unsupported(self.span, format!("the unsizing coercion to `{to}`"));
                };
                // `&[T; N]` -> `&[T]`, also as the tail of a struct (`&S<[T; N]>` -> `&S<[T]>`).
                let (from_tail, to_tail) = self.m.tcx.struct_lockstep_tails_for_codegen(
                    from_pointee,
                    to_pointee,
                    self.m.typing_env(),
                );
                match (from_tail.kind(), to_tail.kind()) {
                    (ty::Array(_, len), ty::Slice(_)) => {
                        let len = len.try_to_target_usize(self.m.tcx).unwrap_or(0);
                        let ptr = value.immediate(self.span)?;
                        let len = self.const_usize(len);
                        OperandVal::Pair(ptr, len)
                    }
                    (_, ty::Dynamic(..)) => {
                        return not_on_gpu(
                            self.span,
                            format!("the coercion to the trait object `{to}`"),
                            "`dyn Trait` needs vtables and indirect calls, which device code does not have; use generics",
                        );
                    }
                    _ => return unsupported(self.span, format!("the unsizing coercion to `{to}`")),
                }
            }
            PointerCoercion::ReifyFnPointer(_)
            | PointerCoercion::ClosureFnPointer(_)
            | PointerCoercion::UnsafeFnPointer => {
                return not_on_gpu(
                    self.span,
                    "a function pointer",
                    "device code calls functions directly; use generics or closures",
                );
            }
        };
        Ok(Operand { val, layout })
    }

    fn transmute(
        &mut self,
        value: Operand<'tcx>,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<Operand<'tcx>> {
        if let (OperandVal::Imm(v), BackendRepr::Scalar(from), BackendRepr::Scalar(to)) =
            (value.val, value.layout.backend_repr, layout.backend_repr)
        {
            let to_ty = self.immediate_type(layout)?;
            let val = match (from.primitive(), to.primitive()) {
                (Primitive::Pointer(_), Primitive::Int(..)) => {
                    self.emit_value(|ctx| PtrToIntOp::new(ctx, v, to_ty))
                }
                (Primitive::Int(..), Primitive::Pointer(_)) => {
                    self.emit_value(|ctx| IntToPtrOp::new(ctx, v, to_ty))
                }
                _ if from.is_bool() || to.is_bool() => {
                    let from_bits = if from.is_bool() { 1 } else { 8 };
                    let to_bits = if to.is_bool() { 1 } else { 8 };
                    self.int_resize(v, from_bits, to_bits, false)
                }
                (a, b) if a == b => v,
                _ => self.emit_value(|ctx| BitcastOp::new(ctx, v, to_ty)),
            };
            return Ok(Operand {
                val: OperandVal::Imm(val),
                layout,
            });
        }
        // Anything else goes through memory, which is exactly what transmute means.
        let slot = self.new_slot(value.layout);
        self.store_operand(value, slot)?;
        let as_target = super::places::PlaceRef { layout, ..slot };
        self.load_operand(as_target)
    }

    pub(crate) fn immediate_type(
        &mut self,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<pliron::r#type::TypeHandle> {
        match types::as_scalar(layout).and_then(|s| types::scalar_immediate(self.ctx(), s)) {
            Some(t) => Ok(t),
            None => unsupported(
                self.span,
                format!("a value of type `{}` in a register", layout.ty),
            ),
        }
    }

    /// A `float_convert` mark's call: `f32 -> u16` rounds to `format` (`fptrunc`, no fast-math
    /// flags) and gives its bits; `u16 -> f32` reads the bits as `format` and widens (`fpext`).
    /// As LLVM casts, not inline PTX, LLVM sees the conversions: it folds constants and packs
    /// two roundings whose results sit side by side into one `cvt.rn.bf16x2.f32`.
    pub(crate) fn float16_convert(
        &mut self,
        path: &str,
        format: Float16,
        args: &[Spanned<MirOperand<'tcx>>],
        dest: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<Value> {
        let tcx = self.m.tcx;
        let arg_types: Vec<_> = args
            .iter()
            .map(|a| self.monomorphize(a.node.ty(self.mir, tcx)).to_string())
            .collect();
        let wrong = |span| {
            Err(crate::error::DeviceError::new(
                span,
                crate::error::DeviceErrorKind::FloatConvertSignature {
                    callee: path.to_string(),
                    signature: format!("fn({}) -> {}", arg_types.join(", "), dest.ty),
                },
            ))
        };
        let from = match args {
            [only] => self.monomorphize(only.node.ty(self.mir, tcx)),
            _ => return wrong(self.span),
        };
        let &[value] = self.scalar_arguments(path, args)?.as_slice() else {
            return wrong(self.span);
        };
        let half: TypeHandle = match format {
            Float16::Bf16 => BF16Type::get(self.ctx()).into(),
            Float16::F16 => FP16Type::get(self.ctx()).into(),
        };
        let no_flags = FastmathFlagsAttr::from(FastmathFlags::empty());
        match (from.kind(), dest.ty.kind()) {
            (ty::Float(ty::FloatTy::F32), ty::Uint(ty::UintTy::U16)) => {
                let trunc = self.emit(|ctx| FPTruncOp::new(ctx, value, half));
                trunc.set_fast_math_flags(&self.m.ctx, no_flags);
                let rounded = trunc.get_result(&self.m.ctx);
                let bits_ty = types::int(self.ctx(), 16);
                Ok(self.emit_value(|ctx| BitcastOp::new(ctx, rounded, bits_ty)))
            }
            (ty::Uint(ty::UintTy::U16), ty::Float(ty::FloatTy::F32)) => {
                let bits = self.emit_value(|ctx| BitcastOp::new(ctx, value, half));
                let f32_ty = FP32Type::get(self.ctx()).into();
                let ext = self.emit(|ctx| FPExtOp::new(ctx, bits, f32_ty));
                ext.set_fast_math_flags(&self.m.ctx, no_flags);
                Ok(ext.get_result(&self.m.ctx))
            }
            _ => wrong(self.span),
        }
    }
}

#[allow(unused_imports)]
use CastOpInterface as _;
