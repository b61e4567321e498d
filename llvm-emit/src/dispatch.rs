//! The per-op dispatch: one entry per translated op type, keyed by the op's Rust type.
//!
//! An op whose type is not in the table has no translation, and asking for one is an internal
//! error ([`EmitError::UnsupportedOp`]) rather than a guess: every entry names exactly one op
//! type and says exactly which LLVM instruction it becomes.

use std::{
    any::{Any, TypeId},
    collections::HashMap,
    sync::LazyLock,
};

use inkwell::values::InstructionOpcode as Opc;
use pliron::{context::Ptr, op::Op, operation::Operation};
use pliron_llvm::ops::{
    AShrOp, AddOp, AddrSpaceCastOp, AddressOfOp, AllocaOp, AndOp, AtomicCmpxchgOp, AtomicLoadOp,
    AtomicRmwOp, AtomicStoreOp, BitcastOp, BrOp, CallIntrinsicOp, CallOp, CondBrOp, ConstantOp,
    ExtractValueOp, FAddOp, FCmpOp, FDivOp, FMulOp, FNegOp, FPExtOp, FPToSIOp, FPToUIOp, FPTruncOp,
    FRemOp, FSubOp, FenceOp, FreezeOp, GetElementPtrOp, ICmpOp, InlineAsmOp, InsertValueOp,
    IntToPtrOp, LShrOp, LoadOp, MulOp, OrOp, PoisonOp, PtrToIntOp, ReturnOp, SDivOp, SExtOp,
    SIToFPOp, SRemOp, SelectOp, ShlOp, StoreOp, SubOp, SwitchOp, TruncOp, UDivOp, UIToFPOp, URemOp,
    UndefOp, UnreachableOp, XorOp, ZExtOp, ZeroOp,
};

use crate::{
    errors::EmitError,
    translator::{OpValue, Translator},
};

/// Translates one op (of the type its table entry names) at the builder's position.
pub(crate) type Handler = for<'a, 'll> fn(&mut Translator<'a, 'll>, Ptr<Operation>) -> OpValue<'ll>;

/// `Type => |translator, op| body`: `op` is the op as its concrete type.
macro_rules! handlers {
    ($($ty:ty => |$tr:ident, $op:ident| $body:expr),* $(,)?) => {
        vec![$({
            fn handler<'a, 'll>($tr: &mut Translator<'a, 'll>, opr: Ptr<Operation>) -> OpValue<'ll> {
                // The table lookup matched the type; a mismatch would be a bug in the table.
                let Some($op) = Operation::get_op::<$ty>(opr, $tr.ctx) else {
                    return Err(EmitError::invalid($tr.ctx, opr, "dispatched to the wrong handler"));
                };
                $body
            }
            (TypeId::of::<$ty>(), stringify!($ty), handler as Handler)
        }),*]
    };
}

