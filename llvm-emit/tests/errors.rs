//! Failures come back as typed errors that name the offending op.

mod common;

use common::*;
use oxide_llvm_emit::{EmitError, EmitOptions, emit_ptx};
use std::num::NonZero;

use pliron::{
    builtin::{
        attributes::{IntegerAttr, StringAttr},
        op_interfaces::{CallOpCallable, SingleBlockRegionInterface},
        ops::ConstantOp as BuiltinConstantOp,
        types::Signedness,
    },
    context::Context,
    identifier::Identifier,
    op::Op,
    utils::apint::APInt,
};
use pliron_llvm::{
    attributes::BytesAttr,
    ops::{AddressOfOp, CallIntrinsicOp, CallOp, GlobalOp, LoadOp, ReturnOp, UndefOp},
    types::ArrayType,
};

fn kernel_opts(name: &str) -> EmitOptions {
    EmitOptions {
        kernels: vec![name.into()],
        ..EmitOptions::default()
    }
}

/// `k(i32 %x) -> void` whose body is built by `body`, then `return`.
fn one_kernel(
    ctx: &mut Context,
    body: impl FnOnce(&mut Context, pliron::context::Ptr<pliron::basic_block::BasicBlock>),
) -> pliron::builtin::ops::ModuleOp {
    let m = new_module(ctx, "m");
    let (i32t, v) = (i32(ctx), void(ctx));
    let ty = fn_ty(ctx, v, vec![i32t]);
    let (_, entry) = define(ctx, m, "k", ty);
    body(ctx, entry);
    put(entry, ReturnOp::new(ctx, None), ctx);
    m
}

/// An op of another dialect (here pliron's `builtin.constant`) in a function body reaches
/// no translation: an internal error that names the op, never some other instruction.
#[test]
fn op_without_translation_is_an_internal_error_naming_it() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let i32t = pliron::builtin::types::IntegerType::get(ctx, 32, Signedness::Signless);
        let seven = IntegerAttr::new(i32t, APInt::from_i64(7, NonZero::new(32).unwrap()));
        put(entry, BuiltinConstantOp::new(ctx, Box::new(seven)), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(matches!(err, EmitError::UnsupportedOp { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with("internal error: no LLVM translation for")
            && msg.contains("builtin.constant"),
        "{msg}"
    );
}

#[test]
fn top_level_ops_other_than_functions_and_globals_are_rejected() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let i32t = i32(ctx);
    let stray = UndefOp::new(ctx, i32t);
    m.append_operation(ctx, stray.get_operation(), 0);
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(matches!(err, EmitError::UnsupportedOp { .. }), "{err:?}");
    assert!(err.to_string().contains("llvm.undef"), "{err}");
}

/// Adds `name: ty` to `m`, initialised with `init`.
fn global(
    ctx: &mut Context,
    m: pliron::builtin::ops::ModuleOp,
    name: &str,
    ty: pliron::r#type::TypeHandle,
    init: Option<pliron::attribute::AttrObj>,
) -> GlobalOp {
    let g = GlobalOp::new(ctx, Identifier::try_from(name).unwrap(), ty);
    if let Some(init) = init {
        g.set_initializer_value(ctx, init);
    }
    m.append_operation(ctx, g.get_operation(), 0);
    g
}

#[test]
fn global_with_a_taken_name() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let i32t = i32(ctx);
    global(ctx, m, "k", i32t, None);
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    // Globals are declared first, so the function is the one that finds its name taken.
    let msg = err.to_string();
    assert!(
        msg.contains("llvm.func @k") && msg.contains("already exists"),
        "{msg}"
    );
}

#[test]
fn initializer_of_the_wrong_type() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let i8t = pliron::builtin::types::IntegerType::get(ctx, 8, Signedness::Signless);
    let four_bytes = ArrayType::get(ctx, i8t.into(), 4).into();
    let three = BytesAttr::new(b"abc".to_vec());
    global(ctx, m, "g", four_bytes, Some(Box::new(three)));
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EmitError::InvalidOp { .. }), "{err:?}");
    assert!(
        msg.contains("llvm.global @g") && msg.contains("a constant of type"),
        "{msg}"
    );
}

#[test]
fn initializer_region_that_is_not_constant() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let i32t = i32(ctx);
    let seven = IntegerAttr::new(
        pliron::builtin::types::IntegerType::get(ctx, 32, Signedness::Signless),
        APInt::from_i64(7, NonZero::new(32).unwrap()),
    );
    global(ctx, m, "src", i32t, Some(Box::new(seven)));
    let g = global(ctx, m, "copy", i32t, None);
    g.add_initializer_region(ctx);
    let init = g.get_initializer_block(ctx).unwrap();
    let src = val(
        init,
        AddressOfOp::new(ctx, Identifier::try_from("src").unwrap(), 0),
        ctx,
    );
    let loaded = val(init, LoadOp::new(ctx, src, i32t), ctx);
    put(init, ReturnOp::new(ctx, Some(loaded)), ctx);
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(
        err.to_string().contains("does not compute a constant"),
        "{err}"
    );
}

