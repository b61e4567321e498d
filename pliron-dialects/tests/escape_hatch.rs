//! `gpu.intrinsic_call` and `gpu.inline_asm`, and that every op's printed form parses back.

mod common;

use common::*;
use expect_test::expect;
use oxide_dialects::{
    gpu::{BarrierOp, InlineAsmOp, IntrinsicCallOp, SpecialRegOp, SpecialRegister},
    mir::{CallOp, CopyOp, FieldPtrOp, IndexPtrOp, LoadOp, SlotOp, StoreOp, TrapOp},
    run_pipeline,
};
use pliron::{
    builtin::op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
    combine::{Parser, parser::char::spaces},
    context::Context,
    op::{Op, verify_op},
    operation::Operation,
    parsable::parse_from_str,
    printable::Printable,
    result::ExpectOk,
};
use pliron_llvm::{
    ops::FuncOp,
    types::{FuncType, StructLayout, StructType},
};

/// `lanes(out: ptr)`: NVVM intrinsics and PTX, with and without results.
fn escape_hatch(ctx: &mut Context) -> Function {
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "lanes", vec![ptr]);
    escape_hatch_body(ctx, &f);
    finish(ctx, &f);
    f
}

fn escape_hatch_body(ctx: &mut Context, f: &Function) {
    let out = f.args[0];
    let (void, i32_ty, i64_ty) = (void_type(ctx), int_type(ctx, 32), int_type(ctx, 64));
    let pair = StructType::get_unnamed(ctx, (vec![i32_ty, i32_ty], StructLayout::Unpacked)).into();

    let lane = push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "llvm.nvvm.read.ptx.sreg.laneid", i32_ty, vec![])
    })
    .get_result(ctx);
    let mask = int_const(ctx, f.entry, 32, 0xffff_ffff);
    push(ctx, f.entry, |ctx| {
        IntrinsicCallOp::new(ctx, "llvm.nvvm.bar.warp.sync", void, vec![mask])
    });
    let shuffled = push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(
            ctx,
            "shfl.sync.idx.b32 $0, $1, $2, 0x1f, $3;",
            "=r,r,r,r",
            i32_ty,
            vec![lane, lane, mask],
            true,
        )
    })
    .get_result(ctx);
    let clock = push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(ctx, "mov.u64 $0, %clock64;", "=l", i64_ty, vec![], true)
    })
    .get_result(ctx);
    push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(
            ctx,
            "mov.u32 $0, %warpid;\n\tmov.u32 $1, %nwarpid;",
            "=r,=r",
            pair,
            vec![],
            false,
        )
    });
    push(ctx, f.entry, |ctx| {
        InlineAsmOp::new(
            ctx,
            "nanosleep.u32 $0;",
            "r,~{memory}",
            void,
            vec![lane],
            true,
        )
    });
    push(ctx, f.entry, |ctx| StoreOp::new(ctx, shuffled, out, 4));
    let second = push(ctx, f.entry, |ctx| FieldPtrOp::new(ctx, out, 8)).get_result(ctx);
    push(ctx, f.entry, |ctx| StoreOp::new(ctx, clock, second, 8));
}

