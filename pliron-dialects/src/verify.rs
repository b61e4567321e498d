//! Type predicates shared by the verifiers of the `mir` and `gpu` ops.

use pliron::{
    builtin::{type_interfaces::FloatTypeInterface, types::IntegerType},
    context::Context,
    printable::Printable,
    r#type::{TypeHandle, type_impls},
};
use pliron_llvm::types::{ArrayType, PointerType, StructType, VectorType, VoidType};

/// Whether a value of `ty` occupies memory of a known size: what a slot can hold and a load or
/// store can move. Void, functions and opaque structs have no size.
pub(crate) fn is_sized(ctx: &Context, ty: TypeHandle) -> bool {
    let elem = {
        let t = ty.deref(ctx);
        if t.is::<IntegerType>()
            || t.is::<PointerType>()
            || type_impls::<dyn FloatTypeInterface>(&*t)
        {
            return true;
        }
        if let Some(array) = t.downcast_ref::<ArrayType>() {
            array.elem_type()
        } else if let Some(vector) = t.downcast_ref::<VectorType>() {
            if vector.is_scalable() {
                return false;
            }
            vector.elem_type()
        } else if let Some(st) = t.downcast_ref::<StructType>() {
            if st.is_opaque() {
                return false;
            }
            let fields: Vec<_> = st.fields().collect();
            return fields.into_iter().all(|f| is_sized(ctx, f));
        } else {
            return false;
        }
    };
    is_sized(ctx, elem)
}

pub(crate) fn is_void(ctx: &Context, ty: TypeHandle) -> bool {
    ty.deref(ctx).is::<VoidType>()
}

pub(crate) fn show(ctx: &Context, ty: TypeHandle) -> String {
    // Some types print with a trailing space (`llvm.void `), which reads badly in quotes.
    ty.disp(ctx).to_string().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use pliron::builtin::types::{FP16Type, FP32Type, Signedness};
    use pliron_llvm::types::{FuncType, StructLayout};

    use super::*;

    #[test]
    fn sized_types_are_scalars_and_aggregates_of_them() {
        let ctx = &mut Context::new();
        let i8_ty: TypeHandle = IntegerType::get(ctx, 8, Signedness::Signless).into();
        let f16: TypeHandle = FP16Type::get(ctx).into();
        let f32: TypeHandle = FP32Type::get(ctx).into();
        let ptr: TypeHandle = PointerType::get(ctx, 1).into();
        let void: TypeHandle = VoidType::get(ctx).into();
        let bytes = ArrayType::get(ctx, i8_ty, 0).into();
        let pair = StructType::get_unnamed(ctx, (vec![f32, ptr], StructLayout::Unpacked)).into();
        let opaque = StructType::get_named(ctx, "opaque".try_into().unwrap(), None)
            .unwrap()
            .into();
        let func = FuncType::get(ctx, void, vec![], false).into();
        for sized in [i8_ty, f16, f32, ptr, bytes, pair] {
            assert!(is_sized(ctx, sized), "{}", show(ctx, sized));
        }
        for unsized_ty in [void, opaque, func] {
            assert!(!is_sized(ctx, unsized_ty), "{}", show(ctx, unsized_ty));
        }
        let voids = ArrayType::get(ctx, void, 4).into();
        assert!(!is_sized(ctx, voids));
    }
}