/// Every op type this crate translates, with its translation.
fn entries() -> Vec<(TypeId, &'static str, Handler)> {
    handlers! {
        // Control flow and calls.
        ReturnOp => |tr, op| tr.ret(op.get_operation()),
        BrOp => |tr, op| tr.br(op.get_operation()),
        CondBrOp => |tr, op| tr.cond_br(op.get_operation()),
        SwitchOp => |tr, op| tr.switch(op),
        UnreachableOp => |tr, op| tr.unreachable(op.get_operation()),
        CallOp => |tr, op| tr.call(op),
        CallIntrinsicOp => |tr, op| tr.call_intrinsic(op),
        InlineAsmOp => |tr, op| tr.inline_asm(op),

        // Memory and aggregates.
        AddressOfOp => |tr, op| tr.address_of(op),
        AllocaOp => |tr, op| tr.alloca(op),
        LoadOp => |tr, op| tr.load(op.get_operation()),
        StoreOp => |tr, op| tr.store(op.get_operation()),
        GetElementPtrOp => |tr, op| tr.gep(op),
        ExtractValueOp => |tr, op| tr.extract_value(op),
        InsertValueOp => |tr, op| tr.insert_value(op),

        // Atomics.
        AtomicRmwOp => |tr, op| tr.atomic_rmw(op),
        AtomicCmpxchgOp => |tr, op| tr.cmpxchg(op),
        FenceOp => |tr, op| tr.fence(op),
        AtomicLoadOp => |tr, op| tr.atomic_load(op),
        AtomicStoreOp => |tr, op| tr.atomic_store(op),

        // Integer arithmetic.
        AddOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Add),
        SubOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Sub),
        MulOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Mul),
        UDivOp => |tr, op| tr.int_binop(op.get_operation(), Opc::UDiv),
        SDivOp => |tr, op| tr.int_binop(op.get_operation(), Opc::SDiv),
        URemOp => |tr, op| tr.int_binop(op.get_operation(), Opc::URem),
        SRemOp => |tr, op| tr.int_binop(op.get_operation(), Opc::SRem),
        AndOp => |tr, op| tr.int_binop(op.get_operation(), Opc::And),
        OrOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Or),
        XorOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Xor),
        ShlOp => |tr, op| tr.int_binop(op.get_operation(), Opc::Shl),
        LShrOp => |tr, op| tr.int_binop(op.get_operation(), Opc::LShr),
        AShrOp => |tr, op| tr.int_binop(op.get_operation(), Opc::AShr),
        ICmpOp => |tr, op| tr.icmp(op),

        // Floating-point arithmetic.
        FAddOp => |tr, op| tr.float_binop(op.get_operation(), Opc::FAdd),
        FSubOp => |tr, op| tr.float_binop(op.get_operation(), Opc::FSub),
        FMulOp => |tr, op| tr.float_binop(op.get_operation(), Opc::FMul),
        FDivOp => |tr, op| tr.float_binop(op.get_operation(), Opc::FDiv),
        FRemOp => |tr, op| tr.float_binop(op.get_operation(), Opc::FRem),
        FNegOp => |tr, op| tr.fneg(op.get_operation()),
        FCmpOp => |tr, op| tr.fcmp(op),

        // Casts.
        SExtOp => |tr, op| tr.cast(op.get_operation(), Opc::SExt),
        ZExtOp => |tr, op| tr.cast(op.get_operation(), Opc::ZExt),
        TruncOp => |tr, op| tr.cast(op.get_operation(), Opc::Trunc),
        FPToSIOp => |tr, op| tr.cast(op.get_operation(), Opc::FPToSI),
        FPToUIOp => |tr, op| tr.cast(op.get_operation(), Opc::FPToUI),
        SIToFPOp => |tr, op| tr.cast(op.get_operation(), Opc::SIToFP),
        UIToFPOp => |tr, op| tr.cast(op.get_operation(), Opc::UIToFP),
        FPExtOp => |tr, op| tr.cast(op.get_operation(), Opc::FPExt),
        FPTruncOp => |tr, op| tr.cast(op.get_operation(), Opc::FPTrunc),
        BitcastOp => |tr, op| tr.cast(op.get_operation(), Opc::BitCast),
        PtrToIntOp => |tr, op| tr.cast(op.get_operation(), Opc::PtrToInt),
        IntToPtrOp => |tr, op| tr.cast(op.get_operation(), Opc::IntToPtr),
        AddrSpaceCastOp => |tr, op| tr.cast(op.get_operation(), Opc::AddrSpaceCast),

        // Values.
        SelectOp => |tr, op| tr.select(op),
        FreezeOp => |tr, op| tr.freeze(op.get_operation()),
        ConstantOp => |tr, op| tr.constant(op),
        UndefOp => |tr, op| tr.undef_or_poison(op.get_operation(), true),
        PoisonOp => |tr, op| tr.undef_or_poison(op.get_operation(), false),
        ZeroOp => |tr, op| tr.zero(op.get_operation()),
    }
}

static HANDLERS: LazyLock<HashMap<TypeId, Handler>> = LazyLock::new(|| {
    entries()
        .into_iter()
        .map(|(id, _, handler)| (id, handler))
        .collect()
});

/// The translation of `opr`'s op type, if it has one.
pub(crate) fn handler(ctx: &pliron::context::Context, opr: Ptr<Operation>) -> Option<Handler> {
    let op = Operation::get_op_dyn(opr, ctx);
    HANDLERS.get(&Any::type_id(op.as_any())).copied()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    #[test]
    fn each_op_type_has_one_entry() {
        let mut seen = HashSet::new();
        for (id, name, _) in super::entries() {
            assert!(seen.insert(id), "{name} is in the dispatch table twice");
        }
    }
}
