//! MIR rvalues, written into their destination place.

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::mir::IndexPtrOp;
use pliron::value::Value;
use pliron_llvm::{
    attributes::{
        FCmpPredicateAttr as F, FastmathFlags, FastmathFlagsAttr, ICmpPredicateAttr as I,
        IntegerOverflowFlagsAttr,
    },
    op_interfaces::{
        FloatBinArithOpWithFastMathFlags, IntBinArithOp, IntBinArithOpWithOverflowFlag,
    },
    ops::{
        AShrOp, AddOp, AndOp, ExtractValueOp, FAddOp, FCmpOp, FDivOp, FMulOp, FNegOp, FSubOp,
        ICmpOp, LShrOp, MulOp, OrOp, SDivOp, SRemOp, SelectOp, ShlOp, SubOp, UDivOp, URemOp, XorOp,
    },
    types::{StructLayout, StructType},
};
use rustc_abi::{FIRST_VARIANT, Size};
use rustc_middle::{
    mir::{self, AggregateKind, BinOp, Rvalue, UnOp},
    ty::{self, Ty},
};

use super::{
    FnCx,
    operands::{Operand, OperandVal},
    places::PlaceRef,
    types,
};
use crate::error::{DeviceResult, not_on_gpu, unsupported};

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn rvalue(
        &mut self,
        dest: PlaceRef<'tcx>,
        rvalue: &Rvalue<'tcx>,
    ) -> DeviceResult<()> {
        match rvalue {
            Rvalue::Use(operand, _) | Rvalue::WrapUnsafeBinder(operand, _) => {
                let value = self.operand(operand)?;
                self.store_operand(value, dest)
            }
            // A reborrow of a user type is a bitwise copy with a borrow-checker meaning only.
            Rvalue::CopyForDeref(place) | Rvalue::Reborrow(_, _, place) => {
                let place = self.place(*place)?;
                let value = self.load_operand(place)?;
                self.store_operand(value, dest)
            }
            Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => {
                let place = self.place(*place)?;
                let val = match place.meta {
                    Some(meta) => OperandVal::Pair(place.ptr, meta),
                    None => OperandVal::Imm(place.ptr),
                };
                self.store_operand(
                    Operand {
                        val,
                        layout: dest.layout,
                    },
                    dest,
                )
            }
            Rvalue::Cast(kind, operand, ty) => {
                let value = self.operand(operand)?;
                let ty = self.monomorphize(*ty);
                let cast = self.cast(*kind, value, ty)?;
                self.store_operand(cast, dest)
            }
            Rvalue::BinaryOp(op, operands) => {
                let (lhs, rhs) = &**operands;
                let lhs = self.operand(lhs)?;
                let rhs = self.operand(rhs)?;
                let val = self.binary_op(*op, lhs, rhs)?;
                self.store_operand(
                    Operand {
                        val,
                        layout: dest.layout,
                    },
                    dest,
                )
            }
            Rvalue::UnaryOp(op, operand) => {
                let value = self.operand(operand)?;
                let val = self.unary_op(*op, value)?;
                self.store_operand(
                    Operand {
                        val,
                        layout: dest.layout,
                    },
                    dest,
                )
            }
            Rvalue::Discriminant(place) => {
                let place = self.place(*place)?;
                let discr = self.read_discriminant(place, dest.layout)?;
                self.store_operand(
                    Operand {
                        val: OperandVal::Imm(discr),
                        layout: dest.layout,
                    },
                    dest,
                )
            }
            Rvalue::Aggregate(kind, fields) => self.aggregate(dest, kind, fields),
            Rvalue::Repeat(operand, count) => {
                let value = self.operand(operand)?;
                let Some(count) = self.monomorphize(*count).try_to_target_usize(self.m.tcx) else {
                    return unsupported(self.span, "an array repeat expression of unknown length");
                };
                self.repeat(dest, value, count)
            }
            Rvalue::ThreadLocalRef(_) => not_on_gpu(
                self.span,
                "a thread-local static",
                "GPU threads have no thread-local storage",
            ),
        }
    }

    fn aggregate(
        &mut self,
        dest: PlaceRef<'tcx>,
        kind: &AggregateKind<'tcx>,
        fields: &rustc_index::IndexSlice<rustc_abi::FieldIdx, mir::Operand<'tcx>>,
    ) -> DeviceResult<()> {
        let (variant_dest, variant, active_field) = match kind {
            AggregateKind::Adt(_, variant, _, _, active_field) => {
                let layout = dest.layout.for_variant(&self.layout_cx(), *variant);
                (PlaceRef { layout, ..dest }, *variant, *active_field)
            }
            AggregateKind::Array(_) => {
                let elem = dest.layout.field(&self.layout_cx(), 0);
                for (i, field) in fields.iter().enumerate() {
                    let value = self.operand(field)?;
                    let place = self.offset_place(dest, elem.size * i as u64, elem);
                    self.store_operand(value, place)?;
                }
                return Ok(());
            }
            AggregateKind::Tuple | AggregateKind::Closure(..) => (dest, FIRST_VARIANT, None),
            AggregateKind::RawPtr(..) => {
                let data = self.operand(&fields[rustc_abi::FieldIdx::from_u32(0)])?;
                let meta = self.operand(&fields[rustc_abi::FieldIdx::from_u32(1)])?;
                let val = match meta.val {
                    OperandVal::ZeroSized => OperandVal::Imm(data.immediate(self.span)?),
                    OperandVal::Imm(m) => OperandVal::Pair(data.immediate(self.span)?, m),
                    _ => return unsupported(self.span, "a raw pointer with this metadata"),
                };
                return self.store_operand(
                    Operand {
                        val,
                        layout: dest.layout,
                    },
                    dest,
                );
            }
            AggregateKind::Coroutine(..) | AggregateKind::CoroutineClosure(..) => {
                return not_on_gpu(
                    self.span,
                    "a coroutine or async block",
                    "kernels run to completion",
                );
            }
        };
        for (i, field) in fields.iter_enumerated() {
            let value = self.operand(field)?;
            let index = active_field.unwrap_or(i).as_usize();
            let offset = variant_dest.layout.fields.offset(index);
            let layout = variant_dest.layout.field(&self.layout_cx(), index);
            let place = self.offset_place(variant_dest, offset, layout);
            self.store_operand(value, place)?;
        }
        if let AggregateKind::Adt(..) = kind {
            self.set_discriminant(dest, variant)?;
        }
        Ok(())
    }

    fn repeat(
        &mut self,
        dest: PlaceRef<'tcx>,
        value: Operand<'tcx>,
        count: u64,
    ) -> DeviceResult<()> {
        // Short arrays are unrolled; LLVM turns runs of stores into wide ones.
        const UNROLL_LIMIT: u64 = 256;
        if count > UNROLL_LIMIT {
            return unsupported(
                self.span,
                format!("an array repeat `[x; {count}]` longer than {UNROLL_LIMIT}"),
            );
        }
        let elem = value.layout;
        for i in 0..count {
            let index = self.const_usize(i);
            let ptr =
                self.emit_value(|ctx| IndexPtrOp::new(ctx, dest.ptr, index, elem.size.bytes()));
            let place = PlaceRef {
                ptr,
                meta: None,
                layout: elem,
                align: dest.align.restrict_for_offset(elem.size * i),
            };
            self.store_operand(value, place)?;
        }
        Ok(())
    }

    fn unary_op(&mut self, op: UnOp, value: Operand<'tcx>) -> DeviceResult<OperandVal> {
        let ty = value.layout.ty;
        Ok(match op {
            UnOp::PtrMetadata => match value.val {
                OperandVal::Pair(_, meta) => OperandVal::Imm(meta),
                _ => OperandVal::ZeroSized,
            },
            UnOp::Not => {
                let v = value.immediate(self.span)?;
                let bits = if ty.is_bool() {
                    1
                } else {
                    value.layout.size.bits()
                };
                let ones = self.const_int(bits, u128::MAX);
                OperandVal::Imm(self.emit_value(|ctx| XorOp::new(ctx, v, ones)))
            }
            UnOp::Neg => {
                let v = value.immediate(self.span)?;
                if types::is_float(ty) {
                    let flags = FastmathFlagsAttr::from(FastmathFlags::empty());
                    OperandVal::Imm(
                        self.emit_value(|ctx| FNegOp::new_with_fast_math_flags(ctx, v, flags)),
                    )
                } else {
                    let zero = self.const_int(value.layout.size.bits(), 0);
                    OperandVal::Imm(self.emit_value(|ctx| {
                        SubOp::new_with_overflow_flag(ctx, zero, v, Default::default())
                    }))
                }
            }
        })
    }

    pub(crate) fn binary_op(
        &mut self,
        op: BinOp,
        lhs: Operand<'tcx>,
        rhs: Operand<'tcx>,
    ) -> DeviceResult<OperandVal> {
        let ty = lhs.layout.ty;
        if let BinOp::Offset = op {
            let ptr = lhs.immediate(self.span)?;
            let count = rhs.immediate(self.span)?;
            let pointee = ty.builtin_deref(true).expect("offset of a pointer");
            let stride = self.layout_of(pointee)?.size.bytes();
            if types::is_signed(rhs.layout.ty) {
                // `ptr::offset(isize)` (and `ptr::sub`, a negative offset): in bounds, but it
                // may step below `ptr`, so not a `mir.index_ptr` (whose index is unsigned).
                return Ok(OperandVal::Imm(self.signed_offset(ptr, count, stride)));
            }
            return Ok(OperandVal::Imm(
                self.emit_value(|ctx| IndexPtrOp::new(ctx, ptr, count, stride)),
            ));
        }
        if !matches!(
            ty.kind(),
            ty::Bool
                | ty::Char
                | ty::Int(_)
                | ty::Uint(_)
                | ty::Float(_)
                | ty::RawPtr(..)
                | ty::FnPtr(..)
        ) {
            return unsupported(self.span, format!("the operator `{op:?}` on `{ty}`"));
        }
        let a = lhs.immediate(self.span)?;
        let b = rhs.immediate(self.span)?;
        if types::is_float(ty) {
            return self.float_op(op, a, b).map(OperandVal::Imm);
        }
        let signed = types::is_signed(ty);
        let bits = if ty.is_bool() {
            1
        } else {
            lhs.layout.size.bits()
        };
        // `unchecked_add` and friends promise no overflow: say so to LLVM (`nuw` unsigned,
        // `nsw` signed), as rustc's LLVM backend does. An index computed with them then keeps
        // an address in bounds of its base through LLVM's reassociation of offsets.
        let no_wrap = IntegerOverflowFlagsAttr {
            nsw: signed,
            nuw: !signed,
        };
        let v =
            match op {
                BinOp::Add => self
                    .emit_value(|ctx| AddOp::new_with_overflow_flag(ctx, a, b, Default::default())),
                BinOp::AddUnchecked => {
                    self.emit_value(|ctx| AddOp::new_with_overflow_flag(ctx, a, b, no_wrap))
                }
                BinOp::Sub => self
                    .emit_value(|ctx| SubOp::new_with_overflow_flag(ctx, a, b, Default::default())),
                BinOp::SubUnchecked => {
                    self.emit_value(|ctx| SubOp::new_with_overflow_flag(ctx, a, b, no_wrap))
                }
                BinOp::Mul => self
                    .emit_value(|ctx| MulOp::new_with_overflow_flag(ctx, a, b, Default::default())),
                BinOp::MulUnchecked => {
                    self.emit_value(|ctx| MulOp::new_with_overflow_flag(ctx, a, b, no_wrap))
                }
                BinOp::Div if signed => self.emit_value(|ctx| SDivOp::new(ctx, a, b)),
                BinOp::Div => self.emit_value(|ctx| UDivOp::new(ctx, a, b)),
                BinOp::Rem if signed => self.emit_value(|ctx| SRemOp::new(ctx, a, b)),
                BinOp::Rem => self.emit_value(|ctx| URemOp::new(ctx, a, b)),
                BinOp::BitAnd => self.emit_value(|ctx| AndOp::new(ctx, a, b)),
                BinOp::BitOr => self.emit_value(|ctx| OrOp::new(ctx, a, b)),
                BinOp::BitXor => self.emit_value(|ctx| XorOp::new(ctx, a, b)),
                BinOp::Shl | BinOp::ShlUnchecked | BinOp::Shr | BinOp::ShrUnchecked => {
                    let rhs_bits = rhs.layout.size.bits();
                    let rhs_signed = types::is_signed(rhs.layout.ty);
                    let mut amount = self.int_resize(b, rhs_bits, bits, rhs_signed);
                    if matches!(op, BinOp::Shl | BinOp::Shr) {
                        // Rust's `<<`/`>>` in MIR shift by the amount modulo the width.
                        let mask = self.const_int(bits, (bits - 1) as u128);
                        amount = self.emit_value(|ctx| AndOp::new(ctx, amount, mask));
                    }
                    match op {
                        BinOp::Shl | BinOp::ShlUnchecked => self.emit_value(|ctx| {
                            ShlOp::new_with_overflow_flag(ctx, a, amount, Default::default())
                        }),
                        _ if signed => self.emit_value(|ctx| AShrOp::new(ctx, a, amount)),
                        _ => self.emit_value(|ctx| LShrOp::new(ctx, a, amount)),
                    }
                }
                BinOp::Eq => self.icmp(I::EQ, a, b),
                BinOp::Ne => self.icmp(I::NE, a, b),
                BinOp::Lt => self.icmp(if signed { I::SLT } else { I::ULT }, a, b),
                BinOp::Le => self.icmp(if signed { I::SLE } else { I::ULE }, a, b),
                BinOp::Gt => self.icmp(if signed { I::SGT } else { I::UGT }, a, b),
                BinOp::Ge => self.icmp(if signed { I::SGE } else { I::UGE }, a, b),
                BinOp::Cmp => {
                    let lt = self.icmp(if signed { I::SLT } else { I::ULT }, a, b);
                    let gt = self.icmp(if signed { I::SGT } else { I::UGT }, a, b);
                    self.three_way(lt, gt)
                }
                BinOp::AddWithOverflow | BinOp::SubWithOverflow | BinOp::MulWithOverflow => {
                    return self.with_overflow(op, a, b, bits, signed);
                }
                BinOp::Offset => unreachable!("handled above"),
            };
        Ok(OperandVal::Imm(v))
    }

    /// `ptr + count * stride` bytes for a signed `count`: an `inbounds` GEP, without the `nuw`
    /// of a `mir.index_ptr`.
    fn signed_offset(&mut self, ptr: Value, count: Value, stride: u64) -> Value {
        let i8_ty = types::int(self.ctx(), 8);
        let elem = pliron_llvm::types::ArrayType::get(&self.m.ctx, i8_ty, stride).into();
        self.emit_value(|ctx| {
            pliron_llvm::ops::GetElementPtrOp::new_with_no_wrap_flags(
                ctx,
                ptr,
                vec![pliron_llvm::ops::GepIndex::Value(count)],
                elem,
                pliron_llvm::attributes::GepNoWrapFlags::INBOUNDS,
            )
        })
    }

    fn float_op(&mut self, op: BinOp, a: Value, b: Value) -> DeviceResult<Value> {
        // `contract` lets LLVM fuse a*b+c into one FMA, as nvcc does by default.
        // `strict_float` promises the CPU's bits: every operation rounds on its own.
        let flags = FastmathFlagsAttr::from(if self.mode.strict_float {
            FastmathFlags::empty()
        } else {
            FastmathFlags::CONTRACT
        });
        Ok(match op {
            BinOp::Add => self.emit_value(|ctx| FAddOp::new_with_fast_math_flags(ctx, a, b, flags)),
            BinOp::Sub => self.emit_value(|ctx| FSubOp::new_with_fast_math_flags(ctx, a, b, flags)),
            BinOp::Mul => self.emit_value(|ctx| FMulOp::new_with_fast_math_flags(ctx, a, b, flags)),
            BinOp::Div => self.emit_value(|ctx| FDivOp::new_with_fast_math_flags(ctx, a, b, flags)),
            // PTX has no exact remainder; LLVM's expansion rounds. Rust's `%` is exact.
            BinOp::Rem => return self.float_rem(a, b),
            BinOp::Eq => self.fcmp(F::OEQ, a, b),
            BinOp::Ne => self.fcmp(F::UNE, a, b),
            BinOp::Lt => self.fcmp(F::OLT, a, b),
            BinOp::Le => self.fcmp(F::OLE, a, b),
            BinOp::Gt => self.fcmp(F::OGT, a, b),
            BinOp::Ge => self.fcmp(F::OGE, a, b),
            _ => return unsupported(self.span, format!("the operator `{op:?}` on floats")),
        })
    }

    fn float_rem(&mut self, a: Value, b: Value) -> DeviceResult<Value> {
        use pliron::r#type::Typed;
        let is_f32 = a
            .get_type(&self.m.ctx)
            .deref(&self.m.ctx)
            .is::<pliron::builtin::types::FP32Type>();
        let (soft, ty) = if is_f32 {
            (crate::registry::SoftFn::FmodF32, self.m.tcx.types.f32)
        } else {
            (crate::registry::SoftFn::FmodF64, self.m.tcx.types.f64)
        };
        let layout = self.layout_of(ty)?;
        let args = vec![
            Operand {
                val: OperandVal::Imm(a),
                layout,
            },
            Operand {
                val: OperandVal::Imm(b),
                layout,
            },
        ];
        self.soft_call(soft, args, layout)?.immediate(self.span)
    }

    pub(crate) fn icmp(&mut self, pred: I, a: Value, b: Value) -> Value {
        self.emit_value(|ctx| ICmpOp::new(ctx, pred, a, b))
    }

    pub(crate) fn fcmp(&mut self, pred: F, a: Value, b: Value) -> Value {
        let cmp = self.emit(|ctx| FCmpOp::new(ctx, pred, a, b));
        cmp.set_fast_math_flags(&self.m.ctx, FastmathFlagsAttr::from(FastmathFlags::empty()));
        cmp.get_result(&self.m.ctx)
    }

    /// `Ordering` as an `i8`: -1, 0 or 1.
    fn three_way(&mut self, lt: Value, gt: Value) -> Value {
        let minus_one = self.const_int(8, 0xff);
        let one = self.const_int(8, 1);
        let zero = self.const_int(8, 0);
        let greater = self.emit_value(|ctx| SelectOp::new(ctx, gt, one, zero));
        self.emit_value(|ctx| SelectOp::new(ctx, lt, minus_one, greater))
    }

    fn with_overflow(
        &mut self,
        op: BinOp,
        a: Value,
        b: Value,
        bits: u64,
        signed: bool,
    ) -> DeviceResult<OperandVal> {
        let name = match (op, signed) {
            (BinOp::AddWithOverflow, true) => "sadd",
            (BinOp::AddWithOverflow, false) => "uadd",
            (BinOp::SubWithOverflow, true) => "ssub",
            (BinOp::SubWithOverflow, false) => "usub",
            (BinOp::MulWithOverflow, true) => "smul",
            _ => "umul",
        };
        let int_ty = types::int(self.ctx(), bits);
        let bool_ty = types::int(self.ctx(), 1);
        let result_ty =
            StructType::get_unnamed(self.ctx(), (vec![int_ty, bool_ty], StructLayout::Unpacked))
                .into();
        let call = self.intrinsic(
            &format!("llvm.{name}.with.overflow.i{bits}"),
            result_ty,
            vec![a, b],
        );
        let value = ExtractValueOp::new(self.ctx(), call, vec![0]).map_err(|e| self.internal(e))?;
        let value = self.push_value(value);
        let overflow =
            ExtractValueOp::new(self.ctx(), call, vec![1]).map_err(|e| self.internal(e))?;
        let overflow = self.push_value(overflow);
        Ok(OperandVal::Pair(value, overflow))
    }

    pub(crate) fn internal(&self, e: pliron::result::Error) -> crate::error::DeviceError {
        crate::error::DeviceError::new(
            self.span,
            crate::error::DeviceErrorKind::Internal {
                function: crate::mir_util::display_instance(self.m.tcx, self.instance),
                message: e.to_string(),
            },
        )
    }

    /// Calls an LLVM intrinsic by name and returns its result.
    pub(crate) fn intrinsic(
        &mut self,
        name: &str,
        result: pliron::r#type::TypeHandle,
        args: Vec<Value>,
    ) -> Value {
        use pliron::r#type::Typed;
        let arg_types = args.iter().map(|a| a.get_type(&self.m.ctx)).collect();
        let fn_ty = pliron_llvm::types::FuncType::get(self.ctx(), result, arg_types, false);
        let name = pliron::builtin::attributes::StringAttr::new(name.to_string());
        self.emit_value(|ctx| pliron_llvm::ops::CallIntrinsicOp::new(ctx, name, fn_ty, args))
    }

    pub(crate) fn size_of(&self, ty: Ty<'tcx>) -> DeviceResult<Size> {
        Ok(self.layout_of(ty)?.size)
    }
}

// Keep the trait in scope for `new` on integer ops without overflow flags.
#[allow(unused_imports)]
use IntBinArithOp as _;
