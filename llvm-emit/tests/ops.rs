//! One kernel that uses every supported op, emitted at -O0 and -O3 and assembled by ptxas.

mod common;

use common::*;
use oxide_llvm_emit::{EmitOptions, emit_ptx};
use pliron::{
    builtin::{
        attributes::StringAttr,
        op_interfaces::OneResultInterface,
        types::{FP64Type, IntegerType, Signedness},
    },
    context::Context,
    identifier::Identifier,
    r#type::TypeHandle,
    value::Value,
};
use pliron_llvm::{
    attributes::{
        FCmpPredicateAttr, FastmathFlags, FastmathFlagsAttr, ICmpPredicateAttr,
        IntegerOverflowFlagsAttr,
    },
    op_interfaces::{
        AlignableOpInterface, BinArithOp, CastOpInterface, CastOpWithNNegInterface, FastMathFlags,
        FloatBinArithOpWithFastMathFlags, IntBinArithOpWithOverflowFlag,
    },
    ops::{
        AShrOp, AddOp, AddrSpaceCastOp, AllocaOp, AndOp, BitcastOp, CallIntrinsicOp, CondBrOp,
        ExtractValueOp, FCmpOp, FDivOp, FMulOp, FNegOp, FPExtOp, FPToSIOp, FPToUIOp, FPTruncOp,
        FRemOp, FSubOp, GepIndex, GetElementPtrOp, ICmpOp, InsertValueOp, IntToPtrOp, LShrOp,
        LoadOp, OrOp, PoisonOp, PtrToIntOp, ReturnOp, SDivOp, SExtOp, SIToFPOp, SRemOp, SelectOp,
        ShlOp, StoreOp, SubOp, TruncOp, UIToFPOp, URemOp, UndefOp, UnreachableOp, XorOp, ZExtOp,
        ZeroOp,
    },
    types::{ArrayType, StructLayout, StructType},
};

fn flags(nsw: bool) -> IntegerOverflowFlagsAttr {
    IntegerOverflowFlagsAttr { nsw, nuw: false }
}

fn intrinsic(
    ctx: &mut Context,
    block: pliron::context::Ptr<pliron::basic_block::BasicBlock>,
    name: &str,
    res: TypeHandle,
    args: Vec<Value>,
) -> CallIntrinsicOp {
    use pliron::r#type::Typed;
    let arg_tys = args.iter().map(|a| a.get_type(ctx)).collect();
    let ty = fn_ty(ctx, res, arg_tys);
    put(
        block,
        CallIntrinsicOp::new(ctx, StringAttr::new(name.into()), ty, args),
        ctx,
    )
}

