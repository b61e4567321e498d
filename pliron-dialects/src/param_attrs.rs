//! Parameter attributes (`noalias`, `readonly`, `align`...) of an `llvm.func`, which
//! pliron-llvm's op has no place for: one `llvm.attributes` per parameter, in a `VecAttr` under
//! [`ATTR_KEY_LLVM_PARAM_ATTRS`]. The backend writes them and llvm-emit applies them; the key and
//! its reading live here, the layer both depend on, so neither side spells the protocol out.
//! Function attributes (`convergent`, `noinline`...) are pliron-llvm's own `llvm_func_attrs`
//! (`FuncOp::set_attr_llvm_func_attrs`).

use pliron::{builtin::attributes::VecAttr, context::Context, op::Op};
use pliron_llvm::{llvm_attrs::LlvmAttributesAttr, ops::FuncOp};

pliron::dict_key!(
    /// A `VecAttr` of `LlvmAttributesAttr`, one per parameter of an `llvm.func`.
    ATTR_KEY_LLVM_PARAM_ATTRS,
    "llvm_param_attrs"
);

/// An entry under [`ATTR_KEY_LLVM_PARAM_ATTRS`] that is not an `llvm.attributes` (only a module
/// written by hand, or parsed from text, can have one: [`set_param_attrs`] cannot make it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parameter {index}: expected llvm.attributes")]
pub struct NotParamAttrs {
    /// The parameter's position.
    pub index: usize,
}

/// Sets `attrs` (one entry per parameter) on `func`.
pub fn set_param_attrs(ctx: &Context, func: FuncOp, attrs: Vec<LlvmAttributesAttr>) {
    let list = VecAttr::new(attrs.into_iter().map(|a| Box::new(a) as _).collect());
    func.get_operation()
        .deref_mut(ctx)
        .attributes
        .set(ATTR_KEY_LLVM_PARAM_ATTRS.clone(), list);
}

/// The parameter attributes of `func`, by parameter position; empty when it has none.
pub fn param_attrs(ctx: &Context, func: FuncOp) -> Result<Vec<LlvmAttributesAttr>, NotParamAttrs> {
    let op = func.get_operation().deref(ctx);
    let Some(list) = op.attributes.get::<VecAttr>(&ATTR_KEY_LLVM_PARAM_ATTRS) else {
        return Ok(Vec::new());
    };
    list.0
        .iter()
        .enumerate()
        .map(|(index, attrs)| {
            attrs
                .downcast_ref::<LlvmAttributesAttr>()
                .cloned()
                .ok_or(NotParamAttrs { index })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use pliron::{
        builtin::{
            attributes::{StringAttr, VecAttr},
            types::{IntegerType, Signedness},
        },
        context::Context,
        op::Op,
    };
    use pliron_llvm::{
        llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
        ops::FuncOp,
        types::{FuncType, PointerType, VoidType},
    };

    use super::*;

    /// `f(ptr addrspace(1), i32) -> void`.
    fn two_params(ctx: &mut Context) -> FuncOp {
        let ptr = PointerType::get(ctx, 1).into();
        let i32_ty = IntegerType::get(ctx, 32, Signedness::Signless).into();
        let void = VoidType::get(ctx).into();
        let ty = FuncType::get(ctx, void, vec![ptr, i32_ty], false);
        FuncOp::new(ctx, "f".try_into().unwrap(), ty)
    }

    fn readonly_slice() -> LlvmAttributesAttr {
        let mut attrs = LlvmAttributesAttr::new();
        attrs.set("noalias", LlvmAttrValue::Unit);
        attrs.set("align", LlvmAttrValue::Int(16));
        attrs.set("readonly", LlvmAttrValue::Unit);
        attrs
    }

    #[test]
    fn what_is_set_is_read_back_by_position() {
        let ctx = &mut Context::new();
        let func = two_params(ctx);
        assert_eq!(param_attrs(ctx, func), Ok(Vec::new()));
        let attrs = vec![readonly_slice(), LlvmAttributesAttr::new()];
        set_param_attrs(ctx, func, attrs.clone());
        assert_eq!(param_attrs(ctx, func), Ok(attrs));
    }

    /// The printed form is what the pipeline dumps (and their snapshots) show.
    #[test]
    fn the_key_is_llvm_param_attrs() {
        assert_eq!(ATTR_KEY_LLVM_PARAM_ATTRS.to_string(), "llvm_param_attrs");
    }

    #[test]
    fn an_entry_of_another_kind_names_its_parameter() {
        let ctx = &mut Context::new();
        let func = two_params(ctx);
        let list = VecAttr::new(vec![
            Box::new(readonly_slice()),
            Box::new(StringAttr::new("noalias".into())),
        ]);
        func.get_operation()
            .deref_mut(ctx)
            .attributes
            .set(ATTR_KEY_LLVM_PARAM_ATTRS.clone(), list);
        let err = param_attrs(ctx, func).unwrap_err();
        assert_eq!(err, NotParamAttrs { index: 1 });
        assert_eq!(err.to_string(), "parameter 1: expected llvm.attributes");
    }
}
