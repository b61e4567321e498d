//! Memory ops (`alloca`, `load`, `store`, `gep`) and aggregate ops (`extract_value`,
//! `insert_value`).

use inkwell::{
    types::BasicType,
    values::{
        AggregateValueEnum, AsValueRef, BasicValue, BasicValueEnum, InstructionValue, IntValue,
    },
};
use pliron::{
    builtin::{attr_interfaces::TypedAttrInterface, attributes::BoolAttr},
    context::Ptr,
    op::Op,
    operation::Operation,
    r#type::TypeHandle,
};
use pliron_llvm::{
    attributes::{AlignmentAttr, GepNoWrapFlags},
    op_interfaces::{ATTR_KEY_LLVM_ALIGNMENT, ATTR_KEY_LLVM_VOLATILE},
    ops::{AllocaOp, ExtractValueOp, GepIndex, GetElementPtrOp, InsertValueOp},
    types::{ArrayType, StructType, VectorType},
};

use crate::{
    errors::EmitError,
    translator::{OpValue, Translator},
};

impl<'ll> Translator<'_, 'll> {
    /// Applies the op's `llvm_alignment` and `llvm_volatile` attributes to `inst`.
    pub(crate) fn memory_attrs(
        &self,
        opr: Ptr<Operation>,
        inst: Option<InstructionValue<'ll>>,
    ) -> Result<(), EmitError> {
        let Some(inst) = inst else { return Ok(()) };
        let op = opr.deref(self.ctx);
        if let Some(align) = op.attributes.get::<AlignmentAttr>(&ATTR_KEY_LLVM_ALIGNMENT) {
            inst.set_alignment(align.0)
                .map_err(|e| EmitError::invalid(self.ctx, opr, e.to_string()))?;
        }
        let volatile = op.attributes.get::<BoolAttr>(&ATTR_KEY_LLVM_VOLATILE);
        if volatile.is_some_and(|v| bool::from(v.clone())) {
            inst.set_volatile(true)
                .map_err(|e| EmitError::invalid(self.ctx, opr, e.to_string()))?;
        }
        Ok(())
    }

    pub(crate) fn pointer_operand(
        &self,
        opr: Ptr<Operation>,
        idx: usize,
    ) -> Result<inkwell::values::PointerValue<'ll>, EmitError> {
        match self.operand(opr, idx)? {
            BasicValueEnum::PointerValue(p) => Ok(p),
            _ => Err(EmitError::invalid(
                self.ctx,
                opr,
                format!("operand {idx} is not a pointer"),
            )),
        }
    }

    pub(crate) fn alloca(&mut self, op: AllocaOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let elem = op
            .get_attr_llvm_alloca_element_type(ctx)
            .map(|t| t.get_type(ctx))
            .ok_or_else(|| EmitError::invalid(ctx, opr, "missing element type"))?;
        let elem = self.ty(opr, elem)?;
        let BasicValueEnum::IntValue(count) = self.operand(opr, 0)? else {
            return Err(EmitError::invalid(ctx, opr, "array size is not an integer"));
        };
        let name = self.result_name(opr);
        let ptr = if count.get_zero_extended_constant() == Some(1) {
            self.builder.build_alloca(elem, &name)
        } else {
            self.builder.build_array_alloca(elem, count, &name)
        };
        let ptr = self.built(opr, ptr)?;
        self.memory_attrs(opr, ptr.as_instruction_value())?;

        // Allocas live in the data layout's alloca address space (generic, 0, on NVPTX); a
        // result typed with another space gets there through a cast.
        let wanted = self.result_type(opr)?;
        if wanted != ptr.get_type().as_basic_type_enum() {
            let cast = self.builder.build_address_space_cast(
                ptr,
                wanted.into_pointer_type(),
                &format!("{name}.cast"),
            );
            return Ok(Some(self.built(opr, cast)?.into()));
        }
        Ok(Some(ptr.into()))
    }

    pub(crate) fn load(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let ptr = self.pointer_operand(opr, 0)?;
        let ty = self.result_type(opr)?;
        let value = self.builder.build_load(ty, ptr, &self.result_name(opr));
        let value = self.built(opr, value)?;
        self.memory_attrs(opr, value.as_instruction_value())?;
        Ok(Some(value))
    }

    pub(crate) fn store(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let value = self.operand(opr, 0)?;
        let ptr = self.pointer_operand(opr, 1)?;
        let inst = self.built(opr, self.builder.build_store(ptr, value))?;
        self.memory_attrs(opr, Some(inst))?;
        Ok(None)
    }

    pub(crate) fn gep(&mut self, gep: GetElementPtrOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, gep.get_operation());
        if gep.get_attr_llvm_gep_indices(ctx).is_none()
            || gep.get_attr_llvm_gep_src_elem_type(ctx).is_none()
        {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "missing indices or source element type",
            ));
        }
        let src_elem = gep.src_elem_type(ctx);
        let indices = gep.indices(ctx);
        // inkwell's GEP crashes on indices that do not fit the type; reject those first.
        if GetElementPtrOp::indexed_type(ctx, src_elem, &indices).is_err() {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "indices do not fit the source element type",
            ));
        }
        let base = self.pointer_operand(opr, 0)?;
        let elem_ty = self.ty(opr, src_elem)?;
        let ll_indices = self.gep_indices(opr, src_elem, &indices)?;

        let flags = gep.no_wrap_flags(ctx);
        let name = self.result_name(opr);
        // SAFETY: the indices were checked against the element type above.
        let ptr = unsafe {
            if flags.contains(GepNoWrapFlags::INBOUNDS) {
                self.builder
                    .build_in_bounds_gep(elem_ty, base, &ll_indices, &name)
            } else {
                self.builder.build_gep(elem_ty, base, &ll_indices, &name)
            }
        };
        let ptr = self.built(opr, ptr)?;
        if let Some(inst) = ptr.as_instruction_value()
            && !flags.is_empty()
        {
            // pliron's flag bits are LLVM's `LLVMGEPNoWrapFlags` bits; inkwell has no setter
            // for nusw/nuw.
            unsafe {
                llvm_sys::core::LLVMGEPSetNoWrapFlags(inst.as_value_ref(), flags.bits().into())
            };
        }
        Ok(Some(ptr.into()))
    }

    /// LLVM index operands: struct field numbers must be `i32` constants; other constant
    /// indices become `i64` so that large `u32` offsets are not read as negative.
    fn gep_indices(
        &self,
        opr: Ptr<Operation>,
        src_elem: TypeHandle,
        indices: &[GepIndex],
    ) -> Result<Vec<IntValue<'ll>>, EmitError> {
        let ctx = self.ctx;
        // The type the next index steps into; the first index steps over the base pointer.
        let mut current: Option<TypeHandle> = None;
        let mut out = Vec::with_capacity(indices.len());
        for index in indices {
            let field = current.and_then(|t| {
                let t = t.deref(ctx);
                t.downcast_ref::<StructType>().map(|_| ())
            });
            let value = match index {
                GepIndex::Constant(c) if field.is_some() => {
                    self.ll.i32_type().const_int(u64::from(*c), false)
                }
                GepIndex::Constant(c) => self.ll.i64_type().const_int(u64::from(*c), false),
                GepIndex::Value(v) => match self.value(opr, *v)? {
                    BasicValueEnum::IntValue(i) => i,
                    _ => {
                        return Err(EmitError::invalid(
                            ctx,
                            opr,
                            "a GEP index is not an integer",
                        ));
                    }
                },
            };
            out.push(value);
            current = Some(match current {
                None => src_elem,
                Some(t) => step_into(ctx, t, index),
            });
        }
        Ok(out)
    }

    pub(crate) fn extract_value(&mut self, op: ExtractValueOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        if op.get_attr_llvm_extract_value_indices(ctx).is_none() {
            return Err(EmitError::invalid(ctx, opr, "missing indices"));
        }
        let indices = op.indices(ctx);
        let mut value = self.operand(opr, 0)?;
        let name = self.result_name(opr);
        for idx in indices {
            let agg = self.aggregate(opr, value)?;
            value = self.built(opr, self.builder.build_extract_value(agg, idx, &name))?;
        }
        Ok(Some(value))
    }

    pub(crate) fn insert_value(&mut self, op: InsertValueOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        if op.get_attr_llvm_insert_value_indices(ctx).is_none() {
            return Err(EmitError::invalid(ctx, opr, "missing indices"));
        }
        let indices = op.indices(ctx);
        let agg = self.operand(opr, 0)?;
        let value = self.operand(opr, 1)?;
        self.insert_path(opr, agg, &indices, value).map(Some)
    }

    /// LLVM's C API inserts one level at a time: extract the inner aggregates along the
    /// path, insert at the bottom, then rebuild outwards.
    fn insert_path(
        &self,
        opr: Ptr<Operation>,
        agg: BasicValueEnum<'ll>,
        indices: &[u32],
        value: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, EmitError> {
        let Some((&first, rest)) = indices.split_first() else {
            return Ok(value);
        };
        let outer = self.aggregate(opr, agg)?;
        let inner = if rest.is_empty() {
            value
        } else {
            let inner = self.built(opr, self.builder.build_extract_value(outer, first, ""))?;
            self.insert_path(opr, inner, rest, value)?
        };
        let name = if indices.len() == 1 {
            self.result_name(opr)
        } else {
            String::new()
        };
        let result = self.built(
            opr,
            self.builder.build_insert_value(outer, inner, first, &name),
        )?;
        Ok(match result {
            AggregateValueEnum::ArrayValue(a) => a.into(),
            AggregateValueEnum::StructValue(s) => s.into(),
        })
    }

    fn aggregate(
        &self,
        opr: Ptr<Operation>,
        value: BasicValueEnum<'ll>,
    ) -> Result<AggregateValueEnum<'ll>, EmitError> {
        match value {
            BasicValueEnum::ArrayValue(a) => Ok(a.into()),
            BasicValueEnum::StructValue(s) => Ok(s.into()),
            _ => Err(EmitError::invalid(
                self.ctx,
                opr,
                "operand is not a struct or array",
            )),
        }
    }
}

/// The type that `index` selects inside `ty` (already validated by pliron's `indexed_type`).
fn step_into(ctx: &pliron::context::Context, ty: TypeHandle, index: &GepIndex) -> TypeHandle {
    let t = ty.deref(ctx);
    if let (Some(st), GepIndex::Constant(c)) = (t.downcast_ref::<StructType>(), index) {
        return st.field_type(*c as usize);
    }
    if let Some(array) = t.downcast_ref::<ArrayType>() {
        return array.elem_type();
    }
    if let Some(vector) = t.downcast_ref::<VectorType>() {
        return vector.elem_type();
    }
    ty
}