/// `sink(ptr out_f, ptr out_i, f32 x, i32 k)`.
fn kitchen_sink(ctx: &mut Context) -> pliron::builtin::ops::ModuleOp {
    let m = new_module(ctx, "sink_mod");
    let (p0, p1, i32t, i64t, f32t, v) = (
        ptr(ctx, 0),
        ptr(ctx, 1),
        i32(ctx),
        i64(ctx),
        f32(ctx),
        void(ctx),
    );
    let f64t: TypeHandle = FP64Type::get(ctx).into();
    let i16t: TypeHandle = IntegerType::get(ctx, 16, Signedness::Signless).into();
    let ty = fn_ty(ctx, v, vec![p0, p0, f32t, i32t]);
    let (func, e) = define(ctx, m, "sink", ty);
    let trap = block(ctx, func, "trap", vec![]);
    let exit = block(ctx, func, "exit", vec![]);
    let (out_f, out_i, x, k) = (
        arg(ctx, e, 0),
        arg(ctx, e, 1),
        arg(ctx, e, 2),
        arg(ctx, e, 3),
    );
    let fast = FastmathFlagsAttr(FastmathFlags::FAST);
    let none = FastmathFlagsAttr::default();

    // alloca + struct/array gep + load/store
    let one = const_int(ctx, e, 32, 1);
    let arr = ArrayType::get(ctx, f32t, 4).into();
    let named = Identifier::try_from("Pair").unwrap();
    let st = StructType::get_named(ctx, named, Some((vec![i32t, arr], StructLayout::Unpacked)));
    let st: TypeHandle = st.unwrap().into();
    let slot = put(e, AllocaOp::new(ctx, st, one, 0), ctx);
    slot.set_alignment(ctx, 8);
    let slot = slot.get_result(ctx);
    let idx = vec![
        GepIndex::Constant(0),
        GepIndex::Constant(1),
        GepIndex::Value(k),
    ];
    let f0 = val(e, GetElementPtrOp::new(ctx, slot, idx, st), ctx);
    put(e, StoreOp::new(ctx, x, f0), ctx);
    let y = val(e, LoadOp::new(ctx, f0, f32t), ctx);

    // integer arithmetic
    let a = val(
        e,
        SubOp::new_with_overflow_flag(ctx, k, one, flags(true)),
        ctx,
    );
    let b = val(e, <SDivOp as BinArithOp>::new(ctx, a, one), ctx);
    let c = val(e, <URemOp as BinArithOp>::new(ctx, b, k), ctx);
    let d = val(e, <SRemOp as BinArithOp>::new(ctx, c, k), ctx);
    let f = val(e, <AndOp as BinArithOp>::new(ctx, d, k), ctx);
    let g = val(e, <OrOp as BinArithOp>::new(ctx, f, k), ctx);
    let h = val(e, <XorOp as BinArithOp>::new(ctx, g, k), ctx);
    let i = val(
        e,
        ShlOp::new_with_overflow_flag(ctx, h, one, flags(false)),
        ctx,
    );
    let j = val(e, <LShrOp as BinArithOp>::new(ctx, i, one), ctx);
    let l = val(e, <AShrOp as BinArithOp>::new(ctx, j, one), ctx);
    let wide = val(e, <SExtOp as CastOpInterface>::new(ctx, l, i64t), ctx);
    let narrow = val(e, <TruncOp as CastOpInterface>::new(ctx, wide, i16t), ctx);
    let back = val(e, ZExtOp::new_with_nneg(ctx, narrow, i32t, false), ctx);

    // float arithmetic, compare, select, float casts
    let fa = val(e, FSubOp::new_with_fast_math_flags(ctx, y, x, none), ctx);
    let fb = val(e, FMulOp::new_with_fast_math_flags(ctx, fa, x, fast), ctx);
    let fc = val(e, FDivOp::new_with_fast_math_flags(ctx, fb, x, none), ctx);
    let fd = val(e, FRemOp::new_with_fast_math_flags(ctx, fc, x, none), ctx);
    let fe = val(e, FNegOp::new_with_fast_math_flags(ctx, fd, none), ctx);
    let cmp = put(e, FCmpOp::new(ctx, FCmpPredicateAttr::OLT, fe, x), ctx);
    cmp.set_fast_math_flags(ctx, none);
    let cmp = cmp.get_result(ctx);
    let sel = val(e, SelectOp::new(ctx, cmp, fe, x), ctx);
    let dbl = put(e, <FPExtOp as CastOpInterface>::new(ctx, sel, f64t), ctx);
    dbl.set_fast_math_flags(ctx, none);
    let dbl = dbl.get_result(ctx);
    let attr = pliron::builtin::attributes::FPDoubleAttr::from(2.5f64);
    let two_half = val(
        e,
        pliron_llvm::ops::ConstantOp::new(ctx, Box::new(attr)),
        ctx,
    );
    let dm = val(
        e,
        FMulOp::new_with_fast_math_flags(ctx, dbl, two_half, none),
        ctx,
    );
    let back_f = put(e, <FPTruncOp as CastOpInterface>::new(ctx, dm, f32t), ctx);
    back_f.set_fast_math_flags(ctx, none);
    let back_f = back_f.get_result(ctx);
    let si = val(
        e,
        <FPToSIOp as CastOpInterface>::new(ctx, back_f, i32t),
        ctx,
    );
    let ui = val(
        e,
        <FPToUIOp as CastOpInterface>::new(ctx, back_f, i32t),
        ctx,
    );
    let fs = val(e, <SIToFPOp as CastOpInterface>::new(ctx, si, f32t), ctx);
    let fu = val(e, UIToFPOp::new_with_nneg(ctx, ui, f32t, true), ctx);
    let bits = val(e, <BitcastOp as CastOpInterface>::new(ctx, fu, i32t), ctx);

    // pointer casts
    let pi = val(
        e,
        <PtrToIntOp as CastOpInterface>::new(ctx, out_i, i64t),
        ctx,
    );
    let ip = val(e, <IntToPtrOp as CastOpInterface>::new(ctx, pi, p0), ctx);
    let gp = val(
        e,
        <AddrSpaceCastOp as CastOpInterface>::new(ctx, ip, p1),
        ctx,
    );

    // aggregates, undef/poison/zero
    let pair = ArrayType::get(ctx, i32t, 2).into();
    let agg_ty = StructType::get_unnamed(ctx, (vec![i32t, pair], StructLayout::Unpacked));
    let u = val(e, UndefOp::new(ctx, agg_ty.into()), ctx);
    let agg1 = val(e, InsertValueOp::new(ctx, u, bits, vec![0]), ctx);
    let agg2 = val(e, InsertValueOp::new(ctx, agg1, back, vec![1, 1]), ctx);
    let ex = val(e, ExtractValueOp::new(ctx, agg2, vec![1, 1]).unwrap(), ctx);
    let ex0 = val(e, ExtractValueOp::new(ctx, agg2, vec![0]).unwrap(), ctx);
    let zero = val(e, ZeroOp::new(ctx, i32t), ctx);
    let _unused = val(e, PoisonOp::new(ctx, i32t), ctx);
    let total = val(
        e,
        AddOp::new_with_overflow_flag(ctx, ex, ex0, flags(false)),
        ctx,
    );
    let total = val(
        e,
        AddOp::new_with_overflow_flag(ctx, total, zero, flags(false)),
        ctx,
    );
    put(e, StoreOp::new(ctx, total, gp), ctx);
    put(e, StoreOp::new(ctx, fs, out_f), ctx);

    // intrinsics: overloaded (memcpy), renamed (barrier0), current barrier, trap
    let four = const_int(ctx, e, 64, 4);
    let no = const_int(ctx, e, 1, 0);
    intrinsic(
        ctx,
        e,
        "llvm.memcpy.p0.p0.i64",
        v,
        vec![out_f, out_i, four, no],
    );
    intrinsic(ctx, e, "llvm.nvvm.barrier0", v, vec![]);
    let zero32 = const_int(ctx, e, 32, 0);
    intrinsic(
        ctx,
        e,
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        v,
        vec![zero32],
    );
    // Not `k`: dividing by `k` above already tells the optimiser that `k != 0`.
    let is_zero = val(
        e,
        ICmpOp::new(ctx, ICmpPredicateAttr::EQ, bits, zero32),
        ctx,
    );
    put(
        e,
        CondBrOp::new(ctx, is_zero, trap, vec![], exit, vec![]),
        ctx,
    );

    intrinsic(ctx, trap, "llvm.trap", v, vec![]);
    put(trap, UnreachableOp::new(ctx), ctx);
    put(exit, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

#[test]
fn every_op_reaches_ptx() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let m = kitchen_sink(ctx);
        let opts = EmitOptions {
            kernels: vec!["sink".into()],
            opt_level: level,
            libdevice: None,
            dump_ir: true,
            ..EmitOptions::default()
        };
        let out = emit_ptx(ctx, m, &opts).unwrap_or_else(|e| panic!("O{level}: {e}"));
        let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
        for needle in [
            "%Pair = type { i32, [4 x float] }",
            "alloca %Pair, align 8",
            "getelementptr %Pair, ptr",
            "sub nsw i32",
            "fmul fast float",
            "fcmp olt float",
            "zext i16",
            "uitofp nneg i32",
            "addrspacecast ptr",
            "insertvalue { i32, [2 x i32] }",
            "extractvalue { i32, [2 x i32] }",
            "fmul double %27, 2.500000e+00",
            "call void @llvm.memcpy.p0.p0.i64(ptr %0, ptr %1, i64 4, i1 false)",
            "call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)",
            "call void @llvm.trap()",
            "unreachable",
        ] {
            assert!(ir.contains(needle), "O{level}: missing `{needle}` in\n{ir}");
        }
        assert!(out.ptx.contains(".entry sink"), "{}", out.ptx);
        assert!(out.ptx.contains("bar.sync"), "{}", out.ptx);
        assert!(out.ptx.contains("trap;"), "O{level}: {}", out.ptx);
        ptxas_accepts(&out.ptx, "sm_90", &format!("sink_o{level}"));
    }
}
