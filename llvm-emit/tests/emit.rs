//! End-to-end: LLVM-dialect modules built with pliron-llvm's constructors, through
//! `emit_ptx`, checked on the LLVM IR and the PTX (and with ptxas when it is installed).

mod common;

use common::*;
use expect_test::expect;
use oxide_llvm_emit::{EmitError, EmitOptions, emit_ptx};
use pliron::{
    builtin::{
        attributes::{IntegerAttr, StringAttr},
        op_interfaces::CallOpCallable,
        types::{IntegerType, Signedness},
    },
    context::Context,
    identifier::Identifier,
    utils::apint::APInt,
};
use pliron_llvm::{
    attributes::{FastmathFlagsAttr, ICmpPredicateAttr, IntegerOverflowFlagsAttr},
    op_interfaces::{
        AlignableOpInterface, BinArithOp, CastOpWithNNegInterface,
        FloatBinArithOpWithFastMathFlags, IntBinArithOpWithOverflowFlag,
    },
    ops::{
        AddOp, BrOp, CallIntrinsicOp, CallOp, CondBrOp, FAddOp, GepIndex, GetElementPtrOp, ICmpOp,
        LoadOp, MulOp, ReturnOp, StoreOp, SwitchCase, SwitchOp, ZExtOp,
    },
};

fn opts(kernels: &[&str], opt_level: u8) -> EmitOptions {
    EmitOptions {
        arch: "sm_90".parse().unwrap(),
        opt_level,
        kernels: kernels.iter().map(|k| k.to_string()).collect(),
        libdevice: None,
        dump_ir: true,
    }
}

fn no_overflow() -> IntegerOverflowFlagsAttr {
    IntegerOverflowFlagsAttr::default()
}

