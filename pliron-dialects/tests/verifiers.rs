//! Every `mir` and `gpu` op rejects a malformed instance with a message naming the problem.

mod common;

use common::*;
use oxide_dialects::{
    PassError,
    gpu::{InlineAsmOp, IntrinsicCallOp, SpecialRegOp, SpecialRegister},
    mir::{CallOp, CopyOp, FieldPtrOp, IndexPtrOp, LoadOp, SlotOp, StoreOp, TrapOp},
    run_pipeline,
};
use pliron::{
    basic_block::BasicBlock,
    builtin::op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
    context::Context,
    op::{Op, verify_op},
    operation::Operation,
};
use pliron_llvm::{ops::FuncOp, types::FuncType};

#[test]
fn slot_content_must_have_a_size() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let void = void_type(ctx);
    push(ctx, f.entry, |ctx| SlotOp::new(ctx, void, 4));
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.slot holds `llvm.void`, which has no size",
    );
}

#[test]
fn slot_alignment_must_be_a_power_of_two() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    push(ctx, f.entry, |ctx| SlotOp::new(ctx, i32_ty, 3));
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.slot has alignment 3, which is not a power of two",
    );
}

#[test]
fn load_address_must_be_a_pointer() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    let not_ptr = int_const(ctx, f.entry, 32, 0);
    push(ctx, f.entry, |ctx| LoadOp::new(ctx, not_ptr, i32_ty, 4));
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "Expected operand type llvm.ptr");
}

#[test]
fn load_of_void_and_misaligned_store_are_rejected() {
    let ctx = &mut Context::new();
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "f", vec![ptr]);
    let void = void_type(ctx);
    push(ctx, f.entry, |ctx| LoadOp::new(ctx, f.args[0], void, 4));
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.load moves a value of type `llvm.void`, which has no size",
    );

    let ctx = &mut Context::new();
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "f", vec![ptr]);
    let value = int_const(ctx, f.entry, 32, 7);
    push(ctx, f.entry, |ctx| StoreOp::new(ctx, value, f.args[0], 6));
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.store has alignment 6, which is not a power of two",
    );
}

#[test]
fn store_address_must_be_a_pointer() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let value = int_const(ctx, f.entry, 32, 7);
    push(ctx, f.entry, |ctx| StoreOp::new(ctx, value, value, 4));
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "Expected operand type llvm.ptr");
}

#[test]
fn field_ptr_keeps_its_base_address_space() {
    let ctx = &mut Context::new();
    let generic = ptr_type(ctx, 0);
    let f = function(ctx, "f", vec![generic]);
    let global = ptr_type(ctx, 1);
    let opr = Operation::new(
        ctx,
        FieldPtrOp::get_concrete_op_info(),
        vec![global],
        vec![f.args[0]],
        vec![],
        0,
    );
    let op = Operation::get_op::<FieldPtrOp>(opr, ctx).unwrap();
    op.set_attr_mir_offset(ctx, oxide_dialects::mir::BytesAttr(8));
    opr.insert_at_back(f.entry, ctx);
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.field_ptr yields `llvm.ptr (1)`, but its base pointer is `llvm.ptr (0)`",
    );
}

#[test]
fn index_ptr_takes_a_pointer_base_and_an_integer_index() {
    let ctx = &mut Context::new();
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "f", vec![ptr]);
    push(ctx, f.entry, |ctx| {
        IndexPtrOp::new(ctx, f.args[0], f.args[0], 4)
    });
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "Expected operand type builtin.integer");

    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let index = int_const(ctx, f.entry, 64, 1);
    push(ctx, f.entry, |ctx| IndexPtrOp::new(ctx, index, index, 4));
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "type llvm.ptr, but found builtin.integer");
}

#[test]
fn copy_moves_between_pointers() {
    let ctx = &mut Context::new();
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "f", vec![ptr]);
    let size = int_const(ctx, f.entry, 64, 16);
    push(ctx, f.entry, |ctx| CopyOp::new(ctx, size, f.args[0], 16, 8));
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "Expected operand type llvm.ptr");
}

/// A module with `callee(i32) -> i32` declared and `f`, for calls of it.
fn with_callee(ctx: &mut Context) -> (Function, pliron::r#type::TypedHandle<FuncType>) {
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    let callee_ty = FuncType::get(ctx, i32_ty, vec![i32_ty], false);
    let callee = FuncOp::new(ctx, "callee".try_into().unwrap(), callee_ty);
    f.module.append_operation(ctx, callee.get_operation(), 0);
    (f, callee_ty)
}

