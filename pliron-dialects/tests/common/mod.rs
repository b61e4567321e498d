//! Building small modules by hand for the dialect tests.
#![allow(dead_code, unreachable_pub)]

use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::IntegerAttr,
        op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
        ops::ModuleOp,
        types::{IntegerType, Signedness},
    },
    context::{Context, Ptr},
    op::{Op, verify_op},
    printable::Printable,
    r#type::TypeHandle,
    utils::apint::APInt,
    value::Value,
};
use pliron_llvm::{
    ops::{ConstantOp, FuncOp, ReturnOp},
    types::{FuncType, PointerType, VoidType},
};

pub fn push<T: Op>(
    ctx: &mut Context,
    block: Ptr<BasicBlock>,
    build: impl FnOnce(&mut Context) -> T,
) -> T {
    let op = build(ctx);
    op.get_operation().insert_at_back(block, ctx);
    op
}

pub fn int_type(ctx: &mut Context, bits: u32) -> TypeHandle {
    IntegerType::get(ctx, bits, Signedness::Signless).into()
}

pub fn ptr_type(ctx: &mut Context, address_space: u32) -> TypeHandle {
    PointerType::get(ctx, address_space).into()
}

pub fn void_type(ctx: &mut Context) -> TypeHandle {
    VoidType::get(ctx).into()
}

pub fn int_const(ctx: &mut Context, block: Ptr<BasicBlock>, bits: u32, v: u64) -> Value {
    let ty = IntegerType::get(ctx, bits, Signedness::Signless);
    let attr = IntegerAttr::new(
        ty,
        APInt::from_u64(v, std::num::NonZero::new(bits as usize).unwrap()),
    );
    push(ctx, block, |ctx| ConstantOp::new(ctx, Box::new(attr))).get_result(ctx)
}

/// A module `m` with one function `name(params) -> void`, whose entry block the caller fills.
pub struct Function {
    pub module: ModuleOp,
    pub func: FuncOp,
    pub entry: Ptr<BasicBlock>,
    pub args: Vec<Value>,
}

pub fn function(ctx: &mut Context, name: &str, params: Vec<TypeHandle>) -> Function {
    let module = ModuleOp::new(ctx, "m".try_into().unwrap());
    let void = void_type(ctx);
    let n = params.len();
    let fn_ty = FuncType::get(ctx, void, params, false);
    let func = FuncOp::new(ctx, name.try_into().unwrap(), fn_ty);
    module.append_operation(ctx, func.get_operation(), 0);
    let entry = func.get_or_create_entry_block(ctx);
    let args = (0..n).map(|i| entry.deref(ctx).get_argument(i)).collect();
    Function {
        module,
        func,
        entry,
        args,
    }
}

/// Ends the entry block with `llvm.return`.
pub fn finish(ctx: &mut Context, f: &Function) {
    push(ctx, f.entry, |ctx| ReturnOp::new(ctx, None));
}

/// The verifier's message for the module, which must not verify.
pub fn verify_error(ctx: &Context, module: ModuleOp) -> String {
    match verify_op(&module, ctx) {
        Ok(()) => panic!(
            "the module verifies, but should not:\n{}",
            module.get_operation().disp(ctx)
        ),
        Err(e) => e.disp(ctx).to_string(),
    }
}

#[track_caller]
pub fn assert_rejected(ctx: &Context, module: ModuleOp, expected: &str) {
    let message = verify_error(ctx, module);
    assert!(
        message.contains(expected),
        "expected a verification error containing {expected:?}, got:\n{message}"
    );
}