/// `add_one(ptr %p, i64 %n)`: `if tid.x < n { p[tid.x] += 1.0 }`.
fn add_one_module(ctx: &mut Context, address_space: u32) -> pliron::builtin::ops::ModuleOp {
    let m = new_module(ctx, "add_one_mod");
    let (p, i64t, i32t, f32t, v) = (
        ptr(ctx, address_space),
        i64(ctx),
        i32(ctx),
        f32(ctx),
        void(ctx),
    );
    let ty = fn_ty(ctx, v, vec![p, i64t]);
    let (func, entry) = define(ctx, m, "add_one", ty);
    let body = block(ctx, func, "body", vec![]);
    let exit = block(ctx, func, "exit", vec![]);
    let (p, n) = (arg(ctx, entry, 0), arg(ctx, entry, 1));

    let tid_ty = fn_ty(ctx, i32t, vec![]);
    let name = StringAttr::new("llvm.nvvm.read.ptx.sreg.tid.x".into());
    let tid = val(entry, CallIntrinsicOp::new(ctx, name, tid_ty, vec![]), ctx);
    let tid64 = val(entry, ZExtOp::new_with_nneg(ctx, tid, i64t, true), ctx);
    let in_bounds = val(
        entry,
        ICmpOp::new(ctx, ICmpPredicateAttr::ULT, tid64, n),
        ctx,
    );
    put(
        entry,
        CondBrOp::new(ctx, in_bounds, body, vec![], exit, vec![]),
        ctx,
    );

    let gep = GetElementPtrOp::new(ctx, p, vec![GepIndex::Value(tid64)], f32t);
    let elem = val(body, gep, ctx);
    let load = put(body, LoadOp::new(ctx, elem, f32t), ctx);
    load.set_alignment(ctx, 4);
    let old = load.get_result(ctx);
    let one = const_f32(ctx, body, 1.0);
    let fmf = FastmathFlagsAttr::default();
    let sum = val(
        body,
        FAddOp::new_with_fast_math_flags(ctx, old, one, fmf),
        ctx,
    );
    put(body, StoreOp::new(ctx, sum, elem), ctx).set_alignment(ctx, 4);
    put(body, BrOp::new(ctx, exit, vec![]), ctx);

    put(exit, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

use pliron::builtin::op_interfaces::OneResultInterface;

/// `sine(ptr %p)`: `p[tid.x] = __nv_sinf(p[tid.x])`, a call of libdevice's `sinf`.
fn sine_module(ctx: &mut Context) -> pliron::builtin::ops::ModuleOp {
    let m = new_module(ctx, "sine_mod");
    let (p, i64t, i32t, f32t, v) = (ptr(ctx, 1), i64(ctx), i32(ctx), f32(ctx), void(ctx));
    let ty = fn_ty(ctx, v, vec![p]);
    let (func, entry) = define(ctx, m, "sine", ty);
    let _ = func;
    let p = arg(ctx, entry, 0);
    let tid_ty = fn_ty(ctx, i32t, vec![]);
    let name = StringAttr::new("llvm.nvvm.read.ptx.sreg.tid.x".into());
    let tid = val(entry, CallIntrinsicOp::new(ctx, name, tid_ty, vec![]), ctx);
    let tid64 = val(entry, ZExtOp::new_with_nneg(ctx, tid, i64t, true), ctx);
    let gep = GetElementPtrOp::new(ctx, p, vec![GepIndex::Value(tid64)], f32t);
    let elem = val(entry, gep, ctx);
    let load = put(entry, LoadOp::new(ctx, elem, f32t), ctx);
    load.set_alignment(ctx, 4);
    let x = load.get_result(ctx);
    let sinf_ty = fn_ty(ctx, f32t, vec![f32t]);
    let sinf = StringAttr::new("__nv_sinf".into());
    let y = val(
        entry,
        CallIntrinsicOp::new(ctx, sinf, sinf_ty, vec![x]),
        ctx,
    );
    put(entry, StoreOp::new(ctx, y, elem), ctx).set_alignment(ctx, 4);
    put(entry, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

/// A call of a libdevice function links libdevice, whose code is inlined: nothing of it is left
/// external. Without a libdevice the emitter says what to install.
#[test]
fn libdevice_calls_link_libdevice() {
    let ctx = &mut Context::new();
    let m = sine_module(ctx);
    let err = emit_ptx(ctx, m, &opts(&["sine"], 3)).unwrap_err();
    assert!(matches!(err, EmitError::NoLibdevice), "{err}");
    assert!(err.to_string().contains("nvidia-nvvm"), "{err}");

    let Ok(libdevice) = oxide_cuda_tools::libdevice::find() else {
        eprintln!("no libdevice here: the linked half of the test is skipped");
        return;
    };
    let with = EmitOptions {
        libdevice: Some(libdevice),
        ..opts(&["sine"], 3)
    };
    let out = emit_ptx(ctx, m, &with).expect("emit with libdevice");
    assert!(!out.ptx.contains("__nv_"), "{}", out.ptx);
    assert!(!out.ptx.contains(".extern"), "{}", out.ptx);
    assert!(!out.ptx.contains("__nvvm_reflect"), "{}", out.ptx);
    // sinf's range reduction: a polynomial in FMAs, not the approximate `sin.approx.f32`.
    assert!(out.ptx.contains("fma.rn.f32"), "{}", out.ptx);
    assert!(!out.ptx.contains("sin.approx"), "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "sine");
}

#[test]
fn add_one_kernel_to_ptx() {
    let ctx = &mut Context::new();
    let m = add_one_module(ctx, 1);
    let out = emit_ptx(ctx, m, &opts(&["add_one"], 3)).expect("emit");

    assert!(out.ptx.contains(".target sm_90"), "{}", out.ptx);
    // The backend appends its own NUL when embedding the PTX.
    assert!(!out.ptx.contains('\0'));
    assert!(out.ptx.contains(".entry add_one"), "{}", out.ptx);
    assert!(
        out.ptx.contains("mov.u32") && out.ptx.contains("%tid.x"),
        "{}",
        out.ptx
    );
    // LLVM 22 prints untyped `.b32` loads and stores; the add shows the value is a float.
    assert!(out.ptx.contains("ld.global.b32"), "{}", out.ptx);
    assert!(out.ptx.contains("st.global.b32"), "{}", out.ptx);
    assert!(out.ptx.contains("add.rn.f32"), "{}", out.ptx);
    let ir_opt = out.llvm_ir.as_deref().unwrap();
    assert!(
        ir_opt.contains("define ptx_kernel void @add_one"),
        "{ir_opt}"
    );
    let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
    assert!(ir.contains("zext nneg i32"), "{ir}");
    assert!(ir.contains("align 4"), "{ir}");
    ptxas_accepts(&out.ptx, "sm_90", "add_one");
}

/// Without `dump_ir` the IR is never printed; the PTX is the same either way.
#[test]
fn ir_text_only_when_asked() {
    let ctx = &mut Context::new();
    let m = add_one_module(ctx, 1);
    let quiet = EmitOptions {
        libdevice: None,
        dump_ir: false,
        ..opts(&["add_one"], 3)
    };
    let without = emit_ptx(ctx, m, &quiet).expect("emit");
    assert!(without.llvm_ir.is_none() && without.llvm_ir_unoptimized.is_none());
    let with = emit_ptx(ctx, m, &opts(&["add_one"], 3)).expect("emit");
    assert!(with.llvm_ir.is_some() && with.llvm_ir_unoptimized.is_some());
    assert_eq!(without.ptx, with.ptx);
}

#[test]
fn generic_kernel_pointers_are_accessed_as_global() {
    // The producer passes slices as generic (address space 0) pointers; NVPTX treats kernel
    // pointer parameters as global memory, so the accesses still become ld/st.global.
    let ctx = &mut Context::new();
    let m = add_one_module(ctx, 0);
    let out = emit_ptx(ctx, m, &opts(&["add_one"], 3)).expect("emit");
    assert!(out.ptx.contains("ld.global.b32"), "{}", out.ptx);
    assert!(out.ptx.contains("st.global.b32"), "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "add_one_generic");
}

/// `sum_below(n) = 0 + 1 + ... + (n-1)` as a loop whose counter and accumulator are block
/// arguments, and a kernel `sum_kernel(out, n)` that calls it and stores the result.
fn loop_and_call_module(ctx: &mut Context) -> pliron::builtin::ops::ModuleOp {
    let m = new_module(ctx, "loops");
    let (i32t, p, v) = (i32(ctx), ptr(ctx, 0), void(ctx));

    let sum_ty = fn_ty(ctx, i32t, vec![i32t]);
    let (sum, entry) = define(ctx, m, "sum_below", sum_ty);
    let header = block(ctx, sum, "header", vec![i32t, i32t]);
    let body = block(ctx, sum, "body", vec![]);
    let exit = block(ctx, sum, "exit", vec![i32t]);
    let n = arg(ctx, entry, 0);
    let zero = const_int(ctx, entry, 32, 0);
    put(entry, BrOp::new(ctx, header, vec![zero, zero]), ctx);

    let (i, acc) = (arg(ctx, header, 0), arg(ctx, header, 1));
    let more = val(header, ICmpOp::new(ctx, ICmpPredicateAttr::SLT, i, n), ctx);
    put(
        header,
        CondBrOp::new(ctx, more, body, vec![], exit, vec![acc]),
        ctx,
    );

    let acc2 = val(
        body,
        AddOp::new_with_overflow_flag(ctx, acc, i, no_overflow()),
        ctx,
    );
    let one = const_int(ctx, body, 32, 1);
    let nsw = IntegerOverflowFlagsAttr {
        nsw: true,
        nuw: false,
    };
    let i2 = val(body, AddOp::new_with_overflow_flag(ctx, i, one, nsw), ctx);
    put(body, BrOp::new(ctx, header, vec![i2, acc2]), ctx);
    put(exit, ReturnOp::new(ctx, Some(arg(ctx, exit, 0))), ctx);

    let kernel_ty = fn_ty(ctx, v, vec![p, i32t]);
    let (_, kentry) = define(ctx, m, "sum_kernel", kernel_ty);
    let (out, n) = (arg(ctx, kentry, 0), arg(ctx, kentry, 1));
    let callee = CallOpCallable::Direct(Identifier::try_from("sum_below").unwrap());
    let total = val(kentry, CallOp::new(ctx, callee, sum_ty, vec![n]), ctx);
    put(kentry, StoreOp::new(ctx, total, out), ctx);
    put(kentry, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

#[test]
fn loop_with_block_arguments_snapshot() {
    let ctx = &mut Context::new();
    let m = loop_and_call_module(ctx);
    let out = emit_ptx(ctx, m, &opts(&["sum_kernel"], 0)).expect("emit");
    let ir = out
        .llvm_ir_unoptimized
        .as_deref()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("target datalayout"))
        .collect::<Vec<_>>()
        .join("\n");
    expect![[r#"
        ; ModuleID = 'loops'
        source_filename = "loops"
        target triple = "nvptx64-nvidia-cuda"

        define internal i32 @sum_below(i32 %0) {
        entry:
          br label %header

        header:                                           ; preds = %body, %entry
          %1 = phi i32 [ 0, %entry ], [ %5, %body ]
          %2 = phi i32 [ 0, %entry ], [ %4, %body ]
          %3 = icmp slt i32 %1, %0
          br i1 %3, label %body, label %exit

        body:                                             ; preds = %header
          %4 = add i32 %2, %1
          %5 = add nsw i32 %1, 1
          br label %header

        exit:                                             ; preds = %header
          %6 = phi i32 [ %2, %header ]
          ret i32 %6
        }

        define ptx_kernel void @sum_kernel(ptr %0, i32 %1) {
        entry:
          %2 = call i32 @sum_below(i32 %1)
          store i32 %2, ptr %0, align 4
          ret void
        }"#]]
    .assert_eq(&ir);
}

#[test]
fn calls_survive_at_o0_and_inline_at_o3() {
    let ctx = &mut Context::new();
    let m = loop_and_call_module(ctx);
    let o0 = emit_ptx(ctx, m, &opts(&["sum_kernel"], 0)).expect("emit O0");
    assert!(o0.ptx.contains(".entry sum_kernel"), "{}", o0.ptx);
    assert!(
        o0.ptx
            .contains(".func  (.param .b32 func_retval0) sum_below"),
        "{}",
        o0.ptx
    );
    assert!(o0.ptx.contains("call.uni"), "{}", o0.ptx);
    ptxas_accepts(&o0.ptx, "sm_90", "sum_o0");

    let ctx = &mut Context::new();
    let m = loop_and_call_module(ctx);
    let o3 = emit_ptx(ctx, m, &opts(&["sum_kernel"], 3)).expect("emit O3");
    // Internal linkage lets the inliner remove the helper entirely.
    assert!(!o3.ptx.contains("sum_below"), "{}", o3.ptx);
    assert!(
        !o3.llvm_ir.as_deref().unwrap().contains("@sum_below"),
        "{}",
        o3.llvm_ir.as_deref().unwrap()
    );
    assert!(o3.ptx.contains(".entry sum_kernel"), "{}", o3.ptx);
    ptxas_accepts(&o3.ptx, "sm_90", "sum_o3");
}

/// A `switch` whose cases reach one block with different arguments: LLVM's phis take one
/// value per predecessor block, so the translation has to route one edge through a new block.
#[test]
fn switch_to_shared_block_with_different_arguments() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "switches");
    let (i32t, p, v) = (i32(ctx), ptr(ctx, 0), void(ctx));
    let ty = fn_ty(ctx, v, vec![p, i32t]);
    let (func, entry) = define(ctx, m, "pick", ty);
    let join = block(ctx, func, "join", vec![i32t]);
    let (out, sel) = (arg(ctx, entry, 0), arg(ctx, entry, 1));
    let ten = const_int(ctx, entry, 32, 10);
    let twenty = const_int(ctx, entry, 32, 20);
    let thirty = const_int(ctx, entry, 32, 30);
    let i32_int = IntegerType::get(ctx, 32, Signedness::Signless);
    let case = |c: i64, value| SwitchCase {
        value: IntegerAttr::new(
            i32_int,
            APInt::from_i64(c, std::num::NonZero::new(32).unwrap()),
        ),
        dest: join,
        dest_opds: vec![value],
    };
    let cases = vec![case(1, twenty), case(2, thirty), case(3, twenty)];
    put(entry, SwitchOp::new(ctx, sel, join, vec![ten], cases), ctx);
    let picked = arg(ctx, join, 0);
    let doubled = val(
        join,
        MulOp::new_with_overflow_flag(ctx, picked, picked, no_overflow()),
        ctx,
    );
    put(join, StoreOp::new(ctx, doubled, out), ctx);
    put(join, ReturnOp::new(ctx, None), ctx);
    let m = verified(ctx, m);

    let out = emit_ptx(ctx, m, &opts(&["pick"], 0)).expect("emit");
    let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
    let body = &ir[ir.find("define").expect("a definition")..];
    expect![[r#"
        define ptx_kernel void @pick(ptr %0, i32 %1) {
        entry:
          switch i32 %1, label %join [
            i32 1, label %edge
            i32 2, label %edge1
            i32 3, label %edge
          ]

        join:                                             ; preds = %entry, %edge1, %edge
          %2 = phi i32 [ 10, %entry ], [ 20, %edge ], [ 30, %edge1 ]
          %3 = mul i32 %2, %2
          store i32 %3, ptr %0, align 4
          ret void

        edge:                                             ; preds = %entry, %entry
          br label %join

        edge1:                                            ; preds = %entry
          br label %join
        }
    "#]]
    .assert_eq(body);
    ptxas_accepts(&out.ptx, "sm_90", "switch");
}

#[test]
fn declarations_stay_external_and_opt_levels_all_work() {
    for level in 0..=3 {
        let ctx = &mut Context::new();
        let m = add_one_module(ctx, 1);
        let (i32t, v) = (i32(ctx), void(ctx));
        let ty = fn_ty(ctx, v, vec![i32t]);
        declare(ctx, m, "external_helper", ty);
        let out = emit_ptx(ctx, m, &opts(&["add_one"], level)).expect("emit");
        assert!(out.ptx.contains(".entry add_one"), "O{level}: {}", out.ptx);
        assert!(
            out.llvm_ir_unoptimized
                .as_deref()
                .unwrap()
                .contains("declare void @external_helper(i32)"),
            "{}",
            out.llvm_ir_unoptimized.as_deref().unwrap()
        );
    }
}

#[test]
fn udiv_and_unsigned_ops_keep_their_operands() {
    use pliron_llvm::ops::UDivOp;
    let ctx = &mut Context::new();
    let m = new_module(ctx, "div");
    let i64t = i64(ctx);
    let ty = fn_ty(ctx, i64t, vec![i64t, i64t]);
    let (_, entry) = define(ctx, m, "div", ty);
    let (a, b) = (arg(ctx, entry, 0), arg(ctx, entry, 1));
    let q = val(entry, <UDivOp as BinArithOp>::new(ctx, a, b), ctx);
    put(entry, ReturnOp::new(ctx, Some(q)), ctx);
    let m = verified(ctx, m);
    let out = emit_ptx(ctx, m, &opts(&[], 0)).expect("emit");
    assert!(
        out.llvm_ir_unoptimized
            .as_deref()
            .unwrap()
            .contains("udiv i64 %0, %1"),
        "{}",
        out.llvm_ir_unoptimized.as_deref().unwrap()
    );
    // Not a kernel: internal linkage, and at -O0 it is still emitted.
    assert!(
        out.llvm_ir_unoptimized
            .as_deref()
            .unwrap()
            .contains("define internal i64 @div")
    );
}
