//! MIR operands: values in SSA form where rustc's layout makes them one or two scalars, else an
//! address of memory holding them. Constants are materialised here too.

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::mir::{CopyOp, IndexPtrOp, LoadOp, StoreOp};
use pliron::{
    builtin::{
        attributes::{FPDoubleAttr, FPHalfAttr, FPSingleAttr, IntegerAttr},
        types::{IntegerType, Signedness},
    },
    utils::{
        apfloat::{Float as _, Half},
        apint::APInt,
    },
    value::Value,
};
use pliron_llvm::{
    attributes::ICmpPredicateAttr,
    ops::{AddOp, BrOp, CondBrOp, ConstantOp, IntToPtrOp, SExtOp, TruncOp, ZExtOp},
};
use rustc_abi::{Align, BackendRepr, Primitive, Scalar, Size};
use rustc_middle::{
    mir::{self, ConstValue, interpret::Scalar as ConstScalar},
    ty::layout::TyAndLayout,
};
use rustc_span::Span;

use super::{FnCx, places::PlaceRef, types};
use crate::error::{DeviceResult, unsupported};

/// Aggregates larger than this are copied by a loop, not by straight-line code.
const COPY_LOOP_BYTES: u64 = 1024;

#[derive(Clone, Copy, Debug)]
pub(crate) enum OperandVal {
    /// One scalar (`bool` as `i1`).
    Imm(Value),
    /// Two scalars (`&[T]`, `(u32, bool)`...), as rustc's `ScalarPair`.
    Pair(Value, Value),
    /// The address of memory holding the value, and the alignment it is known to have (less
    /// than the type's in a packed struct); read-only for the consumer.
    Mem(Value, Align),
    ZeroSized,
}

