//! Shared memory: `.shared` globals (which start undefined, as CUDA's `__shared__`), dynamic
//! shared memory (`extern __shared__`), their addresses cast to generic pointers and back, and
//! atomics on them. (Const-space tables are in `globals.rs`.)

mod common;

use common::*;
use oxide_llvm_emit::{EmitError, EmitOptions, EmitOutput, emit_ptx};
use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::StringAttr,
        op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
        ops::ModuleOp,
    },
    context::{Context, Ptr},
    identifier::Identifier,
    op::Op,
    r#type::TypeHandle,
    value::Value,
};
use pliron_llvm::{
    attributes::{
        AtomicOrderingAttr, AtomicRmwKindAttr, IntegerOverflowFlagsAttr, LinkageAttr,
        SyncScopeAttr, ZeroAttr,
    },
    op_interfaces::{
        AlignableOpInterface, CastOpInterface, CastOpWithNNegInterface,
        IntBinArithOpWithOverflowFlag,
    },
    ops::{
        AddrSpaceCastOp, AddressOfOp, AtomicRmwOp, CallIntrinsicOp, GepIndex, GetElementPtrOp,
        GlobalOp, LoadOp, ReturnOp, StoreOp, SubOp, TruncOp, ZExtOp,
    },
    types::ArrayType,
};

fn ident(name: &str) -> Identifier {
    Identifier::try_from(name).unwrap()
}

/// Adds `name: ty` in the shared space (3), with no initializer.
fn shared(ctx: &mut Context, m: ModuleOp, name: &str, ty: TypeHandle) -> GlobalOp {
    let g = GlobalOp::new(ctx, ident(name), ty);
    g.set_address_space(ctx, 3);
    m.append_operation(ctx, g.get_operation(), 0);
    g
}

fn emit(ctx: &Context, m: ModuleOp, kernel: &str, opt_level: u8) -> EmitOutput {
    let opts = EmitOptions {
        kernels: vec![kernel.into()],
        opt_level,
        libdevice: None,
        dump_ir: true,
        ..EmitOptions::default()
    };
    emit_ptx(ctx, m, &opts).unwrap_or_else(|e| panic!("{kernel} at O{opt_level}: {e}"))
}

fn ir(out: &EmitOutput) -> &str {
    out.llvm_ir_unoptimized.as_deref().unwrap()
}

/// The line of `text` that declares `name`.
fn decl<'t>(text: &'t str, name: &str) -> &'t str {
    text.lines()
        .map(str::trim)
        .find(|l| {
            (l.starts_with('@') || l.starts_with('.'))
                && !l.contains(".entry")
                && l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| word == name)
        })
        .unwrap_or_else(|| panic!("no declaration of {name} in\n{text}"))
}

/// `%tid.x` as an i64.
fn tid(ctx: &mut Context, e: Ptr<BasicBlock>) -> Value {
    let (i32t, i64t) = (i32(ctx), i64(ctx));
    let ty = fn_ty(ctx, i32t, vec![]);
    let name = StringAttr::new("llvm.nvvm.read.ptx.sreg.tid.x".into());
    let tid = val(e, CallIntrinsicOp::new(ctx, name, ty, vec![]), ctx);
    val(e, ZExtOp::new_with_nneg(ctx, tid, i64t, true), ctx)
}

fn barrier(ctx: &mut Context, e: Ptr<BasicBlock>) {
    let (v, i32t) = (void(ctx), i32(ctx));
    let zero = const_int(ctx, e, 32, 0);
    let ty = fn_ty(ctx, v, vec![i32t]);
    let name = StringAttr::new("llvm.nvvm.barrier.cta.sync.aligned.all".into());
    put(e, CallIntrinsicOp::new(ctx, name, ty, vec![zero]), ctx);
}

