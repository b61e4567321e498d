//! `core::intrinsics` that ordinary core code reaches from kernels: to LLVM intrinsics, to plain
//! IR, or to device-std's soft implementations.

#[allow(unused_imports)]
use crate::import::prelude::*;
use pliron::value::Value;
use rustc_middle::{
    mir::{self, Operand as MirOperand},
    ty::{self, Instance},
};
use rustc_span::{Spanned, Symbol, sym};

use super::{
    FnCx,
    operands::{Operand, OperandVal},
    places::PlaceRef,
    types,
};
use crate::{
    error::{DeviceResult, unsupported},
    registry::SoftFn,
};

/// The LLVM intrinsic (without its type suffix) of a float `core::intrinsics` function.
fn float_intrinsic(name: Symbol) -> Option<&'static str> {
    Some(match name {
        sym::sqrtf32 | sym::sqrtf64 => "sqrt",
        sym::fabs => "fabs",
        sym::floorf32 | sym::floorf64 => "floor",
        sym::ceilf32 | sym::ceilf64 => "ceil",
        sym::truncf32 | sym::truncf64 => "trunc",
        sym::roundf32 | sym::roundf64 => "round",
        sym::round_ties_even_f32 | sym::round_ties_even_f64 => "roundeven",
        sym::fmaf32 | sym::fmaf64 => "fma",
        sym::fmuladdf32 | sym::fmuladdf64 => "fmuladd",
        sym::minimum_number_nsz_f32 | sym::minimum_number_nsz_f64 => "minnum",
        sym::maximum_number_nsz_f32 | sym::maximum_number_nsz_f64 => "maxnum",
        sym::minimumf32 | sym::minimumf64 => "minimum",
        sym::maximumf32 | sym::maximumf64 => "maximum",
        sym::copysignf32 | sym::copysignf64 => "copysign",
        _ => return None,
    })
}

