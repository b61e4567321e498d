//! Function attributes (pliron-llvm's `llvm_func_attrs` of an `llvm.func`): `convergent` and
//! `noinline` reach the LLVM function, `noinline` keeps a call LLVM would otherwise inline, and an
//! unknown attribute name is an error. Parameter attributes (oxide-dialects' `param_attrs`) reach
//! the LLVM parameters.

mod common;

use common::*;
use oxide_dialects::param_attrs::set_param_attrs;
use oxide_llvm_emit::{EmitError, EmitOptions, emit_ptx};
use pliron::{
    builtin::{attributes::StringAttr, op_interfaces::CallOpCallable, ops::ModuleOp},
    context::Context,
    identifier::Identifier,
};
use pliron_llvm::{
    llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
    ops::{CallIntrinsicOp, CallOp, ReturnOp},
};

/// `step()` executes the block barrier; kernel `twice` calls it twice. `attrs` go on `step`.
fn barrier_helper_module(ctx: &mut Context, attrs: &[&str]) -> ModuleOp {
    let m = new_module(ctx, "attrs");
    let (v, i32t) = (void(ctx), i32(ctx));
    let step_ty = fn_ty(ctx, v, vec![]);
    let (step, entry) = define(ctx, m, "step", step_ty);
    let barrier_ty = fn_ty(ctx, v, vec![i32t]);
    let zero = const_int(ctx, entry, 32, 0);
    let name = StringAttr::new("llvm.nvvm.barrier.cta.sync.aligned.all".into());
    put(
        entry,
        CallIntrinsicOp::new(ctx, name, barrier_ty, vec![zero]),
        ctx,
    );
    put(entry, ReturnOp::new(ctx, None), ctx);
    if !attrs.is_empty() {
        let mut set = LlvmAttributesAttr::new();
        for attr in attrs {
            set.set(*attr, LlvmAttrValue::Unit);
        }
        step.set_attr_llvm_func_attrs(ctx, set);
    }

    let (_, kentry) = define(ctx, m, "twice", step_ty);
    for _ in 0..2 {
        let callee = CallOpCallable::Direct(Identifier::try_from("step").unwrap());
        put(kentry, CallOp::new(ctx, callee, step_ty, vec![]), ctx);
    }
    put(kentry, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

fn opts() -> EmitOptions {
    EmitOptions {
        arch: "sm_90".parse().unwrap(),
        opt_level: 3,
        kernels: vec!["twice".into()],
        libdevice: None,
        dump_ir: true,
    }
}

/// The attribute group line of the definition of `@name` in `ir`.
fn attribute_group<'a>(ir: &'a str, name: &str) -> &'a str {
    let define = ir
        .lines()
        .find(|l| l.starts_with("define") && l.contains(&format!("@{name}(")))
        .unwrap_or_else(|| panic!("no definition of @{name} in\n{ir}"));
    let group = define
        .split_whitespace()
        .rev()
        .find(|w| w.starts_with('#'))
        .unwrap_or_else(|| panic!("@{name} has no attribute group: {define}"));
    ir.lines()
        .find(|l| l.starts_with(&format!("attributes {group} ")))
        .unwrap_or_else(|| panic!("no `attributes {group}` in\n{ir}"))
}

#[test]
fn convergent_and_noinline_reach_the_function() {
    let ctx = &mut Context::new();
    let m = barrier_helper_module(ctx, &["convergent", "noinline"]);
    let out = emit_ptx(ctx, m, &opts()).expect("emit");
    let ir = out.llvm_ir.as_deref().unwrap();
    let group = attribute_group(ir, "step");
    assert!(
        group.contains("convergent") && group.contains("noinline"),
        "{group}"
    );
    // Kept as a function and called twice.
    assert!(out.ptx.contains(".func step"), "{}", out.ptx);
    assert_eq!(out.ptx.matches("call.uni").count(), 2, "{}", out.ptx);
    ptxas_accepts(
        &out.ptx,
        "sm_90",
        "convergent_and_noinline_reach_the_function",
    );
}

#[test]
fn without_noinline_the_helper_is_inlined() {
    let ctx = &mut Context::new();
    let m = barrier_helper_module(ctx, &[]);
    let out = emit_ptx(ctx, m, &opts()).expect("emit");
    assert!(!out.ptx.contains(".func step"), "{}", out.ptx);
    // Inlined twice, its two barriers stand together with nothing between: one is kept.
    assert_eq!(out.ptx.matches("bar.sync").count(), 1, "{}", out.ptx);
}

#[test]
fn an_unknown_function_attribute_is_an_error() {
    let ctx = &mut Context::new();
    let m = barrier_helper_module(ctx, &["convergentt"]);
    match emit_ptx(ctx, m, &opts()) {
        Err(e @ EmitError::InvalidOp { .. }) => {
            assert!(e.to_string().contains("convergentt"), "{e}")
        }
        other => panic!("expected an error naming the attribute, got {other:?}"),
    }
}

/// Set as the backend sets them (through oxide-dialects), a slice's attributes reach its LLVM
/// parameter and an empty set leaves the other one bare.
#[test]
fn parameter_attributes_reach_the_parameters() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "params");
    let (v, p1, i32t) = (void(ctx), ptr(ctx, 1), i32(ctx));
    let ty = fn_ty(ctx, v, vec![p1, i32t]);
    let (k, entry) = define(ctx, m, "k", ty);
    put(entry, ReturnOp::new(ctx, None), ctx);
    let mut slice = LlvmAttributesAttr::new();
    slice.set("noalias", LlvmAttrValue::Unit);
    slice.set("align", LlvmAttrValue::Int(16));
    slice.set("readonly", LlvmAttrValue::Unit);
    set_param_attrs(ctx, k, vec![slice, LlvmAttributesAttr::new()]);
    let m = verified(ctx, m);
    let opts = EmitOptions {
        kernels: vec!["k".into()],
        ..opts()
    };
    let out = emit_ptx(ctx, m, &opts).expect("emit");
    let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
    assert!(
        ir.contains(
            "define ptx_kernel void @k(ptr addrspace(1) noalias readonly align 16 %0, i32 %1)"
        ),
        "{ir}"
    );
}
