//! Helpers for building LLVM-dialect modules with pliron-llvm's constructors, and for checking
//! PTX with ptxas.

#![allow(dead_code)]

use std::num::NonZero;
use std::path::PathBuf;

use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::IntegerAttr,
        op_interfaces::{AtMostOneRegionInterface, OneResultInterface, SingleBlockRegionInterface},
        ops::ModuleOp,
        types::{FP32Type, IntegerType, Signedness},
    },
    context::{Context, Ptr},
    identifier::Identifier,
    op::Op,
    operation::verify_operation,
    r#type::{TypeHandle, TypedHandle},
    utils::apint::APInt,
    value::Value,
};
use pliron_llvm::{
    ops::{ConstantOp, FuncOp},
    types::{FuncType, PointerType, VoidType},
};

pub fn i1(ctx: &Context) -> TypeHandle {
    IntegerType::get(ctx, 1, Signedness::Signless).into()
}
pub fn i32(ctx: &Context) -> TypeHandle {
    IntegerType::get(ctx, 32, Signedness::Signless).into()
}
pub fn i64(ctx: &Context) -> TypeHandle {
    IntegerType::get(ctx, 64, Signedness::Signless).into()
}
pub fn f32(ctx: &Context) -> TypeHandle {
    FP32Type::get(ctx).into()
}
pub fn ptr(ctx: &Context, address_space: u32) -> TypeHandle {
    PointerType::get(ctx, address_space).into()
}
pub fn void(ctx: &Context) -> TypeHandle {
    VoidType::get(ctx).into()
}
pub fn fn_ty(ctx: &Context, res: TypeHandle, args: Vec<TypeHandle>) -> TypedHandle<FuncType> {
    FuncType::get(ctx, res, args, false)
}

pub fn new_module(ctx: &mut Context, name: &str) -> ModuleOp {
    ModuleOp::new(ctx, Identifier::try_from(name).unwrap())
}

/// Adds a function definition to `module`; returns it and its entry block.
pub fn define(
    ctx: &mut Context,
    module: ModuleOp,
    name: &str,
    ty: TypedHandle<FuncType>,
) -> (FuncOp, Ptr<BasicBlock>) {
    let func = FuncOp::new(ctx, Identifier::try_from(name).unwrap(), ty);
    module.append_operation(ctx, func.get_operation(), 0);
    let entry = func.get_or_create_entry_block(ctx);
    (func, entry)
}

/// Adds a declaration (no body) to `module`.
pub fn declare(ctx: &mut Context, module: ModuleOp, name: &str, ty: TypedHandle<FuncType>) {
    let func = FuncOp::new(ctx, Identifier::try_from(name).unwrap(), ty);
    module.append_operation(ctx, func.get_operation(), 0);
}

/// Appends a new block with `args` to `func`'s body.
pub fn block(
    ctx: &mut Context,
    func: FuncOp,
    label: &str,
    args: Vec<TypeHandle>,
) -> Ptr<BasicBlock> {
    let region = func.get_region(ctx).expect("function has a body");
    let block = BasicBlock::new(ctx, Some(Identifier::try_from(label).unwrap()), args);
    block.insert_at_back(region, ctx);
    block
}

pub fn arg(ctx: &Context, block: Ptr<BasicBlock>, idx: usize) -> Value {
    block.deref(ctx).get_argument(idx)
}

/// Appends `op` to `block`. (The context comes last so that `op` can be built inline with
/// `&mut ctx` before it is borrowed again.)
pub fn put<T: Op>(block: Ptr<BasicBlock>, op: T, ctx: &Context) -> T {
    op.get_operation().insert_at_back(block, ctx);
    op
}

/// Appends `op` to `block` and returns its result.
pub fn val<T: Op + OneResultInterface>(block: Ptr<BasicBlock>, op: T, ctx: &Context) -> Value {
    put(block, op, ctx).get_result(ctx)
}

pub fn const_int(ctx: &mut Context, block: Ptr<BasicBlock>, width: u32, v: i64) -> Value {
    let ty = IntegerType::get(ctx, width, Signedness::Signless);
    let apint = APInt::from_i64(v, NonZero::new(width as usize).unwrap());
    let op = ConstantOp::new(ctx, Box::new(IntegerAttr::new(ty, apint)));
    val(block, op, ctx)
}

pub fn const_f32(ctx: &mut Context, block: Ptr<BasicBlock>, v: f32) -> Value {
    let attr = pliron::builtin::attributes::FPSingleAttr::from(v);
    let op = ConstantOp::new(ctx, Box::new(attr));
    val(block, op, ctx)
}

/// Runs pliron's verifier, so the tests only feed the emitter well-formed LLVM dialect (the
/// same guarantee the producer gives).
pub fn verified(ctx: &Context, module: ModuleOp) -> ModuleOp {
    if let Err(e) = verify_operation(module.get_operation(), ctx) {
        panic!("pliron verifier: {e}");
    }
    module
}

/// Assembles `ptx` for `arch` with the ptxas oxide-cuda-tools finds (`$OXIDE_PTXAS`, PATH, the pip
/// wheel), panicking with its diagnostics when it rejects the PTX, and when there is no ptxas:
/// CI installs it, and a check that skips would pass without checking.
pub fn ptxas_accepts(ptx: &str, arch: &str, test_name: &str) {
    let ptxas = oxide_cuda_tools::ptxas::find().unwrap_or_else(|e| {
        panic!("{e}\nThe ptxas check of {test_name} needs it; run ci/setup.sh to install it.")
    });
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm-emit-ptxas");
    std::fs::create_dir_all(&dir).unwrap();
    let ptx_path = dir.join(format!("{test_name}.ptx"));
    std::fs::write(&ptx_path, ptx).unwrap();
    if let Err(e) = ptxas.check(&ptx_path, arch) {
        panic!("{e}\n--- PTX ---\n{ptx}");
    }
}
