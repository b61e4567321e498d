//! pliron types (builtin + LLVM dialect) to inkwell types.

use std::collections::HashMap;
use std::num::NonZeroU32;

use inkwell::{
    AddressSpace,
    context::Context as LlContext,
    types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType},
};
use pliron::{
    builtin::{
        type_interfaces::FunctionTypeInterface,
        types::{BF16Type, FP16Type, FP32Type, FP64Type, IntegerType},
    },
    context::Context,
    printable::Printable,
    r#type::{TypeHandle, TypedHandle},
};
use pliron_llvm::types::{ArrayType, FuncType, PointerType, StructType, VectorType, VoidType};

/// A pliron type with no LLVM equivalent here (its printed form).
#[derive(Debug)]
pub(crate) struct UnsupportedType(pub String);

fn unsupported(ctx: &Context, ty: TypeHandle) -> UnsupportedType {
    UnsupportedType(ty.disp(ctx).to_string())
}

/// Converts types, caching the results: pliron types are uniqued, so a handle identifies a
/// type, and caching named structs is what makes them convert to one LLVM identified struct.
pub(crate) struct TypeConverter<'ll> {
    ll: &'ll LlContext,
    cache: HashMap<TypeHandle, BasicTypeEnum<'ll>>,
}

impl<'ll> TypeConverter<'ll> {
    pub(crate) fn new(ll: &'ll LlContext) -> Self {
        Self {
            ll,
            cache: HashMap::new(),
        }
    }

    /// Is `ty` `llvm.void` (which has no [`BasicTypeEnum`])?
    pub(crate) fn is_void(ctx: &Context, ty: TypeHandle) -> bool {
        ty.deref(ctx).is::<VoidType>()
    }

    /// A first-class (non-void, non-function) type.
    pub(crate) fn basic(
        &mut self,
        ctx: &Context,
        ty: TypeHandle,
    ) -> Result<BasicTypeEnum<'ll>, UnsupportedType> {
        if let Some(cached) = self.cache.get(&ty) {
            return Ok(*cached);
        }
        let converted = self.convert_uncached(ctx, ty)?;
        self.cache.insert(ty, converted);
        Ok(converted)
    }

    fn convert_uncached(
        &mut self,
        ctx: &Context,
        ty: TypeHandle,
    ) -> Result<BasicTypeEnum<'ll>, UnsupportedType> {
        let ll = self.ll;
        let ty_ref = ty.deref(ctx);
        if let Some(int_ty) = ty_ref.downcast_ref::<IntegerType>() {
            // Signedness is a pliron-level notion; LLVM integers are signless.
            let width = NonZeroU32::new(int_ty.width()).ok_or_else(|| unsupported(ctx, ty))?;
            let int = ll
                .custom_width_int_type(width)
                .map_err(|_| unsupported(ctx, ty))?;
            return Ok(int.into());
        }
        if ty_ref.is::<FP32Type>() {
            return Ok(ll.f32_type().into());
        }
        if ty_ref.is::<FP64Type>() {
            return Ok(ll.f64_type().into());
        }
        if ty_ref.is::<FP16Type>() {
            return Ok(ll.f16_type().into());
        }
        if ty_ref.is::<BF16Type>() {
            return Ok(ll.bf16_type().into());
        }
        if let Some(ptr) = ty_ref.downcast_ref::<PointerType>() {
            let space =
                AddressSpace::try_from(ptr.address_space()).map_err(|_| unsupported(ctx, ty))?;
            return Ok(ll.ptr_type(space).into());
        }
        if let Some(array) = ty_ref.downcast_ref::<ArrayType>() {
            let (elem, size) = (array.elem_type(), array.size());
            drop(ty_ref);
            let size = u32::try_from(size).map_err(|_| unsupported(ctx, ty))?;
            return Ok(self.basic(ctx, elem)?.array_type(size).into());
        }
        if let Some(vector) = ty_ref.downcast_ref::<VectorType>() {
            if vector.is_scalable() {
                return Err(unsupported(ctx, ty));
            }
            let (elem, n) = (vector.elem_type(), vector.num_elements());
            drop(ty_ref);
            return match self.basic(ctx, elem)? {
                BasicTypeEnum::IntType(t) => Ok(t.vec_type(n).into()),
                BasicTypeEnum::FloatType(t) => Ok(t.vec_type(n).into()),
                BasicTypeEnum::PointerType(t) => Ok(t.vec_type(n).into()),
                _ => Err(unsupported(ctx, ty)),
            };
        }
        if let Some(st) = ty_ref.downcast_ref::<StructType>() {
            let name = st.name();
            let body = (!st.is_opaque()).then(|| (st.fields().collect::<Vec<_>>(), st.layout()));
            drop(ty_ref);
            return self.convert_struct(ctx, ty, name.map(|n| n.to_string()), body);
        }
        Err(unsupported(ctx, ty))
    }

    fn convert_struct(
        &mut self,
        ctx: &Context,
        ty: TypeHandle,
        name: Option<String>,
        body: Option<(Vec<TypeHandle>, pliron_llvm::types::StructLayout)>,
    ) -> Result<BasicTypeEnum<'ll>, UnsupportedType> {
        let Some(name) = name else {
            let (fields, layout) = body.ok_or_else(|| unsupported(ctx, ty))?;
            let fields = self.basic_all(ctx, &fields)?;
            return Ok(self.ll.struct_type(&fields, layout.into()).into());
        };
        // Register the identified struct before converting its body, so a field that
        // (through an array, say) mentions the struct again hits the cache instead of
        // recursing forever.
        let llvm_struct = self.ll.opaque_struct_type(&name);
        self.cache.insert(ty, llvm_struct.into());
        if let Some((fields, layout)) = body {
            let fields = self.basic_all(ctx, &fields)?;
            llvm_struct.set_body(&fields, layout.into());
        }
        Ok(llvm_struct.into())
    }

    fn basic_all(
        &mut self,
        ctx: &Context,
        tys: &[TypeHandle],
    ) -> Result<Vec<BasicTypeEnum<'ll>>, UnsupportedType> {
        tys.iter().map(|&t| self.basic(ctx, t)).collect()
    }

    /// A function type (`llvm.func`); a `llvm.void` result becomes LLVM `void`.
    pub(crate) fn function(
        &mut self,
        ctx: &Context,
        ty: TypedHandle<FuncType>,
    ) -> Result<FunctionType<'ll>, UnsupportedType> {
        let (res, args, var_arg) = {
            let f = ty.deref(ctx);
            (f.result_type(), f.arg_types(), f.is_var_arg())
        };
        let params: Vec<BasicMetadataTypeEnum<'ll>> = self
            .basic_all(ctx, &args)?
            .into_iter()
            .map(Into::into)
            .collect();
        if Self::is_void(ctx, res) {
            return Ok(self.ll.void_type().fn_type(&params, var_arg));
        }
        Ok(self.basic(ctx, res)?.fn_type(&params, var_arg))
    }
}
