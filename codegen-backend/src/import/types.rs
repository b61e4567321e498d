//! rustc layouts to Pliron types. Memory layout always comes from rustc's (host) layout, so host
//! and device agree on every struct byte for byte.

use pliron::{
    builtin::types::{FP16Type, FP32Type, FP64Type, IntegerType, Signedness},
    context::Context,
    r#type::TypeHandle,
};
use pliron_llvm::types::{ArrayType, PointerType};
use rustc_abi::{BackendRepr, Float, Primitive, Scalar};
use rustc_middle::ty::{self, Ty, layout::TyAndLayout};

pub(crate) fn int(ctx: &mut Context, bits: u64) -> TypeHandle {
    IntegerType::get(ctx, bits as u32, Signedness::Signless).into()
}

pub(crate) fn ptr(ctx: &mut Context) -> TypeHandle {
    PointerType::get(ctx, 0).into()
}

pub(crate) fn bytes(ctx: &mut Context, size: u64) -> TypeHandle {
    let i8_ty = int(ctx, 8);
    ArrayType::get(ctx, i8_ty, size).into()
}

/// The type a scalar has as an SSA value: `bool` is `i1`.
pub(crate) fn scalar_immediate(ctx: &mut Context, scalar: Scalar) -> Option<TypeHandle> {
    if scalar.is_bool() {
        return Some(int(ctx, 1));
    }
    scalar_memory(ctx, scalar)
}

/// The type a scalar has in memory: `bool` is a byte.
pub(crate) fn scalar_memory(ctx: &mut Context, scalar: Scalar) -> Option<TypeHandle> {
    Some(match scalar.primitive() {
        Primitive::Int(i, _) => int(ctx, i.size().bits()),
        Primitive::Float(Float::F16) => FP16Type::get(ctx).into(),
        Primitive::Float(Float::F32) => FP32Type::get(ctx).into(),
        Primitive::Float(Float::F64) => FP64Type::get(ctx).into(),
        Primitive::Float(Float::F128) => return None,
        Primitive::Pointer(_) => ptr(ctx),
    })
}

/// The single scalar of a layout, if it is one.
pub(crate) fn as_scalar(layout: TyAndLayout<'_>) -> Option<Scalar> {
    match layout.backend_repr {
        BackendRepr::Scalar(s) => Some(s),
        _ => None,
    }
}

pub(crate) fn is_float(ty: Ty<'_>) -> bool {
    matches!(ty.kind(), ty::Float(_))
}

pub(crate) fn is_signed(ty: Ty<'_>) -> bool {
    matches!(ty.kind(), ty::Int(_))
}

/// Whether `ty` is a scalar the host and the GPU pass the same way as a kernel parameter.
pub(crate) fn is_primitive_param(ty: Ty<'_>) -> bool {
    matches!(
        ty.kind(),
        ty::Bool | ty::Char | ty::Int(_) | ty::Uint(_) | ty::Float(_) | ty::RawPtr(..)
    )
}