#[test]
fn call_arguments_match_the_callee_type() {
    let ctx = &mut Context::new();
    let (f, callee_ty) = with_callee(ctx);
    let well_formed = int_const(ctx, f.entry, 32, 1);
    push(ctx, f.entry, |ctx| {
        CallOp::new(
            ctx,
            "callee".try_into().unwrap(),
            callee_ty,
            vec![well_formed],
        )
    });
    finish(ctx, &f);
    verify_op(&f.module, ctx).expect("a well-formed call");

    let ctx = &mut Context::new();
    let (f, callee_ty) = with_callee(ctx);
    push(ctx, f.entry, |ctx| {
        CallOp::new(ctx, "callee".try_into().unwrap(), callee_ty, vec![])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.call passes 0 arguments to `callee`, whose type takes 1",
    );

    let ctx = &mut Context::new();
    let (f, callee_ty) = with_callee(ctx);
    let wide = int_const(ctx, f.entry, 64, 1);
    push(ctx, f.entry, |ctx| {
        CallOp::new(ctx, "callee".try_into().unwrap(), callee_ty, vec![wide])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.call passes `builtin.integer i64` as argument 0 of `callee`, which takes `builtin.integer i32`",
    );
}

#[test]
fn call_callee_must_exist_with_the_called_type() {
    let ctx = &mut Context::new();
    let (f, callee_ty) = with_callee(ctx);
    let arg = int_const(ctx, f.entry, 32, 1);
    push(ctx, f.entry, |ctx| {
        CallOp::new(ctx, "missing".try_into().unwrap(), callee_ty, vec![arg])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "mir.call calls `missing`, which the module does not define or declare",
    );

    let ctx = &mut Context::new();
    let (f, _) = with_callee(ctx);
    let i64_ty = int_type(ctx, 64);
    let other_ty = FuncType::get(ctx, i64_ty, vec![i64_ty], false);
    let arg = int_const(ctx, f.entry, 64, 1);
    push(ctx, f.entry, |ctx| {
        CallOp::new(ctx, "callee".try_into().unwrap(), other_ty, vec![arg])
    });
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "mir.call calls `callee` as `llvm.func");
}

#[test]
fn trap_has_no_successors() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let region = f.entry.deref(ctx).get_parent_region().unwrap();
    let next = BasicBlock::new(ctx, Some("next".try_into().unwrap()), vec![]);
    next.insert_at_back(region, ctx);
    push(ctx, next, |ctx| TrapOp::new(ctx, "unreachable"));
    let opr = Operation::new(
        ctx,
        TrapOp::get_concrete_op_info(),
        vec![],
        vec![],
        vec![next],
        0,
    );
    let trap = Operation::get_op::<TrapOp>(opr, ctx).unwrap();
    trap.set_attr_mir_trap_message(ctx, "explicit panic".to_string().into());
    opr.insert_at_back(f.entry, ctx);
    assert_rejected(
        ctx,
        f.module,
        "mir.trap has 1 successors; a trap ends the thread and goes nowhere",
    );
}

#[test]
fn special_register_is_an_i32() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i64_ty = int_type(ctx, 64);
    let opr = Operation::new(
        ctx,
        SpecialRegOp::get_concrete_op_info(),
        vec![i64_ty],
        vec![],
        vec![],
        0,
    );
    let op = Operation::get_op::<SpecialRegOp>(opr, ctx).unwrap();
    op.set_attr_gpu_register(ctx, SpecialRegister::NtidY);
    opr.insert_at_back(f.entry, ctx);
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.special_reg yields `builtin.integer i64`; a special register is an i32",
    );
}

#[test]
fn intrinsic_call_names_an_llvm_intrinsic() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "nvvm.read.ptx.sreg.laneid", i32_ty, vec![])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.intrinsic_call calls `nvvm.read.ptx.sreg.laneid`, which is not an LLVM intrinsic",
    );
}

#[test]
fn void_results_have_no_uses() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let (void, i32_ty) = (void_type(ctx), int_type(ctx, 32));
    let nothing = push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "llvm.nvvm.bar.warp.sync", void, vec![])
    })
    .get_result(ctx);
    push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "llvm.abs.i32", i32_ty, vec![nothing])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.intrinsic_call's result is `llvm.void` but has 1 uses",
    );

    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let (void, i32_ty) = (void_type(ctx), int_type(ctx, 32));
    let nothing = push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(ctx, "membar.gl;", "~{memory}", void, vec![], true)
    })
    .get_result(ctx);
    push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "llvm.abs.i32", i32_ty, vec![nothing])
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.inline_asm's result is `llvm.void` but has 1 uses",
    );
}

#[test]
fn inline_asm_template_is_not_empty() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let void = void_type(ctx);
    push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(ctx, "  ", "", void, vec![], true)
    });
    finish(ctx, &f);
    assert_rejected(ctx, f.module, "gpu.inline_asm has an empty template");
}

#[test]
fn inline_asm_constraints_match_result_and_operands() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(ctx, "mov.u32 $0, 1;", "=r,=r", i32_ty, vec![], false)
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.inline_asm's constraints `=r,=r` name 2 outputs, but its result `builtin.integer i32` holds 1",
    );

    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    let x = int_const(ctx, f.entry, 32, 3);
    push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(ctx, "add.u32 $0, $1, $2;", "=r,r,r", i32_ty, vec![x], false)
    });
    finish(ctx, &f);
    assert_rejected(
        ctx,
        f.module,
        "gpu.inline_asm's constraints `=r,r,r` name 2 inputs, but it has 1 operands",
    );
}

#[test]
fn the_pipeline_names_the_stage_that_does_not_verify() {
    let ctx = &mut Context::new();
    let f = function(ctx, "f", vec![]);
    let i32_ty = int_type(ctx, 32);
    push(ctx, f.entry, |ctx| SlotOp::new(ctx, i32_ty, 0));
    finish(ctx, &f);
    match run_pipeline(ctx, f.module, false) {
        Err(PassError::Verify { stage, message }) => {
            assert_eq!(stage, "imported mir");
            assert!(message.contains("alignment 0"), "{message}");
        }
        other => panic!("expected a verification error, got {other:?}"),
    }
}
