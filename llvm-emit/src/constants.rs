//! Constant attributes to LLVM constants: the values of `llvm.constant` ops and the
//! initializers of `llvm.global`s.
//!
//! Supported: `IntegerAttr`, the float attributes (`dyn FloatAttr`), `BytesAttr` (an
//! `[N x i8]` with exactly those bytes), `ZeroAttr`, `UndefAttr`, `PoisonAttr`,
//! `AggregateAttr` (array, struct or vector of any of these, nested), `SplatAttr` (fixed-length
//! vectors) and `SymbolAddrAttr` (the address of a global or a function, cast to the
//! attribute's address space if the symbol lives in another one).

use std::num::NonZeroU32;

use inkwell::{
    types::{AsTypeRef, BasicTypeEnum},
    values::{ArrayValue, AsValueRef, BasicValueEnum, FloatValue, PointerValue},
};
use pliron::{
    attribute::{Attribute, attr_cast},
    builtin::{
        attr_interfaces::{FloatAttr, TypedAttrInterface},
        attributes::IntegerAttr,
    },
    context::Ptr,
    identifier::Identifier,
    operation::Operation,
    printable::Printable,
    r#type::TypeHandle,
};
use pliron_llvm::{
    attributes::{
        AggregateAttr, BytesAttr, PoisonAttr, SplatAttr, SymbolAddrAttr, UndefAttr, ZeroAttr,
    },
    types::{ArrayType, StructType, VectorType},
};

use crate::{errors::EmitError, translator::Translator};

