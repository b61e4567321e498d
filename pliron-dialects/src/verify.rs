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
