//! The dialect pipeline on small hand-built modules: printed IR after each stage.

use expect_test::{Expect, expect};
use oxide_dialects::{
    gpu::{BarrierOp, SpecialRegOp, SpecialRegister},
    mir::{FieldPtrOp, IndexPtrOp, LoadOp, SlotOp, StoreOp, TrapOp},
    run_pipeline,
};
use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::IntegerAttr,
        op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
        ops::ModuleOp,
        types::{IntegerType, Signedness},
    },
    context::{Context, Ptr},
    op::Op,
    printable::Printable,
    utils::apint::APInt,
    value::Value,
};
use pliron_llvm::{
    attributes::ICmpPredicateAttr,
    op_interfaces::IntBinArithOpWithOverflowFlag,
    ops::{AddOp, BrOp, CondBrOp, ConstantOp, FuncOp, ICmpOp, ReturnOp},
    types::{FuncType, PointerType, VoidType},
};

fn push<T: Op>(
    ctx: &mut Context,
    block: Ptr<BasicBlock>,
    build: impl FnOnce(&mut Context) -> T,
) -> T {
    let op = build(ctx);
    op.get_operation().insert_at_back(block, ctx);
    op
}

fn int_const(ctx: &mut Context, block: Ptr<BasicBlock>, bits: u32, v: u64) -> Value {
    let ty = IntegerType::get(ctx, bits, Signedness::Signless);
    let attr = IntegerAttr::new(
        ty,
        APInt::from_u64(v, std::num::NonZero::new(bits as usize).unwrap()),
    );
    push(ctx, block, |ctx| ConstantOp::new(ctx, Box::new(attr))).get_result(ctx)
}

/// `counter(out: ptr)`: a MIR-style loop over a stack slot, `*out.field(8)[tid] = count`.
fn counting_loop(ctx: &mut Context) -> ModuleOp {
    let module = ModuleOp::new(ctx, "m".try_into().unwrap());
    let ptr = PointerType::get(ctx, 0).into();
    let void = VoidType::get(ctx).into();
    let fn_ty = FuncType::get(ctx, void, vec![ptr], false);
    let func = FuncOp::new(ctx, "counter".try_into().unwrap(), fn_ty);
    module.append_operation(ctx, func.get_operation(), 0);
    let entry = func.get_or_create_entry_block(ctx);
    let region = entry.deref(ctx).get_parent_region().unwrap();
    let new_block = |ctx: &mut Context, name: &str| {
        let b = BasicBlock::new(ctx, Some(name.try_into().unwrap()), vec![]);
        b.insert_at_back(region, ctx);
        b
    };
    let (header, body, exit, panic) = (
        new_block(ctx, "header"),
        new_block(ctx, "body"),
        new_block(ctx, "exit"),
        new_block(ctx, "panic"),
    );
    let out = entry.deref(ctx).get_argument(0);
    let i32_ty = IntegerType::get(ctx, 32, Signedness::Signless).into();

    let slot = push(ctx, entry, |ctx| SlotOp::new(ctx, i32_ty, 4)).get_result(ctx);
    let zero = int_const(ctx, entry, 32, 0);
    push(ctx, entry, |ctx| StoreOp::new(ctx, zero, slot, 4));
    push(ctx, entry, |ctx| BrOp::new(ctx, header, vec![]));

    let count = push(ctx, header, |ctx| LoadOp::new(ctx, slot, i32_ty, 4)).get_result(ctx);
    let limit = int_const(ctx, header, 32, 10);
    let more = push(ctx, header, |ctx| {
        ICmpOp::new(ctx, ICmpPredicateAttr::ULT, count, limit)
    })
    .get_result(ctx);
    push(ctx, header, |ctx| {
        CondBrOp::new(ctx, more, body, vec![], exit, vec![])
    });

    let count = push(ctx, body, |ctx| LoadOp::new(ctx, slot, i32_ty, 4)).get_result(ctx);
    let one = int_const(ctx, body, 32, 1);
    let next = push(ctx, body, |ctx| {
        AddOp::new_with_overflow_flag(ctx, count, one, Default::default())
    })
    .get_result(ctx);
    push(ctx, body, |ctx| StoreOp::new(ctx, next, slot, 4));
    push(ctx, body, BarrierOp::new);
    push(ctx, body, |ctx| BrOp::new(ctx, header, vec![]));

    let tid = push(ctx, exit, |ctx| {
        SpecialRegOp::new(ctx, SpecialRegister::TidX)
    })
    .get_result(ctx);
    let field = push(ctx, exit, |ctx| FieldPtrOp::new(ctx, out, 8)).get_result(ctx);
    let element = push(ctx, exit, |ctx| IndexPtrOp::new(ctx, field, tid, 4)).get_result(ctx);
    let count = push(ctx, exit, |ctx| LoadOp::new(ctx, slot, i32_ty, 4)).get_result(ctx);
    push(ctx, exit, |ctx| StoreOp::new(ctx, count, element, 4));
    push(ctx, exit, |ctx| ReturnOp::new(ctx, None));

    push(ctx, panic, |ctx| TrapOp::new(ctx, "index out of bounds"));
    module
}

fn check_stage(actual: &str, expect: Expect) {
    expect.assert_eq(actual);
}