/// `reverse(ptr addrspace(1) %out)`: each thread writes its id to `tile[tid]` through a
/// generic pointer (as Rust references to shared memory are), counts itself in `hits[0]`
/// with a shared-space atomic, and after a barrier reads `tile[255 - tid]` back.
fn reverse_module(ctx: &mut Context) -> ModuleOp {
    let m = new_module(ctx, "shared");
    let (i32t, i64t, p0, p1, v) = (i32(ctx), i64(ctx), ptr(ctx, 0), ptr(ctx, 1), void(ctx));
    let tile_ty: TypeHandle = ArrayType::get(ctx, i32t, 256).into();
    shared(ctx, m, "tile", tile_ty).set_alignment(ctx, 4);
    // No alignment given: the type's own (8) applies.
    let hits_ty: TypeHandle = ArrayType::get(ctx, i64t, 8).into();
    shared(ctx, m, "hits", hits_ty);

    let ty = fn_ty(ctx, v, vec![p1]);
    let (_, e) = define(ctx, m, "reverse", ty);
    let out = arg(ctx, e, 0);
    let tid = tid(ctx, e);
    let tile = val(e, AddressOfOp::new(ctx, ident("tile"), 3), ctx);
    let tile = val(
        e,
        <AddrSpaceCastOp as CastOpInterface>::new(ctx, tile, p0),
        ctx,
    );
    let mine = vec![GepIndex::Constant(0), GepIndex::Value(tid)];
    let mine = val(e, GetElementPtrOp::new(ctx, tile, mine, tile_ty), ctx);
    let tid32 = val(e, <TruncOp as CastOpInterface>::new(ctx, tid, i32t), ctx);
    put(e, StoreOp::new(ctx, tid32, mine), ctx).set_alignment(ctx, 4);

    let hits = val(e, AddressOfOp::new(ctx, ident("hits"), 3), ctx);
    let one = const_int(ctx, e, 64, 1);
    let block = SyncScopeAttr::NamedScope(StringAttr::new("block".into()));
    let count = AtomicRmwOp::new(
        ctx,
        hits,
        one,
        AtomicRmwKindAttr::Add,
        AtomicOrderingAttr::Monotonic,
        block,
    );
    put(e, count, ctx);
    barrier(ctx, e);

    let last = const_int(ctx, e, 64, 255);
    let flags = IntegerOverflowFlagsAttr::default();
    let mirror = val(e, SubOp::new_with_overflow_flag(ctx, last, tid, flags), ctx);
    let theirs = vec![GepIndex::Constant(0), GepIndex::Value(mirror)];
    let theirs = val(e, GetElementPtrOp::new(ctx, tile, theirs, tile_ty), ctx);
    let got = put(e, LoadOp::new(ctx, theirs, i32t), ctx);
    got.set_alignment(ctx, 4);
    let got = got.get_result(ctx);
    let slot = vec![GepIndex::Value(tid)];
    let slot = val(e, GetElementPtrOp::new(ctx, out, slot, i32t), ctx);
    put(e, StoreOp::new(ctx, got, slot), ctx).set_alignment(ctx, 4);
    put(e, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

#[test]
fn shared_globals_start_undefined_and_are_reached_through_generic_pointers() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let m = reverse_module(ctx);
        let out = emit(ctx, m, "reverse", level);
        let what = format!("O{level}");
        assert_eq!(
            decl(ir(&out), "tile"),
            "@tile = internal addrspace(3) global [256 x i32] undef, align 4",
            "{what}"
        );
        assert_eq!(
            decl(ir(&out), "hits"),
            "@hits = internal addrspace(3) global [8 x i64] undef, align 8",
            "{what}"
        );
        assert!(
            ir(&out).contains(
                "getelementptr [256 x i32], ptr addrspacecast (ptr addrspace(3) @tile to ptr), \
                 i64 0, i64 %2"
            ),
            "{what}: {}",
            ir(&out)
        );
        assert!(
            ir(&out).contains(
                "atomicrmw add ptr addrspace(3) @hits, i64 1 syncscope(\"block\") monotonic, align 8"
            ),
            "{what}: {}",
            ir(&out)
        );
        // Used by one kernel only, the variables move into it.
        assert_eq!(
            decl(&out.ptx, "tile"),
            ".shared .align 4 .b8 tile[1024];",
            "{what}"
        );
        assert_eq!(
            decl(&out.ptx, "hits"),
            ".shared .align 8 .b8 hits[64];",
            "{what}"
        );
        assert!(
            out.ptx.contains("atom.shared.add.u64"),
            "{what}: {}",
            out.ptx
        );
        if level == 0 {
            // Unoptimised, the generic pointer is a real conversion and the accesses generic.
            for needle in ["cvta.shared.u64", "st.b32", "ld.b32"] {
                assert!(out.ptx.contains(needle), "{what}: {needle} in {}", out.ptx);
            }
        } else {
            // Address-space inference sees through the cast: shared loads and stores.
            assert!(!out.ptx.contains("cvta"), "{what}: {}", out.ptx);
            for needle in ["st.shared.b32", "ld.shared.b32"] {
                assert!(out.ptx.contains(needle), "{what}: {needle} in {}", out.ptx);
            }
        }
        ptxas_accepts(&out.ptx, "sm_90", &format!("reverse_o{level}"));
    }
}

