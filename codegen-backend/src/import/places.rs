//! MIR places: an address, the metadata of an unsized place, its layout and known alignment.

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::mir::{FieldPtrOp, IndexPtrOp, LoadOp, StoreOp};
use pliron::value::Value;
use pliron_llvm::ops::ZeroOp;
use rustc_abi::{Align, FieldIdx, Primitive, Scalar, Size, TagEncoding, VariantIdx, Variants};
use rustc_middle::{
    mir::{self, PlaceTy, ProjectionElem},
    ty::layout::{LayoutCx, TyAndLayout},
};

use super::{FnCx, LocalPlace, types};
use crate::error::{DeviceResult, unsupported};

#[derive(Clone, Copy)]
pub(crate) struct PlaceRef<'tcx> {
    pub(crate) ptr: Value,
    /// The length of a slice place (`[T]`, `str`); `None` for sized places.
    pub(crate) meta: Option<Value>,
    pub(crate) layout: TyAndLayout<'tcx>,
    pub(crate) align: Align,
}

impl<'tcx> PlaceRef<'tcx> {
    pub(crate) fn new_sized(ptr: Value, layout: TyAndLayout<'tcx>) -> Self {
        PlaceRef {
            ptr,
            meta: None,
            layout,
            align: layout.align.abi,
        }
    }
}

