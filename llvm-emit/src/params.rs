//! Parameter attributes (`noalias`, `readonly`, `align`...), which pliron-llvm's `llvm.func` has
//! no place for: producers put one `llvm.attributes` per parameter in a `VecAttr` under
//! [`ATTR_KEY_LLVM_PARAM_ATTRS`]. Function attributes (`convergent`, `noinline`...) are
//! pliron-llvm's own `llvm_func_attrs` of the `llvm.func` (`FuncOp::set_attr_llvm_func_attrs`).

use inkwell::{
    attributes::{Attribute, AttributeLoc},
    context::Context as LlContext,
    values::FunctionValue,
};
use pliron::{builtin::attributes::VecAttr, context::Context, op::Op};
use pliron_llvm::{
    llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
    ops::FuncOp,
};

pliron::dict_key!(
    /// A `VecAttr` of `LlvmAttributesAttr`, one per parameter of an `llvm.func`.
    ATTR_KEY_LLVM_PARAM_ATTRS,
    "llvm_param_attrs"
);

/// Sets `attrs` (one entry per parameter) on `func`.
pub fn set_param_attrs(ctx: &Context, func: FuncOp, attrs: Vec<LlvmAttributesAttr>) {
    let list = VecAttr::new(attrs.into_iter().map(|a| Box::new(a) as _).collect());
    func.get_operation()
        .deref_mut(ctx)
        .attributes
        .set(ATTR_KEY_LLVM_PARAM_ATTRS.clone(), list);
}

/// Applies the parameter and function attributes of `func` to its LLVM function. Unknown
/// attribute names are reported by name.
pub(crate) fn apply(
    ctx: &Context,
    func: FuncOp,
    ll: &LlContext,
    fv: FunctionValue<'_>,
) -> Result<(), String> {
    let op = func.get_operation().deref(ctx);
    if let Some(attrs) = func.get_attr_llvm_func_attrs(ctx) {
        for attribute in llvm_attributes(ll, &attrs).map_err(|e| format!("function: {e}"))? {
            fv.add_attribute(AttributeLoc::Function, attribute);
        }
    }
    let Some(list) = op.attributes.get::<VecAttr>(&ATTR_KEY_LLVM_PARAM_ATTRS) else {
        return Ok(());
    };
    for (index, attrs) in list.0.iter().enumerate() {
        let Some(attrs) = attrs.downcast_ref::<LlvmAttributesAttr>() else {
            return Err(format!("parameter {index}: expected llvm.attributes"));
        };
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