impl OperandVal {
    /// A loaded pointer's address and metadata (a slice's length, a vtable), which a deref
    /// of it needs; `None` for a value held otherwise. Here, so that `places` needs no variant
    /// of `OperandVal` (and imports nothing of this module, which imports `PlaceRef`).
    pub(crate) fn pointer_parts(self) -> Option<(Value, Option<Value>)> {
        match self {
            OperandVal::Imm(p) => Some((p, None)),
            OperandVal::Pair(p, m) => Some((p, Some(m))),
            _ => None,
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Operand<'tcx> {
    pub(crate) val: OperandVal,
    pub(crate) layout: TyAndLayout<'tcx>,
}

impl<'tcx> Operand<'tcx> {
    pub(crate) fn immediate(&self, span: Span) -> DeviceResult<Value> {
        match self.val {
            OperandVal::Imm(v) => Ok(v),
            _ => unsupported(
                span,
                format!("using `{}` as a single scalar", self.layout.ty),
            ),
        }
    }
}

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn operand(&mut self, operand: &mir::Operand<'tcx>) -> DeviceResult<Operand<'tcx>> {
        match operand {
            mir::Operand::Copy(place) | mir::Operand::Move(place) => {
                let place = self.place(*place)?;
                self.load_operand(place)
            }
            mir::Operand::Constant(constant) => self.constant(constant),
            mir::Operand::RuntimeChecks(check) => {
                let on = check.value(self.m.tcx.sess);
                let layout = self.layout_of(self.m.tcx.types.bool)?;
                Ok(Operand {
                    val: OperandVal::Imm(self.const_int(1, on as u128)),
                    layout,
                })
            }
        }
    }

    pub(crate) fn load_operand(&mut self, place: PlaceRef<'tcx>) -> DeviceResult<Operand<'tcx>> {
        let layout = place.layout;
        if layout.is_zst() {
            return Ok(Operand {
                val: OperandVal::ZeroSized,
                layout,
            });
        }
        let val = match layout.backend_repr {
            BackendRepr::Scalar(s) => {
                OperandVal::Imm(self.load_scalar(place.ptr, s, place.align)?)
            }
            BackendRepr::ScalarPair(a, b) => {
                let b_offset = self.pair_b_offset(a, b);
                let first = self.load_scalar(place.ptr, a, place.align)?;
                let b_ptr = self.offset_place(place, b_offset, layout).ptr;
                let second =
                    self.load_scalar(b_ptr, b, place.align.restrict_for_offset(b_offset))?;
                OperandVal::Pair(first, second)
            }
            _ => OperandVal::Mem(place.ptr, place.align),
        };
        Ok(Operand { val, layout })
    }

    pub(crate) fn pair_b_offset(&self, a: Scalar, b: Scalar) -> Size {
        let dl = &self.m.tcx.data_layout;
        a.size(dl).align_to(b.align(dl).abi)
    }

    /// Writes `value` into `dest`; the layouts must agree.
    pub(crate) fn store_operand(
        &mut self,
        value: Operand<'tcx>,
        dest: PlaceRef<'tcx>,
    ) -> DeviceResult<()> {
        match (value.val, dest.layout.backend_repr) {
            (OperandVal::ZeroSized, _) => {}
            (OperandVal::Imm(v), BackendRepr::Scalar(s)) => {
                self.store_scalar(v, dest.ptr, s, dest.align)
            }
            (OperandVal::Pair(x, y), BackendRepr::ScalarPair(a, b)) => {
                let b_offset = self.pair_b_offset(a, b);
                self.store_scalar(x, dest.ptr, a, dest.align);
                let b_ptr = self.offset_place(dest, b_offset, dest.layout).ptr;
                self.store_scalar(y, b_ptr, b, dest.align.restrict_for_offset(b_offset));
            }
            (OperandVal::Mem(src, src_align), _) => {
                let size = dest.layout.size.bytes();
                if let Some(fields) = pointer_struct_fields(&self.layout_cx(), dest.layout) {
                    self.copy_fields(dest, src, src_align, &fields)?;
                } else if size > 0 {
                    self.copy_bytes(dest.ptr, src, size, src_align.min(dest.align))?;
                }
            }
            _ => {
                // An immediate stored into memory of another shape (e.g. a scalar into a
                // single-field struct with a `Memory` layout): go through the value's own layout.
                let place = PlaceRef {
                    layout: value.layout,
                    ..dest
                };
                match (value.val, value.layout.backend_repr) {
                    (OperandVal::Imm(_), BackendRepr::Scalar(_))
                    | (OperandVal::Pair(..), BackendRepr::ScalarPair(..)) => {
                        return self.store_operand(value, place);
                    }
                    _ => {
                        return unsupported(
                            self.span,
                            format!(
                                "storing a `{}` into a `{}`",
                                value.layout.ty, dest.layout.ty
                            ),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies a struct of scalars field by field, each in its own type: a pointer as a pointer,
    /// so that LLVM sees its provenance and address space through the copy (copied as an `i64`,
    /// a kernel's output pointer came back through `inttoptr` and was stored with a generic
    /// `st` instead of `st.global`).
    fn copy_fields(
        &mut self,
        dest: PlaceRef<'tcx>,
        src: Value,
        src_align: Align,
        fields: &[(Size, Scalar)],
    ) -> DeviceResult<()> {
        for &(offset, scalar) in fields {
            let from = if offset.bytes() == 0 {
                src
            } else {
                self.emit_value(|ctx| {
                    oxide_dialects::mir::FieldPtrOp::new(ctx, src, offset.bytes())
                })
            };
            let value = self.load_scalar(from, scalar, src_align.restrict_for_offset(offset))?;
            let to = if offset.bytes() == 0 {
                dest.ptr
            } else {
                self.emit_value(|ctx| {
                    oxide_dialects::mir::FieldPtrOp::new(ctx, dest.ptr, offset.bytes())
                })
            };
            self.store_scalar(value, to, scalar, dest.align.restrict_for_offset(offset));
        }
        Ok(())
    }

    /// Copies `size` bytes between places aligned to `align` that do not overlap: a `mir.copy`
    /// (straight-line loads and stores as wide as the alignment) up to `COPY_LOOP_BYTES`, a loop
    /// of such accesses beyond (NVPTX would expand an `llvm.memcpy`, which states no alignment
    /// here, into a loop of byte copies).
    fn copy_bytes(&mut self, dst: Value, src: Value, size: u64, align: Align) -> DeviceResult<()> {
        let width = align.bytes().min(8);
        if size <= COPY_LOOP_BYTES || !size.is_multiple_of(width) {
            let align = align.bytes() as u32;
            self.emit(|ctx| CopyOp::new(ctx, dst, src, size, align));
            return Ok(());
        }
        let usize_layout = self.layout_of(self.m.tcx.types.usize)?;
        let counter = self.new_slot(usize_layout).ptr;
        let zero = self.const_usize(0);
        self.emit(|ctx| StoreOp::new(ctx, zero, counter, 8));
        let header = self.new_block("copy_header");
        let body = self.new_block("copy_body");
        let exit = self.new_block("copy_exit");
        self.emit(|ctx| BrOp::new(ctx, header, vec![]));

        self.cur = header;
        let index_ty = types::int(self.ctx(), 64);
        let i = self.emit_value(|ctx| LoadOp::new(ctx, counter, index_ty, 8));
        let words = self.const_usize(size / width);
        let more = self.icmp(ICmpPredicateAttr::ULT, i, words);
        self.emit(|ctx| CondBrOp::new(ctx, more, body, vec![], exit, vec![]));

        self.cur = body;
        let word_ty = types::int(self.ctx(), width * 8);
        let from = self.emit_value(|ctx| IndexPtrOp::new(ctx, src, i, width));
        let to = self.emit_value(|ctx| IndexPtrOp::new(ctx, dst, i, width));
        let word = self.emit_value(|ctx| LoadOp::new(ctx, from, word_ty, width as u32));
        self.emit(|ctx| StoreOp::new(ctx, word, to, width as u32));
        let one = self.const_usize(1);
        let next =
            self.emit_value(|ctx| AddOp::new_with_overflow_flag(ctx, i, one, Default::default()));
        self.emit(|ctx| StoreOp::new(ctx, next, counter, 8));
        self.emit(|ctx| BrOp::new(ctx, header, vec![]));

        // What the statement does next goes on after the loop.
        self.cur = exit;
        Ok(())
    }

    /// Puts an operand in memory (a fresh slot unless it already is), for passing by reference.
    pub(crate) fn spill(&mut self, value: Operand<'tcx>) -> DeviceResult<PlaceRef<'tcx>> {
        let slot = self.new_slot(value.layout);
        self.store_operand(value, slot)?;
        Ok(slot)
    }

    pub(crate) fn const_int(&mut self, bits: u64, value: u128) -> Value {
        let ty = IntegerType::get(self.ctx(), bits as u32, Signedness::Signless);
        let width = std::num::NonZero::new(bits as usize).expect("non-zero width");
        let masked = if bits >= 128 {
            value
        } else {
            value & ((1u128 << bits) - 1)
        };
        let attr = IntegerAttr::new(ty, APInt::from_u128(masked, width));
        self.emit_value(|ctx| ConstantOp::new(ctx, Box::new(attr)))
    }

    pub(crate) fn const_usize(&mut self, value: u64) -> Value {
        self.const_int(64, value as u128)
    }

    /// Sign- or zero-extends, or truncates, an integer between widths.
    pub(crate) fn int_resize(&mut self, value: Value, from: u64, to: u64, signed: bool) -> Value {
        let ty = types::int(self.ctx(), to);
        if to < from {
            self.emit_value(|ctx| TruncOp::new(ctx, value, ty))
        } else if to > from && signed {
            self.emit_value(|ctx| SExtOp::new(ctx, value, ty))
        } else if to > from {
            self.emit_value(|ctx| ZExtOp::new_with_nneg(ctx, value, ty, false))
        } else {
            value
        }
    }

    fn constant(&mut self, constant: &mir::ConstOperand<'tcx>) -> DeviceResult<Operand<'tcx>> {
        let const_ = self.monomorphize(constant.const_);
        let ty = const_.ty();
        let layout = self.layout_of(ty)?;
        let value = match const_.eval(self.m.tcx, self.m.typing_env(), constant.span) {
            Ok(v) => v,
            Err(_) => return unsupported(constant.span, "a constant that fails to evaluate"),
        };
        let val = match value {
            ConstValue::ZeroSized => OperandVal::ZeroSized,
            ConstValue::Scalar(scalar) => match layout.backend_repr {
                BackendRepr::Scalar(s) => {
                    OperandVal::Imm(self.scalar_constant(scalar, s, constant.span)?)
                }
                _ => {
                    let slot = self.new_slot(layout);
                    let int_scalar = Scalar::Initialized {
                        value: Primitive::Int(
                            rustc_abi::Integer::from_size(layout.size).map_err(|_| {
                                crate::error::DeviceError::new(
                                    constant.span,
                                    crate::error::DeviceErrorKind::Unsupported {
                                        construct: format!("a constant of type `{ty}`"),
                                    },
                                )
                            })?,
                            false,
                        ),
                        valid_range: rustc_abi::WrappingRange::full(layout.size),
                    };
                    let v = self.scalar_constant(scalar, int_scalar, constant.span)?;
                    self.store_scalar(v, slot.ptr, int_scalar, slot.align);
                    return self.load_operand(slot);
                }
            },
            ConstValue::Indirect { alloc_id, offset } => {
                // Aggregates live in a constant global; LLVM folds the loads it can see through.
                self.span = constant.span;
                let ptr = self.global_address(alloc_id, offset.bytes())?;
                return self.load_operand(PlaceRef::new_sized(ptr, layout));
            }
            ConstValue::Slice { alloc_id, meta } => {
                self.span = constant.span;
                let data = self.global_address(alloc_id, 0)?;
                OperandVal::Pair(data, self.const_usize(meta))
            }
        };
        Ok(Operand { val, layout })
    }

    fn scalar_constant(
        &mut self,
        scalar: ConstScalar,
        abi: Scalar,
        span: Span,
    ) -> DeviceResult<Value> {
        let int = match scalar {
            ConstScalar::Int(int) => int,
            ConstScalar::Ptr(ptr, _) => {
                let (provenance, offset) = ptr.into_raw_parts();
                self.span = span;
                return self.global_address(provenance.alloc_id(), offset.bytes());
            }
        };
        let bits = int.size().bits();
        let raw = int.to_bits(int.size());
        Ok(match abi.primitive() {
            Primitive::Float(rustc_abi::Float::F32) => {
                let attr = FPSingleAttr::from(f32::from_bits(raw as u32));
                self.emit_value(|ctx| ConstantOp::new(ctx, Box::new(attr)))
            }
            Primitive::Float(rustc_abi::Float::F64) => {
                let attr = FPDoubleAttr::from(f64::from_bits(raw as u64));
                self.emit_value(|ctx| ConstantOp::new(ctx, Box::new(attr)))
            }
            Primitive::Float(rustc_abi::Float::F16) => {
                // From the bits: exact, NaN payloads included.
                let attr = FPHalfAttr(Half::from_bits(raw));
                self.emit_value(|ctx| ConstantOp::new(ctx, Box::new(attr)))
            }
            Primitive::Float(_) => return unsupported(span, "`f128` constants"),
            Primitive::Pointer(_) => {
                let int = self.const_int(bits, raw);
                let ptr_ty = types::ptr(self.ctx());
                self.emit_value(|ctx| IntToPtrOp::new(ctx, int, ptr_ty))
            }
            Primitive::Int(..) if abi.is_bool() => self.const_int(1, raw),
            Primitive::Int(..) => self.const_int(bits, raw),
        })
    }
}

/// The scalar fields of a struct that holds a pointer, with their offsets, when its fields are
/// scalars (or structs of scalars, or niche-tagged enums of them, three levels down) covering
/// every byte: then it is copied field
/// by field (`copy_fields`). `None` for anything else (arrays, enums, unions, padding, no
/// pointer, other enums), which is copied as bytes.
fn pointer_struct_fields<'tcx>(
    cx: &rustc_middle::ty::layout::LayoutCx<'tcx>,
    layout: TyAndLayout<'tcx>,
) -> Option<Vec<(Size, Scalar)>> {
    fn leaves<'tcx>(
        cx: &rustc_middle::ty::layout::LayoutCx<'tcx>,
        layout: TyAndLayout<'tcx>,
        base: Size,
        depth: u32,
        out: &mut Vec<(Size, Scalar)>,
    ) -> Option<()> {
        if layout.is_zst() {
            return Some(());
        }
        if let BackendRepr::Scalar(s) = layout.backend_repr {
            out.push((base, s));
            return Some(());
        }
        if depth == 0 {
            return None;
        }
        // An enum whose tag is a niche of its one dataful variant (`Option<&mut T>`,
        // `Option<((usize, usize), &mut T)>`) is that variant's bytes, the niche included:
        // copied as that variant's fields (bytes a dataless variant leaves uninitialised stay
        // so).
        if let rustc_abi::Variants::Multiple {
            tag_encoding:
                rustc_abi::TagEncoding::Niche {
                    untagged_variant, ..
                },
            ..
        } = layout.variants
        {
            let dataful = layout.for_variant(cx, untagged_variant);
            if dataful.size != layout.size {
                return None;
            }
            return leaves(cx, dataful, base, depth - 1, out);
        }
        // An enum with a tag of its own and one variant that holds data (`Option<WarpRow>`,
        // whose fields have no niche): the tag, then that variant's fields. Copied as bytes,
        // the pointer in it came back through `inttoptr`, unknown to be non-null: every null
        // test of an element reached through it stayed, one branch per store (softmax).
        if let rustc_abi::Variants::Multiple {
            tag,
            tag_encoding: rustc_abi::TagEncoding::Direct,
            tag_field,
            variants,
        } = &layout.variants
        {
            let mut dataful: Option<Vec<(Size, Scalar)>> = None;
            for variant in variants.indices() {
                let mut fields = Vec::new();
                leaves(
                    cx,
                    layout.for_variant(cx, variant),
                    base,
                    depth - 1,
                    &mut fields,
                )?;
                match &dataful {
                    _ if fields.is_empty() => {}
                    None => dataful = Some(fields),
                    Some(other) if *other == fields => {}
                    Some(_) => return None,
                }
            }
            out.push((base + layout.fields.offset(tag_field.as_usize()), *tag));
            out.extend(dataful.unwrap_or_default());
            return Some(());
        }
        let single = matches!(layout.variants, rustc_abi::Variants::Single { .. });
        let arbitrary = matches!(layout.fields, rustc_abi::FieldsShape::Arbitrary { .. });
        if !single || !arbitrary {
            return None;
        }
        for i in 0..layout.fields.count() {
            let field = layout.field(cx, i);
            leaves(cx, field, base + layout.fields.offset(i), depth - 1, out)?;
        }
        Some(())
    }
    if matches!(
        layout.backend_repr,
        BackendRepr::Scalar(_) | BackendRepr::ScalarPair(..)
    ) {
        return None;
    }
    let mut fields = Vec::new();
    leaves(cx, layout, Size::ZERO, 4, &mut fields)?;
    fields.sort_by_key(|(offset, _)| *offset);
    let dl = &rustc_middle::ty::layout::HasTyCtxt::tcx(cx).data_layout;
    // Every byte covered, no overlap: the field copies are the whole copy.
    let mut end = Size::ZERO;
    for &(offset, scalar) in &fields {
        if offset != end {
            return None;
        }
        end = offset + scalar.size(dl);
    }
    let has_pointer = fields
        .iter()
        .any(|(_, s)| matches!(s.primitive(), Primitive::Pointer(_)));
    (end == layout.size && has_pointer && fields.len() <= 16).then_some(fields)
}