#[test]
fn mem2reg_turns_the_slot_into_block_arguments() {
    let ctx = &mut Context::new();
    let module = counting_loop(ctx);
    let dumps = run_pipeline(ctx, module, true).expect("pipeline");
    let (before, after) = (dumps.mir_dialect.unwrap(), dumps.mir_dialect_opt.unwrap());
    assert!(before.contains("mir.slot"), "{before}");
    assert!(!after.contains("mir.slot"), "slot promoted:\n{after}");
    check_stage(
        &after,
        expect![[r#"
        builtin.module @m 
        {
          ^block1v1():
            llvm.func @counter: llvm.func <llvm.void (llvm.ptr (0)) variadic = false>
              [] 
            {
              ^entry_block2v1(v0: llvm.ptr (0)):
                v2 = llvm.constant <builtin.integer <0: i32>> : builtin.integer i32;
                llvm.br ^header_block3v1(v2)

              ^header_block3v1(v13: builtin.integer i32):
                v4 = llvm.constant <builtin.integer <10: i32>> : builtin.integer i32;
                v5 = llvm.icmp v13 <ULT> v4 : builtin.integer i1;
                llvm.cond_br if v5 ^body_block4v1() else ^exit_block5v1()

              ^body_block4v1():
                v7 = llvm.constant <builtin.integer <1: i32>> : builtin.integer i32;
                v8 = llvm.add v13, v7 <{nsw=false,nuw=false}>: builtin.integer i32;
                gpu.barrier ;
                llvm.br ^header_block3v1(v8)

              ^exit_block5v1():
                v9 = gpu.special_reg "tid.x" : builtin.integer i32;
                v10 = mir.field_ptr v0 + 8 : llvm.ptr (0);
                v11 = mir.index_ptr v10 [v9 x 4] : llvm.ptr (0);
                mir.store *v11 <- v13 align 4;
                llvm.return 

              ^panic_block6v1():
                mir.trap "index out of bounds"
            }
        }"#]],
    );
}

#[test]
fn mir_and_gpu_ops_lower_to_llvm_dialect_only() {
    let ctx = &mut Context::new();
    let module = counting_loop(ctx);
    let dumps = run_pipeline(ctx, module, true).expect("pipeline");
    let llvm = dumps.llvm_dialect.unwrap();
    for dialect_op in ["mir.", "gpu."] {
        assert!(!llvm.contains(dialect_op), "{dialect_op} left:\n{llvm}");
    }
    check_stage(
        &llvm,
        expect![[r#"
            builtin.module @m 
            {
              ^block1v1():
                llvm.func @counter: llvm.func <llvm.void (llvm.ptr (0)) variadic = false>
                  [] 
                {
                  ^entry_block2v1(v0: llvm.ptr (0)):
                    v2 = llvm.constant <builtin.integer <0: i32>> : builtin.integer i32;
                    llvm.br ^header_block3v1(v2)

                  ^header_block3v1(v13: builtin.integer i32):
                    v4 = llvm.constant <builtin.integer <10: i32>> : builtin.integer i32;
                    v5 = llvm.icmp v13 <ULT> v4 : builtin.integer i1;
                    llvm.cond_br if v5 ^body_block4v1() else ^exit_block5v1()

                  ^body_block4v1():
                    v7 = llvm.constant <builtin.integer <1: i32>> : builtin.integer i32;
                    v8 = llvm.add v13, v7 <{nsw=false,nuw=false}>: builtin.integer i32;
                    v14 = llvm.constant <builtin.integer <0: i32>> : builtin.integer i32;
                    v15 = llvm.call_intrinsic @"llvm.nvvm.barrier.cta.sync.aligned.all" (v14) : llvm.func <llvm.void (builtin.integer i32) variadic = false>;
                    llvm.br ^header_block3v1(v8)

                  ^exit_block5v1():
                    v16 = llvm.call_intrinsic @"llvm.nvvm.read.ptx.sreg.tid.x" () : llvm.func <builtin.integer i32() variadic = false>;
                    v17 = llvm.gep <builtin.integer i8> (v0)<INBOUNDS>[Constant(8)] : llvm.ptr (0);
                    v18 = llvm.gep <llvm.array [4 x builtin.integer i8]> (v17, v16)<INBOUNDS | NUW>[OperandIdx(1)] : llvm.ptr (0);
                    llvm.store *v18 <- v13 [align : 4];
                    llvm.return 

                  ^panic_block6v1():
                    v19 = llvm.call_intrinsic @"llvm.trap" () : llvm.func <llvm.void () variadic = false>;
                    llvm.unreachable 
                }
            }"#]],
    );
}

#[test]
fn without_a_dump_nothing_is_printed_and_the_module_is_still_lowered() {
    let ctx = &mut Context::new();
    let module = counting_loop(ctx);
    let dumps = run_pipeline(ctx, module, false).expect("pipeline");
    assert!(dumps.mir_dialect.is_none());
    assert!(dumps.mir_dialect_opt.is_none());
    assert!(dumps.llvm_dialect.is_none());
    let lowered = module.get_operation().disp(ctx).to_string();
    assert!(
        !lowered.contains("mir.") && !lowered.contains("gpu."),
        "{lowered}"
    );
}