impl<'tcx> FnCx<'tcx, '_> {
    pub(crate) fn layout_cx(&self) -> LayoutCx<'tcx> {
        LayoutCx::new(self.m.tcx, self.m.typing_env())
    }

    pub(crate) fn place(&mut self, place: mir::Place<'tcx>) -> DeviceResult<PlaceRef<'tcx>> {
        let mut current = match self.locals[place.local] {
            LocalPlace::Slot(p) => p,
            LocalPlace::ZeroSized(layout) => {
                let ptr_ty = types::ptr(self.ctx());
                let null = self.emit_value(|ctx| ZeroOp::new(ctx, ptr_ty));
                PlaceRef::new_sized(null, layout)
            }
        };
        let mut place_ty = PlaceTy::from_ty(current.layout.ty);
        for elem in place.projection.iter() {
            let next_ty = self.monomorphize(place_ty.projection_ty(self.m.tcx, elem).ty);
            current = self.project(current, elem, next_ty)?;
            place_ty = PlaceTy::from_ty(next_ty);
            if let ProjectionElem::Downcast(_, variant) = elem {
                place_ty = PlaceTy {
                    ty: place_ty.ty,
                    variant_index: Some(variant),
                };
            }
        }
        Ok(current)
    }

    fn project(
        &mut self,
        base: PlaceRef<'tcx>,
        elem: mir::PlaceElem<'tcx>,
        next_ty: rustc_middle::ty::Ty<'tcx>,
    ) -> DeviceResult<PlaceRef<'tcx>> {
        Ok(match elem {
            ProjectionElem::Deref => {
                let pointer = self.load_operand(base)?;
                let layout = self.layout_of(next_ty)?;
                let Some((ptr, meta)) = pointer.val.pointer_parts() else {
                    return unsupported(self.span, format!("dereferencing `{}`", base.layout.ty));
                };
                PlaceRef {
                    ptr,
                    meta,
                    layout,
                    align: layout.align.abi,
                }
            }
            ProjectionElem::Field(field, _) => {
                let layout = if let Variants::Single { .. } = base.layout.variants {
                    base.layout.field(&self.layout_cx(), field.as_usize())
                } else {
                    self.layout_of(next_ty)?
                };
                let offset = base.layout.fields.offset(field.as_usize());
                self.offset_place(base, offset, layout)
            }
            ProjectionElem::Index(local) => {
                let index_place = self.place(mir::Place::from(local))?;
                let index = self.load_operand(index_place)?.immediate(self.span)?;
                self.index_place(base, index, next_ty)?
            }
            ProjectionElem::ConstantIndex {
                offset, from_end, ..
            } => {
                let index = if from_end {
                    let len = self.place_len(base)?;
                    let back = self.const_usize(offset);
                    let sub = pliron_llvm::ops::SubOp::new_with_overflow_flag(
                        self.ctx(),
                        len,
                        back,
                        Default::default(),
                    );
                    self.push_value(sub)
                } else {
                    self.const_usize(offset)
                };
                self.index_place(base, index, next_ty)?
            }
            ProjectionElem::Subslice { from, to, from_end } => {
                let elem_layout = base.layout.field(&self.layout_cx(), 0);
                let layout = self.layout_of(next_ty)?;
                let start = self.offset_place(base, elem_layout.size * from, layout);
                if from_end {
                    let len = self.place_len(base)?;
                    let cut = self.const_usize(from + to);
                    let sub = pliron_llvm::ops::SubOp::new_with_overflow_flag(
                        self.ctx(),
                        len,
                        cut,
                        Default::default(),
                    );
                    let meta = self.push_value(sub);
                    PlaceRef {
                        meta: Some(meta),
                        ..start
                    }
                } else {
                    start
                }
            }
            ProjectionElem::Downcast(_, variant) => {
                let layout = base.layout.for_variant(&self.layout_cx(), variant);
                PlaceRef { layout, ..base }
            }
            ProjectionElem::OpaqueCast(_) | ProjectionElem::UnwrapUnsafeBinder(_) => PlaceRef {
                layout: self.layout_of(next_ty)?,
                ..base
            },
        })
    }

    pub(crate) fn offset_place(
        &mut self,
        base: PlaceRef<'tcx>,
        offset: Size,
        layout: TyAndLayout<'tcx>,
    ) -> PlaceRef<'tcx> {
        let ptr = if offset.bytes() == 0 {
            base.ptr
        } else {
            self.emit_value(|ctx| FieldPtrOp::new(ctx, base.ptr, offset.bytes()))
        };
        // An unsized tail keeps the metadata of its parent.
        let meta = if layout.is_unsized() { base.meta } else { None };
        PlaceRef {
            ptr,
            meta,
            layout,
            align: base.align.restrict_for_offset(offset),
        }
    }

    fn index_place(
        &mut self,
        base: PlaceRef<'tcx>,
        index: Value,
        elem_ty: rustc_middle::ty::Ty<'tcx>,
    ) -> DeviceResult<PlaceRef<'tcx>> {
        let layout = self.layout_of(elem_ty)?;
        let ptr = self.emit_value(|ctx| IndexPtrOp::new(ctx, base.ptr, index, layout.size.bytes()));
        Ok(PlaceRef {
            ptr,
            meta: None,
            layout,
            align: base.align.min(layout.align.abi),
        })
    }

    /// The element count of an array or slice place.
    pub(crate) fn place_len(&mut self, place: PlaceRef<'tcx>) -> DeviceResult<Value> {
        if let Some(meta) = place.meta {
            return Ok(meta);
        }
        match place.layout.ty.kind() {
            rustc_middle::ty::Array(_, len) => {
                let Some(n) = len.try_to_target_usize(self.m.tcx) else {
                    return unsupported(
                        self.span,
                        "an array whose length is not known after monomorphisation",
                    );
                };
                Ok(self.const_usize(n))
            }
            _ => unsupported(self.span, format!("the length of `{}`", place.layout.ty)),
        }
    }

    pub(crate) fn load_scalar(
        &mut self,
        ptr: Value,
        scalar: Scalar,
        align: Align,
    ) -> DeviceResult<Value> {
        let Some(mem_ty) = types::scalar_memory(self.ctx(), scalar) else {
            return unsupported(self.span, "`f128`");
        };
        let value = self.emit_value(|ctx| LoadOp::new(ctx, ptr, mem_ty, align.bytes() as u32));
        if scalar.is_bool() {
            let i1 = types::int(self.ctx(), 1);
            return Ok(self.emit_value(|ctx| pliron_llvm::ops::TruncOp::new(ctx, value, i1)));
        }
        Ok(value)
    }

    pub(crate) fn store_scalar(&mut self, value: Value, ptr: Value, scalar: Scalar, align: Align) {
        let value = if scalar.is_bool() {
            let i8_ty = types::int(self.ctx(), 8);
            self.emit_value(|ctx| pliron_llvm::ops::ZExtOp::new_with_nneg(ctx, value, i8_ty, false))
        } else {
            value
        };
        self.emit(|ctx| StoreOp::new(ctx, value, ptr, align.bytes() as u32));
    }

    /// The discriminant of the enum in `place`, as a value of `discr_layout`.
    pub(crate) fn read_discriminant(
        &mut self,
        place: PlaceRef<'tcx>,
        discr_layout: TyAndLayout<'tcx>,
    ) -> DeviceResult<Value> {
        let tcx = self.m.tcx;
        let Some(discr_scalar) = types::as_scalar(discr_layout) else {
            return unsupported(self.span, "a discriminant that is not a scalar");
        };
        let discr_bits = discr_scalar.size(&tcx).bits();
        match &place.layout.variants {
            Variants::Empty => Ok(self.const_int(discr_bits, 0)),
            Variants::Single { index } => {
                let value = place
                    .layout
                    .ty
                    .discriminant_for_variant(tcx, *index)
                    .map_or(index.as_u32() as u128, |d| d.val);
                Ok(self.const_int(discr_bits, value))
            }
            Variants::Multiple {
                tag,
                tag_encoding,
                tag_field,
                ..
            } => {
                let tag_place = self.tag_place(place, *tag_field, *tag);
                let mut tag_value = self.load_scalar(tag_place.ptr, *tag, tag_place.align)?;
                let tag_bits = tag.size(&tcx).bits();
                if let Primitive::Pointer(_) = tag.primitive() {
                    let int_ty = types::int(self.ctx(), tag_bits);
                    tag_value = self.emit_value(|ctx| {
                        pliron_llvm::ops::PtrToIntOp::new(ctx, tag_value, int_ty)
                    });
                }
                match tag_encoding {
                    TagEncoding::Direct => {
                        let signed = matches!(tag.primitive(), Primitive::Int(_, true));
                        Ok(self.int_resize(tag_value, tag_bits, discr_bits, signed))
                    }
                    TagEncoding::Niche {
                        untagged_variant,
                        niche_variants,
                        niche_start,
                    } => {
                        let first = niche_variants.start().as_u32() as u128;
                        let count = niche_variants.end().as_u32() as u128 - first;
                        let start = self.const_int(tag_bits, *niche_start);
                        let relative = self.emit_value(|ctx| {
                            pliron_llvm::ops::SubOp::new_with_overflow_flag(
                                ctx,
                                tag_value,
                                start,
                                Default::default(),
                            )
                        });
                        let count = self.const_int(tag_bits, count);
                        let is_niche = self.emit_value(|ctx| {
                            pliron_llvm::ops::ICmpOp::new(
                                ctx,
                                pliron_llvm::attributes::ICmpPredicateAttr::ULE,
                                relative,
                                count,
                            )
                        });
                        let relative = self.int_resize(relative, tag_bits, discr_bits, false);
                        let first = self.const_int(discr_bits, first);
                        let niche_discr = self.emit_value(|ctx| {
                            pliron_llvm::ops::AddOp::new_with_overflow_flag(
                                ctx,
                                relative,
                                first,
                                Default::default(),
                            )
                        });
                        let untagged =
                            self.const_int(discr_bits, untagged_variant.as_u32() as u128);
                        Ok(self.emit_value(|ctx| {
                            pliron_llvm::ops::SelectOp::new(ctx, is_niche, niche_discr, untagged)
                        }))
                    }
                }
            }
        }
    }

    pub(crate) fn set_discriminant(
        &mut self,
        place: PlaceRef<'tcx>,
        variant: VariantIdx,
    ) -> DeviceResult<()> {
        let tcx = self.m.tcx;
        let Variants::Multiple {
            tag,
            tag_encoding,
            tag_field,
            ..
        } = &place.layout.variants
        else {
            return Ok(());
        };
        let tag_bits = tag.size(&tcx).bits();
        let value = match tag_encoding {
            TagEncoding::Direct => {
                let discr = place
                    .layout
                    .ty
                    .discriminant_for_variant(tcx, variant)
                    .map_or(variant.as_u32() as u128, |d| d.val);
                discr & mask(tag_bits)
            }
            TagEncoding::Niche {
                untagged_variant,
                niche_variants,
                niche_start,
            } => {
                if variant == *untagged_variant {
                    return Ok(());
                }
                let relative = (variant.as_u32() - niche_variants.start().as_u32()) as u128;
                relative.wrapping_add(*niche_start) & mask(tag_bits)
            }
        };
        let tag_place = self.tag_place(place, *tag_field, *tag);
        if let Primitive::Pointer(_) = tag.primitive() {
            // A pointer's niche (`None` of an `Option<&mut T>`, of an
            // `Option<(usize, &mut T)>`) is written as a pointer, as rustc's LLVM backend does:
            // written as an integer, SROA gave the whole slot an integer type and the
            // reference came back through `inttoptr`, not known to be non-null, so the null
            // test of every such option stayed (a branch per element of an output).
            let ptr_ty = types::ptr(self.ctx());
            let niche = if value == 0 {
                self.emit_value(|ctx| ZeroOp::new(ctx, ptr_ty))
            } else {
                let int = self.const_int(tag_bits, value);
                self.emit_value(|ctx| pliron_llvm::ops::IntToPtrOp::new(ctx, int, ptr_ty))
            };
            self.store_scalar(niche, tag_place.ptr, *tag, tag_place.align);
            return Ok(());
        }
        let int_tag = Scalar::Initialized {
            value: Primitive::Int(
                rustc_abi::Integer::from_size(tag.size(&tcx)).expect("tag size"),
                false,
            ),
            valid_range: rustc_abi::WrappingRange::full(tag.size(&tcx)),
        };
        let value = self.const_int(tag_bits, value);
        self.store_scalar(value, tag_place.ptr, int_tag, tag_place.align);
        Ok(())
    }

    fn tag_place(
        &mut self,
        place: PlaceRef<'tcx>,
        tag_field: FieldIdx,
        _tag: Scalar,
    ) -> PlaceRef<'tcx> {
        let offset = place.layout.fields.offset(tag_field.as_usize());
        let layout = place.layout.field(&self.layout_cx(), tag_field.as_usize());
        self.offset_place(place, offset, layout)
    }
}

fn mask(bits: u64) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}
