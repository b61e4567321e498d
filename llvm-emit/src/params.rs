//! Function and parameter attributes onto the LLVM function. Function attributes
//! (`convergent`, `noinline`...) are pliron-llvm's own `llvm_func_attrs` of the `llvm.func`;
//! parameter attributes (`noalias`, `readonly`, `align`...), which pliron-llvm's op has no place
//! for, are oxide's extension of the dialect, read through `oxide_dialects::param_attrs` (the
//! layer the backend writes them through, so the key is defined once).

use inkwell::{
    attributes::{Attribute, AttributeLoc},
    context::Context as LlContext,
    values::FunctionValue,
};
use pliron::context::Context;
use pliron_llvm::{
    llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
    ops::FuncOp,
};

/// Applies the parameter and function attributes of `func` to its LLVM function. Unknown
/// attribute names are reported by name.
pub(crate) fn apply(
    ctx: &Context,
    func: FuncOp,
    ll: &LlContext,
    fv: FunctionValue<'_>,
) -> Result<(), String> {
    if let Some(attrs) = func.get_attr_llvm_func_attrs(ctx) {
        for attribute in llvm_attributes(ll, &attrs).map_err(|e| format!("function: {e}"))? {
            fv.add_attribute(AttributeLoc::Function, attribute);
        }
    }
    let params = oxide_dialects::param_attrs::param_attrs(ctx, func).map_err(|e| e.to_string())?;
    for (index, attrs) in params.iter().enumerate() {
        for attribute in llvm_attributes(ll, attrs)? {
            fv.add_attribute(AttributeLoc::Param(index as u32), attribute);
        }
    }
    Ok(())
}

/// The LLVM attributes of an `llvm.attributes`: enum attributes (with or without an integer)
/// by their LLVM names, and string attributes. Unknown enum names are reported by name.
pub(crate) fn llvm_attributes(
    ll: &LlContext,
    attrs: &LlvmAttributesAttr,
) -> Result<Vec<Attribute>, String> {
    attrs
        .iter()
        .map(|(name, value)| match value {
            LlvmAttrValue::Str(s) => Ok(ll.create_string_attribute(name, s)),
            LlvmAttrValue::Unit | LlvmAttrValue::Int(_) => {
                let kind = Attribute::get_named_enum_kind_id(name);
                if kind == 0 {
                    return Err(format!("unknown LLVM attribute `{name}`"));
                }
                let int = if let LlvmAttrValue::Int(i) = value {
                    *i
                } else {
                    0
                };
                Ok(ll.create_enum_attribute(kind, int))
            }
            LlvmAttrValue::Type(_) => {
                Err(format!("type-valued attribute `{name}` is not supported"))
            }
        })
        .collect()
}