/// `undef` (or `poison`) of any first-class type.
pub(crate) fn undef_or_poison(ty: BasicTypeEnum<'_>, undef: bool) -> BasicValueEnum<'_> {
    macro_rules! pick {
        ($t:expr) => {
            if undef {
                $t.get_undef().into()
            } else {
                $t.get_poison().into()
            }
        };
    }
    match ty {
        BasicTypeEnum::IntType(t) => pick!(t),
        BasicTypeEnum::FloatType(t) => pick!(t),
        BasicTypeEnum::PointerType(t) => pick!(t),
        BasicTypeEnum::ArrayType(t) => pick!(t),
        BasicTypeEnum::StructType(t) => pick!(t),
        BasicTypeEnum::VectorType(t) => pick!(t),
        BasicTypeEnum::ScalableVectorType(t) => pick!(t),
    }
}

/// Is `value` an LLVM constant (which includes the addresses of globals and functions)?
pub(crate) fn is_constant(value: BasicValueEnum<'_>) -> bool {
    unsafe { llvm_sys::core::LLVMIsConstant(value.as_value_ref()) != 0 }
}

impl<'ll> Translator<'_, 'll> {
    /// The LLVM constant for `attr`, which must be of pliron type `ty`. Errors blame `opr`.
    pub(crate) fn const_value(
        &mut self,
        opr: Ptr<Operation>,
        attr: &dyn Attribute,
        ty: TypeHandle,
    ) -> Result<BasicValueEnum<'ll>, EmitError> {
        let ctx = self.ctx;
        // pliron's verifiers check this for ops and aggregates, but LLVM's constant
        // constructors do not check at all, so a mismatch is caught here rather than as
        // malformed IR.
        if let Some(typed) = attr_cast::<dyn TypedAttrInterface>(attr) {
            let attr_ty = typed.get_type(ctx);
            if attr_ty != ty {
                return Err(EmitError::invalid(
                    ctx,
                    opr,
                    format!(
                        "a constant of type {} where {} is expected",
                        attr_ty.disp(ctx),
                        ty.disp(ctx)
                    ),
                ));
            }
        }
        let ll_ty = self.ty(opr, ty)?;
        let mismatch = || {
            EmitError::invalid(
                ctx,
                opr,
                format!(
                    "{} cannot be a constant of type {}",
                    attr.get_attr_id(),
                    ty.disp(ctx)
                ),
            )
        };

        if let Some(int) = attr.downcast_ref::<IntegerAttr>() {
            let BasicTypeEnum::IntType(int_ty) = ll_ty else {
                return Err(mismatch());
            };
            return Ok(int_constant(int_ty, &int.value()).into());
        }
        if let Some(float) = attr_cast::<dyn FloatAttr>(attr) {
            let BasicTypeEnum::FloatType(float_ty) = ll_ty else {
                return Err(mismatch());
            };
            // Going through the bit pattern keeps NaN payloads and f16/bf16 values exact.
            let bits = float.to_bits();
            let width = NonZeroU32::new(float.get_semantics().bits as u32)
                .expect("float widths are non-zero");
            let int_ty = self
                .ll
                .custom_width_int_type(width)
                .map_err(|e| EmitError::invalid(ctx, opr, e))?;
            let as_int = int_ty.const_int_arbitrary_precision(&[bits as u64, (bits >> 64) as u64]);
            // LLVM folds a bitcast of an integer constant into a floating-point constant.
            let value = unsafe {
                FloatValue::new(llvm_sys::core::LLVMConstBitCast(
                    as_int.as_value_ref(),
                    float_ty.as_type_ref(),
                ))
            };
            return Ok(value.into());
        }
        if let Some(bytes) = attr.downcast_ref::<BytesAttr>() {
            // The type check above has established that the type is `[len x i8]`.
            return Ok(self.ll.const_string(bytes.as_ref(), false).into());
        }
        if attr.is::<ZeroAttr>() {
            return Ok(ll_ty.const_zero());
        }
        if attr.is::<UndefAttr>() || attr.is::<PoisonAttr>() {
            return Ok(undef_or_poison(ll_ty, attr.is::<UndefAttr>()));
        }
        if let Some(agg) = attr.downcast_ref::<AggregateAttr>() {
            return self.const_aggregate(opr, agg, ty, ll_ty);
        }
        if let Some(splat) = attr.downcast_ref::<SplatAttr>() {
            // Scalable vectors have no LLVM type here, so `ll_ty` above has already failed.
            let (elem_ty, n) = {
                let v = splat.ty().deref(ctx);
                (v.elem_type(), v.num_elements())
            };
            let element = self.const_value(opr, splat.element(), elem_ty)?;
            let elements = vec![element; n as usize];
            return Ok(inkwell::types::VectorType::const_vector(&elements).into());
        }
        if let Some(sym) = attr.downcast_ref::<SymbolAddrAttr>() {
            let BasicTypeEnum::PointerType(ptr_ty) = ll_ty else {
                return Err(mismatch());
            };
            return Ok(self.symbol_address(opr, sym.symbol(), ptr_ty)?.into());
        }
        Err(EmitError::invalid(
            ctx,
            opr,
            format!(
                "{} is not a supported constant attribute",
                attr.get_attr_id()
            ),
        ))
    }

    fn const_aggregate(
        &mut self,
        opr: Ptr<Operation>,
        agg: &AggregateAttr,
        ty: TypeHandle,
        ll_ty: BasicTypeEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, EmitError> {
        let ctx = self.ctx;
        // The element types, one per element (pliron's verifier has checked the counts, but
        // an unverified module could still disagree).
        let elem_tys: Vec<TypeHandle> = {
            let t = ty.deref(ctx);
            let n = agg.elements().len();
            if let Some(array) = t.downcast_ref::<ArrayType>() {
                (array.size() == n as u64).then(|| vec![array.elem_type(); n])
            } else if let Some(vector) = t.downcast_ref::<VectorType>() {
                (!vector.is_scalable() && vector.num_elements() as usize == n)
                    .then(|| vec![vector.elem_type(); n])
            } else if let Some(st) = t.downcast_ref::<StructType>() {
                (!st.is_opaque() && st.num_fields() == n).then(|| st.fields().collect())
            } else {
                None
            }
        }
        .ok_or_else(|| {
            EmitError::invalid(
                ctx,
                opr,
                format!(
                    "an aggregate of {} elements does not fit {}",
                    agg.elements().len(),
                    ty.disp(ctx)
                ),
            )
        })?;
        let elements = agg
            .elements()
            .iter()
            .zip(elem_tys)
            .map(|(element, elem_ty)| {
                let element: &dyn Attribute = &**element;
                self.const_value(opr, element, elem_ty)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match ll_ty {
            BasicTypeEnum::ArrayType(array_ty) => {
                // SAFETY: every element was converted to the array's element type.
                unsafe { ArrayValue::new_const_array(&array_ty.get_element_type(), &elements) }
                    .into()
            }
            BasicTypeEnum::StructType(struct_ty) => struct_ty.const_named_struct(&elements).into(),
            BasicTypeEnum::VectorType(_) => {
                inkwell::types::VectorType::const_vector(&elements).into()
            }
            // Only arrays, structs and vectors got element types above.
            BasicTypeEnum::IntType(_)
            | BasicTypeEnum::FloatType(_)
            | BasicTypeEnum::PointerType(_)
            | BasicTypeEnum::ScalableVectorType(_) => {
                return Err(EmitError::invalid(
                    ctx,
                    opr,
                    format!("{} is not an aggregate type", ty.disp(ctx)),
                ));
            }
        })
    }

    /// The address of the global or function `sym` (pliron symbol name), as a pointer of type
    /// `want`: a symbol in another address space is reached through an `addrspacecast`.
    pub(crate) fn symbol_address(
        &self,
        opr: Ptr<Operation>,
        sym: &Identifier,
        want: inkwell::types::PointerType<'ll>,
    ) -> Result<PointerValue<'ll>, EmitError> {
        let ptr = if let Some(g) = self.globals.get(sym) {
            g.as_pointer_value()
        } else if let Some(f) = self.functions.get(sym) {
            f.as_global_value().as_pointer_value()
        } else {
            return Err(EmitError::invalid(
                self.ctx,
                opr,
                format!("@{sym} is not a global or a function of this module"),
            ));
        };
        if ptr.get_type() == want {
            return Ok(ptr);
        }
        Ok(ptr.const_address_space_cast(want))
    }
}

/// An integer constant of any width from pliron's arbitrary-precision integer.
pub(crate) fn int_constant<'ll>(
    ty: inkwell::types::IntType<'ll>,
    value: &pliron::utils::apint::APInt,
) -> inkwell::values::IntValue<'ll> {
    let words = value.bw().div_ceil(64).max(1);
    let mut bytes = vec![0u8; words * 8];
    value.to_u8_slice(&mut bytes);
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
        .collect();
    ty.const_int_arbitrary_precision(&words)
}