impl<'tcx> FnCx<'tcx, '_> {
    /// Whether `f32::min`/`max` (and f64's) must return their second argument when the two
    /// compare equal. Rust lets them return either of `-0.0` and `+0.0`, and PTX's `min`/`max`
    /// do not always pick what the host picks: the second argument (x86's `minss`/`maxss`, and
    /// core's own body of the intrinsic). `strict_float` promises the CPU's bits, so it takes
    /// the host's choice (docs/math.md). f16's are compiled from core's body: already so.
    fn ties_go_to_other(&self, name: Symbol) -> bool {
        self.mode.strict_float
            && matches!(
                name,
                sym::minimum_number_nsz_f32
                    | sym::minimum_number_nsz_f64
                    | sym::maximum_number_nsz_f32
                    | sym::maximum_number_nsz_f64
            )
    }

    /// `min_or_max` of `a` and `b`, or `b` when `a == b` (only two zeros of opposite signs
    /// tell the difference).
    fn tie_to_other(&mut self, a: Value, b: Value, min_or_max: Value) -> Value {
        let tie = self.fcmp(pliron_llvm::attributes::FCmpPredicateAttr::OEQ, a, b);
        self.emit_value(|ctx| pliron_llvm::ops::SelectOp::new(ctx, tie, b, min_or_max))
    }

    /// The `core::intrinsics` a kernel reaches through ordinary core code.
    pub(crate) fn core_intrinsic(
        &mut self,
        instance: Instance<'tcx>,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let tcx = self.m.tcx;
        let Some(intrinsic) = tcx.intrinsic(instance.def_id()) else {
            return unsupported(self.span, "a call of an intrinsic rustc does not know");
        };
        let name = intrinsic.name;
        if let Some(atomic) = crate::registry::atomics::AtomicIntrinsic::of(name) {
            return self.atomic_intrinsic(atomic, instance, args, destination, target);
        }
        let mut operands = Vec::new();
        for arg in args {
            operands.push(self.operand(&arg.node)?);
        }
        let dest = self.place(destination)?;
        let float_suffix =
            |layout: rustc_middle::ty::layout::TyAndLayout<'_>| format!("f{}", layout.size.bits());
        let int_suffix =
            |layout: rustc_middle::ty::layout::TyAndLayout<'_>| format!("i{}", layout.size.bits());
        let result: Option<Value> = match name {
            sym::is_val_statically_known => Some(self.const_int(1, 0)),
            sym::select_unpredictable => {
                let (c, t, f) = (operands[0].immediate(self.span)?, operands[1], operands[2]);
                match (t.val, f.val) {
                    (OperandVal::Imm(t), OperandVal::Imm(f)) => {
                        Some(self.emit_value(|ctx| pliron_llvm::ops::SelectOp::new(ctx, c, t, f)))
                    }
                    _ => {
                        return unsupported(
                            self.span,
                            "`select_unpredictable` of a value that is not one scalar",
                        );
                    }
                }
            }
            sym::copy | sym::write_bytes => {
                // `ptr::copy` may overlap (memmove); `write_bytes` is memset. Counts are elements.
                let size = self.layout_of(instance.args.type_at(0))?.size.bytes();
                let count = operands[2].immediate(self.span)?;
                let size = self.const_usize(size);
                let bytes = self.emit_value(|ctx| {
                    pliron_llvm::ops::MulOp::new_with_overflow_flag(
                        ctx,
                        count,
                        size,
                        Default::default(),
                    )
                });
                let volatile = self.const_int(1, 0);
                let void = pliron_llvm::types::VoidType::get(&self.m.ctx).into();
                let (a, b) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                if name == sym::copy {
                    // `copy(src, dst, count)`.
                    self.intrinsic("llvm.memmove.p0.p0.i64", void, vec![b, a, bytes, volatile]);
                } else {
                    self.intrinsic("llvm.memset.p0.i64", void, vec![a, b, bytes, volatile]);
                }
                None
            }
            sym::typed_swap_nonoverlapping => {
                let layout = self.layout_of(instance.args.type_at(0))?;
                let (x, y) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                let (x, y) = (
                    PlaceRef::new_sized(x, layout),
                    PlaceRef::new_sized(y, layout),
                );
                let tmp = self.new_slot(layout);
                let saved = self.load_operand(x)?;
                self.store_operand(saved, tmp)?;
                let from_y = self.load_operand(y)?;
                self.store_operand(from_y, x)?;
                let from_tmp = self.load_operand(tmp)?;
                self.store_operand(from_tmp, y)?;
                None
            }
            sym::raw_eq => {
                let size = self.layout_of(instance.args.type_at(0))?.size.bytes();
                let u8_ptr = self.layout_of(rustc_middle::ty::Ty::new_imm_ptr(
                    self.m.tcx,
                    self.m.tcx.types.u8,
                ))?;
                let usize_layout = self.layout_of(self.m.tcx.types.usize)?;
                let i32_layout = self.layout_of(self.m.tcx.types.i32)?;
                let (a, b) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                let n = self.const_usize(size);
                let args = vec![
                    Operand {
                        val: OperandVal::Imm(a),
                        layout: u8_ptr,
                    },
                    Operand {
                        val: OperandVal::Imm(b),
                        layout: u8_ptr,
                    },
                    Operand {
                        val: OperandVal::Imm(n),
                        layout: usize_layout,
                    },
                ];
                let order = self
                    .soft_call(SoftFn::CompareBytes, args, i32_layout)?
                    .immediate(self.span)?;
                let zero = self.const_int(32, 0);
                Some(self.icmp(pliron_llvm::attributes::ICmpPredicateAttr::EQ, order, zero))
            }
            sym::arith_offset => {
                // `wrapping_offset`: no in-bounds promise, so no `inbounds`.
                let stride = self.layout_of(instance.args.type_at(0))?.size.bytes();
                let (ptr, count) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                let i8_ty = types::int(self.ctx(), 8);
                let elem = pliron_llvm::types::ArrayType::get(&self.m.ctx, i8_ty, stride).into();
                Some(self.emit_value(|ctx| {
                    pliron_llvm::ops::GetElementPtrOp::new(
                        ctx,
                        ptr,
                        vec![pliron_llvm::ops::GepIndex::Value(count)],
                        elem,
                    )
                }))
            }
            sym::compare_bytes => {
                let result = self.soft_call(SoftFn::CompareBytes, operands.clone(), dest.layout)?;
                Some(result.immediate(self.span)?)
            }
            sym::ptr_offset_from | sym::ptr_offset_from_unsigned => {
                // Both pointers are in one allocation and their distance is a multiple of the
                // element size, so the division is exact.
                let size = self.layout_of(instance.args.type_at(0))?.size.bytes();
                let i64_ty = types::int(self.ctx(), 64);
                let (a, b) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                let a = self.emit_value(|ctx| pliron_llvm::ops::PtrToIntOp::new(ctx, a, i64_ty));
                let b = self.emit_value(|ctx| pliron_llvm::ops::PtrToIntOp::new(ctx, b, i64_ty));
                let bytes = self.emit_value(|ctx| {
                    pliron_llvm::ops::SubOp::new_with_overflow_flag(ctx, a, b, Default::default())
                });
                let size = self.const_usize(size.max(1));
                Some(if name == sym::ptr_offset_from {
                    self.emit_value(|ctx| pliron_llvm::ops::SDivOp::new(ctx, bytes, size))
                } else {
                    self.emit_value(|ctx| pliron_llvm::ops::UDivOp::new(ctx, bytes, size))
                })
            }
            sym::assume
            | sym::cold_path
            | sym::assert_inhabited
            | sym::assert_zero_valid
            | sym::assert_mem_uninitialized_valid => None,
            sym::black_box => {
                self.store_operand(operands[0], dest)?;
                None
            }
            sym::abort | sym::unreachable => {
                return self.trap(&format!("`core::intrinsics::{name}`"));
            }
            _ if float_intrinsic(name).is_some() => {
                let llvm = float_intrinsic(name).expect("checked");
                let suffix = float_suffix(operands[0].layout);
                let ty = self.immediate_type(operands[0].layout)?;
                let values = operands
                    .iter()
                    .map(|o| o.immediate(self.span))
                    .collect::<DeviceResult<Vec<_>>>()?;
                let (a, b) = (values[0], values.get(1).copied());
                let result = self.intrinsic(&format!("llvm.{llvm}.{suffix}"), ty, values);
                match b {
                    Some(b) if self.ties_go_to_other(name) => Some(self.tie_to_other(a, b, result)),
                    _ => Some(result),
                }
            }
            sym::ctpop | sym::ctlz | sym::cttz | sym::ctlz_nonzero | sym::cttz_nonzero => {
                let x = operands[0].immediate(self.span)?;
                let bits = operands[0].layout.size.bits();
                let ty = types::int(self.ctx(), bits);
                let suffix = int_suffix(operands[0].layout);
                let count = match name {
                    sym::ctpop => self.intrinsic(&format!("llvm.ctpop.{suffix}"), ty, vec![x]),
                    _ => {
                        let nonzero = matches!(name, sym::ctlz_nonzero | sym::cttz_nonzero);
                        let zero_is_poison = self.const_int(1, u128::from(nonzero));
                        let base = if matches!(name, sym::ctlz | sym::ctlz_nonzero) {
                            "ctlz"
                        } else {
                            "cttz"
                        };
                        self.intrinsic(
                            &format!("llvm.{base}.{suffix}"),
                            ty,
                            vec![x, zero_is_poison],
                        )
                    }
                };
                Some(self.int_resize(count, bits, dest.layout.size.bits(), false))
            }
            sym::bswap | sym::bitreverse => {
                let x = operands[0].immediate(self.span)?;
                let ty = types::int(self.ctx(), operands[0].layout.size.bits());
                let suffix = int_suffix(operands[0].layout);
                // LLVM's bswap needs an even number of bytes; one byte swaps to itself.
                if name == sym::bswap && operands[0].layout.size.bytes() == 1 {
                    Some(x)
                } else {
                    Some(self.intrinsic(&format!("llvm.{name}.{suffix}"), ty, vec![x]))
                }
            }
            sym::rotate_left | sym::rotate_right => {
                let x = operands[0].immediate(self.span)?;
                let bits = operands[0].layout.size.bits();
                let amount = operands[1].immediate(self.span)?;
                let amount = self.int_resize(amount, operands[1].layout.size.bits(), bits, false);
                let ty = types::int(self.ctx(), bits);
                let funnel = if name == sym::rotate_left {
                    "fshl"
                } else {
                    "fshr"
                };
                Some(self.intrinsic(&format!("llvm.{funnel}.i{bits}"), ty, vec![x, x, amount]))
            }
            sym::saturating_add | sym::saturating_sub => {
                let signed = types::is_signed(operands[0].layout.ty);
                let op = match (name, signed) {
                    (sym::saturating_add, true) => "sadd",
                    (sym::saturating_add, false) => "uadd",
                    (_, true) => "ssub",
                    _ => "usub",
                };
                let bits = operands[0].layout.size.bits();
                let ty = types::int(self.ctx(), bits);
                let (a, b) = (
                    operands[0].immediate(self.span)?,
                    operands[1].immediate(self.span)?,
                );
                Some(self.intrinsic(&format!("llvm.{op}.sat.i{bits}"), ty, vec![a, b]))
            }
            sym::exact_div
            | sym::unchecked_div
            | sym::unchecked_rem
            | sym::unchecked_add
            | sym::unchecked_sub
            | sym::unchecked_mul
            | sym::unchecked_shl
            | sym::unchecked_shr
            | sym::wrapping_add
            | sym::wrapping_sub
            | sym::wrapping_mul => {
                let op = match name {
                    sym::exact_div | sym::unchecked_div => mir::BinOp::Div,
                    sym::unchecked_rem => mir::BinOp::Rem,
                    sym::unchecked_add | sym::wrapping_add => mir::BinOp::Add,
                    sym::unchecked_sub | sym::wrapping_sub => mir::BinOp::Sub,
                    sym::unchecked_mul | sym::wrapping_mul => mir::BinOp::Mul,
                    sym::unchecked_shl => mir::BinOp::ShlUnchecked,
                    _ => mir::BinOp::ShrUnchecked,
                };
                match self.binary_op(op, operands[0], operands[1])? {
                    OperandVal::Imm(v) => Some(v),
                    _ => None,
                }
            }
            sym::size_of_val | sym::align_of_val => {
                let ty = instance.args.type_at(0);
                let layout = self.layout_of(ty)?;
                let per_element = match ty.kind() {
                    ty::Slice(elem) | ty::Array(elem, _) if layout.is_unsized() => {
                        Some(self.layout_of(*elem)?)
                    }
                    ty::Str => Some(self.layout_of(self.m.tcx.types.u8)?),
                    _ if layout.is_unsized() => {
                        return unsupported(
                            self.span,
                            format!("`{name}` of the unsized type `{ty}`"),
                        );
                    }
                    _ => None,
                };
                let is_size = name == sym::size_of_val;
                Some(match (is_size, per_element, operands[0].val) {
                    (true, Some(elem), OperandVal::Pair(_, len)) => {
                        let size = self.const_usize(elem.size.bytes());
                        self.emit_value(|ctx| {
                            pliron_llvm::ops::MulOp::new_with_overflow_flag(
                                ctx,
                                len,
                                size,
                                Default::default(),
                            )
                        })
                    }
                    (true, _, _) => self.const_usize(layout.size.bytes()),
                    (false, Some(elem), _) => self.const_usize(elem.align.abi.bytes()),
                    _ => self.const_usize(layout.align.abi.bytes()),
                })
            }
            sym::size_of | sym::align_of => {
                let ty = instance.args.type_at(0);
                let layout = self.layout_of(ty)?;
                let n = if name == sym::size_of {
                    layout.size.bytes()
                } else {
                    layout.align.abi.bytes()
                };
                Some(self.const_usize(n))
            }
            _ if crate::registry::math::intrinsic_libdevice(name).is_some() => {
                let libdevice = crate::registry::math::intrinsic_libdevice(name).expect("checked");
                let what = format!("core::intrinsics::{name}");
                return self.libdevice_call(libdevice, &what, &operands, destination, target);
            }
            // Intrinsics with a MIR body ("fallback") work as that body.
            _ if !intrinsic.must_be_overridden => {
                return self.intrinsic_fallback(instance, args, destination, target);
            }
            _ => return unsupported(self.span, format!("the core intrinsic `{name}`")),
        };
        if let Some(v) = result {
            self.store_operand(
                Operand {
                    val: OperandVal::Imm(v),
                    layout: dest.layout,
                },
                dest,
            )?;
        }
        self.finish_call(target)
    }

    /// An intrinsic this backend has no lowering for but `core` gives a body for: a call of
    /// that body.
    fn intrinsic_fallback(
        &mut self,
        instance: Instance<'tcx>,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let body = Instance {
            def: ty::InstanceKind::Item(instance.def_id()),
            args: instance.args,
        };
        let callee_ty = body.ty(self.m.tcx, self.m.typing_env());
        self.device_call(body, callee_ty, args, destination, target)
    }

    pub(crate) fn copy_nonoverlapping(
        &mut self,
        copy: &mir::CopyNonOverlapping<'tcx>,
    ) -> DeviceResult<()> {
        let src = self.operand(&copy.src)?;
        let dst = self.operand(&copy.dst)?;
        let count = self.operand(&copy.count)?.immediate(self.span)?;
        let pointee = src
            .layout
            .ty
            .builtin_deref(true)
            .expect("copy of a pointer");
        let size = self.size_of(pointee)?.bytes();
        let size = self.const_usize(size);
        let bytes = self.emit_value(|ctx| {
            pliron_llvm::ops::MulOp::new_with_overflow_flag(ctx, count, size, Default::default())
        });
        let volatile = self.const_int(1, 0);
        let void = pliron_llvm::types::VoidType::get(&self.m.ctx).into();
        let (d, s) = (dst.immediate(self.span)?, src.immediate(self.span)?);
        self.intrinsic("llvm.memcpy.p0.p0.i64", void, vec![d, s, bytes, volatile]);
        Ok(())
    }
}
