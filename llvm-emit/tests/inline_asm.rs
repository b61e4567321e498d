//! `llvm.inline_asm` (with and without a result, inputs, side effects, call-site attributes)
//! and `llvm.freeze`, checked on the LLVM IR, the PTX and with ptxas.

mod common;

use common::*;
use oxide_llvm_emit::{EmitError, EmitOptions, EmitOutput, emit_ptx};
use pliron::{
    basic_block::BasicBlock,
    builtin::ops::ModuleOp,
    context::{Context, Ptr},
    r#type::TypeHandle,
};
use pliron_llvm::{
    llvm_attrs::{LlvmAttrValue, LlvmAttributesAttr},
    ops::{FreezeOp, InlineAsmOp, ReturnOp, StoreOp},
};

/// A module with one kernel `name(params...)`; `body` fills its entry block, which then returns.
fn kernel(
    ctx: &mut Context,
    name: &str,
    params: Vec<TypeHandle>,
    body: impl FnOnce(&mut Context, Ptr<BasicBlock>),
) -> ModuleOp {
    let m = new_module(ctx, "asm");
    let v = void(ctx);
    let ty = fn_ty(ctx, v, params);
    let (_, entry) = define(ctx, m, name, ty);
    body(ctx, entry);
    put(entry, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

fn emit(ctx: &Context, m: ModuleOp, kernel: &str, opt_level: u8) -> Result<EmitOutput, EmitError> {
    let opts = EmitOptions {
        kernels: vec![kernel.into()],
        opt_level,
        libdevice: None,
        dump_ir: true,
        ..EmitOptions::default()
    };
    emit_ptx(ctx, m, &opts)
}

fn ir(out: &EmitOutput) -> &str {
    out.llvm_ir_unoptimized.as_deref().unwrap()
}

/// `lane(ptr addrspace(1) %out)`: `*out = %laneid`, read by inline PTX with an output.
#[test]
fn inline_asm_with_a_result() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
        let m = kernel(ctx, "lane", vec![p1], |ctx, e| {
            let out = arg(ctx, e, 0);
            let asm = InlineAsmOp::new(ctx, i32t, vec![], "mov.u32 $0, %laneid;", "=r", false);
            let lane = val(e, asm, ctx);
            put(e, StoreOp::new(ctx, lane, out), ctx);
        });
        let out = emit(ctx, m, "lane", level).unwrap();
        assert!(
            ir(&out).contains("%1 = call i32 asm \"mov.u32 $0, %laneid;\", \"=r\"()"),
            "{}",
            ir(&out)
        );
        // `$0` is the output's register.
        assert!(
            out.ptx
                .contains("// begin inline asm\n\tmov.u32 %r1, %laneid;\n\t// end inline asm"),
            "O{level}: {}",
            out.ptx
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("lane_o{level}"));
    }
}

/// `nap(i32 %ns, i32 %x, ptr addrspace(1) %out)`: `nanosleep` (no result, side effects),
/// then `shfl.sync` (inputs, a result, `convergent` on the call), and `freeze`.
#[test]
fn inline_asm_without_result_with_inputs_and_attributes() {
    let ctx = &mut Context::new();
    let (p1, i32t, v) = (ptr(ctx, 1), i32(ctx), void(ctx));
    let m = kernel(ctx, "nap", vec![i32t, i32t, p1], |ctx, e| {
        let (ns, x, out) = (arg(ctx, e, 0), arg(ctx, e, 1), arg(ctx, e, 2));
        let sleep = InlineAsmOp::new(ctx, v, vec![ns], "nanosleep.u32 $0;", "r", true);
        put(e, sleep, ctx);
        let lane0 = const_int(ctx, e, 32, 0);
        let shfl = InlineAsmOp::new(
            ctx,
            i32t,
            vec![x, lane0],
            "shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;",
            "=r,r,r",
            true,
        );
        let mut attrs = LlvmAttributesAttr::new();
        attrs.set("convergent", LlvmAttrValue::Unit);
        shfl.set_attr_llvm_inline_asm_attrs(ctx, attrs);
        let got = val(e, shfl, ctx);
        let frozen = val(e, FreezeOp::new(ctx, got), ctx);
        put(e, StoreOp::new(ctx, frozen, out), ctx);
    });
    for level in [0, 3] {
        let out = emit(ctx, m, "nap", level).unwrap();
        let ir = ir(&out);
        for needle in [
            "call void asm sideeffect \"nanosleep.u32 $0;\", \"r\"(i32 %0)\n",
            "%3 = call i32 asm sideeffect \"shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;\", \
             \"=r,r,r\"(i32 %1, i32 0) #0\n",
            "%4 = freeze i32 %3\n",
            "attributes #0 = { convergent }",
        ] {
            assert!(ir.contains(needle), "O{level}: missing `{needle}` in\n{ir}");
        }
        // Register numbers differ between O0 and O3; the instructions and operand order not.
        let asm: Vec<&str> = out
            .ptx
            .lines()
            .filter(|l| l.contains("nanosleep") || l.contains("shfl"))
            .map(str::trim)
            .collect();
        let [sleep, shfl] = asm[..] else {
            panic!("O{level}: {asm:?} in\n{}", out.ptx)
        };
        assert!(sleep.starts_with("nanosleep.u32 %r"), "{sleep}");
        assert!(
            shfl.starts_with("shfl.sync.idx.b32 %r") && shfl.ends_with(", 0x1f, 0xffffffff;"),
            "{shfl}"
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("nap_o{level}"));
    }
}

/// Call-site attributes are LLVM's by name; an unknown one is an error naming the op.
#[test]
fn inline_asm_with_an_unknown_attribute() {
    let ctx = &mut Context::new();
    let v = void(ctx);
    let m = kernel(ctx, "k", vec![], |ctx, e| {
        let asm = InlineAsmOp::new(ctx, v, vec![], "exit;", "", true);
        let mut attrs = LlvmAttributesAttr::new();
        attrs.set("no_such_attribute", LlvmAttrValue::Unit);
        asm.set_attr_llvm_inline_asm_attrs(ctx, attrs);
        put(e, asm, ctx);
    });
    let err = emit(ctx, m, "k", 0).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, EmitError::InvalidOp { .. }), "{err:?}");
    assert!(
        text.contains("llvm.inline_asm")
            && text.contains("unknown LLVM attribute `no_such_attribute`"),
        "{text}"
    );
}