/// `extern __shared__ int dyn[];`: an external declaration, sized at launch.
#[test]
fn dynamic_shared_memory_is_an_extern_declaration() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "dynamic");
    let (i32t, v) = (i32(ctx), void(ctx));
    let unsized_ty: TypeHandle = ArrayType::get(ctx, i32t, 0).into();
    let dyn_smem = shared(ctx, m, "dyn_smem", unsized_ty);
    dyn_smem.set_alignment(ctx, 16);
    dyn_smem.set_attr_llvm_global_linkage(ctx, LinkageAttr::ExternalLinkage);
    let ty = fn_ty(ctx, v, vec![i32t]);
    let (_, e) = define(ctx, m, "fill", ty);
    let x = arg(ctx, e, 0);
    let base = val(e, AddressOfOp::new(ctx, ident("dyn_smem"), 3), ctx);
    let tid = tid(ctx, e);
    let slot = val(
        e,
        GetElementPtrOp::new(ctx, base, vec![GepIndex::Value(tid)], i32t),
        ctx,
    );
    put(e, StoreOp::new(ctx, x, slot), ctx);
    put(e, ReturnOp::new(ctx, None), ctx);
    let m = verified(ctx, m);
    let out = emit(ctx, m, "fill", 3);
    assert_eq!(
        decl(ir(&out), "dyn_smem"),
        "@dyn_smem = external addrspace(3) global [0 x i32], align 16"
    );
    assert_eq!(
        decl(&out.ptx, "dyn_smem"),
        ".extern .shared .align 16 .b8 dyn_smem[];"
    );
    assert!(out.ptx.contains("st.shared.b32"), "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "dynamic_smem");
}

/// Shared memory cannot be initialised: anything but `undef`/`poison` is an error.
#[test]
fn initialised_shared_global_is_an_error() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "bad");
    let (i32t, v) = (i32(ctx), void(ctx));
    let arr: TypeHandle = ArrayType::get(ctx, i32t, 4).into();
    shared(ctx, m, "zeroed", arr).set_initializer_value(ctx, Box::new(ZeroAttr(arr)));
    let ty = fn_ty(ctx, v, vec![]);
    let (_, e) = define(ctx, m, "k", ty);
    put(e, ReturnOp::new(ctx, None), ctx);
    let m = verified(ctx, m);
    let opts = EmitOptions {
        kernels: vec!["k".into()],
        ..EmitOptions::default()
    };
    let err = emit_ptx(ctx, m, &opts).unwrap_err();
    assert!(matches!(err, EmitError::InvalidOp { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("llvm.global @zeroed") && text.contains("cannot be initialised"),
        "{text}"
    );
}