#[test]
fn addressof_an_unknown_symbol() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let name = Identifier::try_from("nowhere").unwrap();
        put(entry, AddressOfOp::new(ctx, name, 0), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("llvm.addressof") && msg.contains("@nowhere is not a global or a function"),
        "{msg}"
    );
}

#[test]
fn missing_kernel() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let err = emit_ptx(ctx, m, &kernel_opts("not_there")).unwrap_err();
    assert!(
        matches!(err, EmitError::UnknownKernel(ref k) if k == "not_there"),
        "{err:?}"
    );
}

#[test]
fn unknown_intrinsic() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let v = void(ctx);
        let ty = fn_ty(ctx, v, vec![]);
        let name = StringAttr::new("llvm.nvvm.no.such.thing".into());
        put(entry, CallIntrinsicOp::new(ctx, name, ty, vec![]), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EmitError::InvalidOp { .. }), "{err:?}");
    assert!(
        msg.contains("llvm.call_intrinsic") && msg.contains("llvm.nvvm.no.such.thing"),
        "{msg}"
    );
}

#[test]
fn intrinsic_with_wrong_type() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let i64t = i64(ctx);
        let ty = fn_ty(ctx, i64t, vec![]);
        let name = StringAttr::new("llvm.nvvm.read.ptx.sreg.tid.x".into());
        put(entry, CallIntrinsicOp::new(ctx, name, ty, vec![]), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(
        err.to_string().contains("does not match the intrinsic's"),
        "{err}"
    );
}

#[test]
fn call_with_wrong_callee_type() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let (i64t, v) = (i64(ctx), void(ctx));
        let wrong_ty = fn_ty(ctx, v, vec![i64t]);
        let x = const_int(ctx, entry, 64, 7);
        let callee = CallOpCallable::Direct(Identifier::try_from("k").unwrap());
        put(entry, CallOp::new(ctx, callee, wrong_ty, vec![x]), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(
        err.to_string()
            .contains("does not match @k's type void (i32)"),
        "{err}"
    );
}

#[test]
fn call_with_wrong_argument_type() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |ctx, entry| {
        let (i32t, v) = (i32(ctx), void(ctx));
        let ty = fn_ty(ctx, v, vec![i32t]);
        let x = const_int(ctx, entry, 64, 7);
        let callee = CallOpCallable::Direct(Identifier::try_from("k").unwrap());
        put(entry, CallOp::new(ctx, callee, ty, vec![x]), ctx);
    });
    let err = emit_ptx(ctx, m, &kernel_opts("k")).unwrap_err();
    assert!(
        err.to_string()
            .contains("argument 0 is i64 but the parameter is i32"),
        "{err}"
    );
}

#[test]
fn llvm_verifier_failure_carries_the_message_and_ir() {
    // Returns an i64 from an i32 function: not checked by the translation, caught by LLVM.
    let ctx = &mut Context::new();
    let m = new_module(ctx, "m");
    let (i32t, i64t) = (i32(ctx), i64(ctx));
    let ty = fn_ty(ctx, i32t, vec![i64t]);
    let (_, entry) = define(ctx, m, "bad", ty);
    let x = arg(ctx, entry, 0);
    put(entry, ReturnOp::new(ctx, Some(x)), ctx);
    let err = emit_ptx(ctx, m, &EmitOptions::default()).unwrap_err();
    match err {
        EmitError::Verify { message, llvm_ir } => {
            assert!(message.contains("return type does not match"), "{message}");
            assert!(
                llvm_ir.contains("define internal i32 @bad(i64"),
                "{llvm_ir}"
            );
        }
        other => panic!("expected a verifier error, got {other:?}"),
    }
}

/// (An architecture cannot be a bad option: `EmitOptions::arch` is a validated `GpuArch`.)
#[test]
fn bad_options() {
    let ctx = &mut Context::new();
    let m = one_kernel(ctx, |_, _| {});
    let opts = EmitOptions {
        opt_level: 4,
        ..kernel_opts("k")
    };
    let err = emit_ptx(ctx, m, &opts).unwrap_err();
    assert!(matches!(err, EmitError::InvalidOptions(_)), "{err:?}");
    assert!(err.to_string().contains("opt_level 4"), "{err}");
}