#[test]
fn escape_hatch_ops_lower_to_intrinsic_calls_and_inline_asm() {
    let ctx = &mut Context::new();
    let f = escape_hatch(ctx);
    verify_op(&f.module, ctx).expect_ok(ctx);
    let dumps = run_pipeline(ctx, f.module, true).expect("pipeline");
    let llvm = dumps.llvm_dialect.expect("dumped");
    assert!(!llvm.contains("gpu."), "{llvm}");
    expect![[r#"
        builtin.module @m 
        {
          ^block1v1():
            llvm.func @lanes: llvm.func <llvm.void (llvm.ptr (0)) variadic = false>
              [] 
            {
              ^entry_block2v1(v0: llvm.ptr (0)):
                v9 = llvm.call_intrinsic @"llvm.nvvm.read.ptx.sreg.laneid" () : llvm.func <builtin.integer i32() variadic = false>;
                v2 = llvm.constant <builtin.integer <-1: i32>> : builtin.integer i32;
                v10 = llvm.call_intrinsic @"llvm.nvvm.bar.warp.sync" (v2) : llvm.func <llvm.void (builtin.integer i32) variadic = false>;
                v11 = llvm.inline_asm "shfl.sync.idx.b32 $0, $1, $2, 0x1f, $3;", "=r,r,r,r" side_effects = true attrs : !outlined (v9, v9, v2) : builtin.integer i32 !0;
                v12 = llvm.inline_asm "mov.u64 $0, %clock64;", "=l" side_effects = true attrs : !outlined () : builtin.integer i64 !1;
                v13 = llvm.inline_asm "mov.u32 $0, %warpid;\n\tmov.u32 $1, %nwarpid;", "=r,=r" side_effects = false attrs : !outlined () : llvm.struct <{ builtin.integer i32, builtin.integer i32 } : Unpacked> !2;
                v14 = llvm.inline_asm "nanosleep.u32 $0;", "r,~{memory}" side_effects = true attrs : !outlined (v9) : llvm.void  !3;
                llvm.store *v0 <- v11 [align : 4];
                v15 = llvm.gep <builtin.integer i8> (v0)<INBOUNDS>[Constant(8)] : llvm.ptr (0);
                llvm.store *v15 <- v12 [align : 8];
                llvm.return 
            }
        }

        outlined_attributes:
        !0 = [llvm_inline_asm_attrs = llvm.attributes ["convergent"]]
        !1 = [llvm_inline_asm_attrs = llvm.attributes ["convergent"]]
        !2 = [llvm_inline_asm_attrs = llvm.attributes ["convergent", "memory" = 0]]
        !3 = [llvm_inline_asm_attrs = llvm.attributes ["convergent"]]
    "#]]
    .assert_eq(&llvm);
}

/// One of each `mir` and `gpu` op, for the printer and the parser.
fn every_op(ctx: &mut Context) -> Function {
    let ptr = ptr_type(ctx, 0);
    let f = function(ctx, "lanes", vec![ptr]);
    escape_hatch_body(ctx, &f);
    let i32_ty = int_type(ctx, 32);
    let callee_ty = FuncType::get(ctx, i32_ty, vec![ptr], false);
    let callee = FuncOp::new(ctx, "callee".try_into().unwrap(), callee_ty);
    f.module.append_operation(ctx, callee.get_operation(), 0);

    let block = f.entry;
    let i8_ty = int_type(ctx, 8);
    let bytes = pliron_llvm::types::ArrayType::get(ctx, i8_ty, 16).into();
    let slot = push(ctx, block, |ctx| SlotOp::new(ctx, bytes, 8)).get_result(ctx);
    let tid = push(ctx, block, |ctx| {
        SpecialRegOp::new(ctx, SpecialRegister::CtaidZ)
    })
    .get_result(ctx);
    let element = push(ctx, block, |ctx| IndexPtrOp::new(ctx, slot, tid, 4)).get_result(ctx);
    push(ctx, block, |ctx| CopyOp::new(ctx, element, f.args[0], 4, 4));
    let x = push(ctx, block, |ctx| LoadOp::new(ctx, element, i32_ty, 4)).get_result(ctx);
    push(ctx, block, BarrierOp::new);
    push(ctx, block, |ctx| {
        CallOp::new(ctx, "callee".try_into().unwrap(), callee_ty, vec![slot])
    });
    push(ctx, block, |ctx| StoreOp::new(ctx, x, slot, 4));
    push(ctx, block, |ctx| {
        TrapOp::new(ctx, "attempt to divide by zero")
    });
    f
}

#[test]
fn every_op_prints_in_a_form_that_parses_back() {
    let ctx = &mut Context::new();
    let f = every_op(ctx);
    verify_op(&f.module, ctx).expect_ok(ctx);
    let printed = f.module.get_operation().disp(ctx).to_string();
    for op in [
        "mir.slot",
        "mir.load",
        "mir.store",
        "mir.field_ptr",
        "mir.index_ptr",
        "mir.copy",
        "mir.call",
        "mir.trap",
        "gpu.special_reg \"ctaid.z\"",
        "gpu.barrier",
        "gpu.intrinsic_call",
        "gpu.inline_asm",
    ] {
        assert!(printed.contains(op), "{op} not printed:\n{printed}");
    }

    let ctx2 = &mut Context::new();
    let parsed = parse_from_str(spaces().with(Operation::top_level_parser()), ctx2, &printed)
        .expect_ok(ctx2);
    verify_operation_ok(ctx2, parsed);
    assert_eq!(
        without_parse_records(&parsed.disp(ctx2).to_string()),
        printed
    );
}

/// A parsed module prints its source locations (`!N`) and names each value after the parsed
/// name (`v1_v1`); without them it should print as the module it was parsed from.
fn without_parse_records(printed: &str) -> String {
    let body = printed.split("\n\noutlined_attributes:").next().unwrap();
    let lines: Vec<String> = body
        .lines()
        .map(|line| {
            let line = match line.rfind(" !") {
                Some(at)
                    if line[at + 2..]
                        .trim_end_matches([';', ':'])
                        .parse::<u32>()
                        .is_ok() =>
                {
                    let tail = &line[at + 2..];
                    let kept = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                    format!("{}{kept}", &line[..at])
                }
                _ => line.to_string(),
            };
            undouble_names(&line)
        })
        .collect();
    lines.join("\n")
}

/// `entry_block2v1_block2v1` -> `entry_block2v1`, `v10_v10` -> `v10`.
fn undouble_names(line: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let undoubled = (0..word.len())
            .filter(|&i| word.as_bytes()[i] == b'_')
            .find(|&i| word[..i].ends_with(&word[i + 1..]) && i + 1 < word.len())
            .map_or(word.as_str(), |i| &word[..i]);
        out.push_str(undoubled);
        word.clear();
    };
    for c in line.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn verify_operation_ok(ctx: &Context, op: pliron::context::Ptr<Operation>) {
    let op = Operation::get_op_dyn(op, ctx);
    verify_op(&*op, ctx).expect_ok(ctx);
}

#[test]
fn an_unknown_special_register_does_not_parse() {
    let ctx = &mut Context::new();
    let mut printed = {
        let f = function(ctx, "f", vec![]);
        push(ctx, f.entry, |ctx| {
            SpecialRegOp::new(ctx, SpecialRegister::TidY)
        });
        finish(ctx, &f);
        f.module.get_operation().disp(ctx).to_string()
    };
    printed = printed.replace("\"tid.y\"", "\"tid.w\"");
    let ctx2 = &mut Context::new();
    let err = parse_from_str(spaces().with(Operation::top_level_parser()), ctx2, &printed)
        .expect_err("tid.w is no register");
    let message = err.disp(ctx2).to_string();
    assert!(
        message.contains("`tid.w` is not a PTX special register oxide reads"),
        "{message}"
    );
}
