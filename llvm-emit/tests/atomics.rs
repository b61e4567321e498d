//! Atomics: `atomicrmw` of every kind, `cmpxchg`, `fence`, atomic loads and stores, with
//! their orderings and NVPTX sync scopes, checked on the LLVM IR, the PTX and with ptxas.

mod common;

use common::*;
use oxide_llvm_emit::{EmitError, EmitOptions, EmitOutput, emit_ptx};
use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::StringAttr,
        ops::ModuleOp,
        types::{IntegerType, Signedness},
    },
    context::{Context, Ptr},
    r#type::TypeHandle,
    value::Value,
};
use pliron_llvm::{
    attributes::{AtomicOrderingAttr as Ord, AtomicRmwKindAttr as Kind, SyncScopeAttr},
    op_interfaces::{CastOpInterface, CastOpWithNNegInterface},
    ops::{
        AtomicCmpxchgOp, AtomicLoadOp, AtomicRmwOp, AtomicStoreOp, ExtractValueOp, FenceOp,
        GepIndex, GetElementPtrOp, ReturnOp, SExtOp, StoreOp, ZExtOp,
    },
};

fn scope(name: &str) -> SyncScopeAttr {
    SyncScopeAttr::NamedScope(StringAttr::new(name.into()))
}

/// A module with one kernel `name(params...)`; `body` fills its entry block, which then returns.
fn kernel(
    ctx: &mut Context,
    name: &str,
    params: Vec<TypeHandle>,
    body: impl FnOnce(&mut Context, Ptr<BasicBlock>),
) -> ModuleOp {
    let m = new_module(ctx, "atomics");
    let v = void(ctx);
    let ty = fn_ty(ctx, v, params);
    let (_, entry) = define(ctx, m, name, ty);
    body(ctx, entry);
    put(entry, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
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

fn emit_err(ctx: &Context, m: ModuleOp, kernel: &str) -> EmitError {
    let opts = EmitOptions {
        kernels: vec![kernel.into()],
        ..EmitOptions::default()
    };
    emit_ptx(ctx, m, &opts).expect_err("the translation should fail")
}

/// `&base[i]` for an element of type `elem`.
fn element(
    ctx: &mut Context,
    block: Ptr<BasicBlock>,
    base: Value,
    i: i64,
    elem: TypeHandle,
) -> Value {
    let idx = vec![GepIndex::Constant(i as u32)];
    val(block, GetElementPtrOp::new(ctx, base, idx, elem), ctx)
}

fn ir(out: &EmitOutput) -> &str {
    out.llvm_ir_unoptimized.as_deref().unwrap()
}

fn assert_has(text: &str, needles: &[&str], what: &str) {
    for needle in needles {
        assert!(
            text.contains(needle),
            "{what}: missing `{needle}` in\n{text}"
        );
    }
}

const INT_KINDS: [(Kind, &str); 11] = [
    (Kind::Xchg, "xchg"),
    (Kind::Add, "add"),
    (Kind::Sub, "sub"),
    (Kind::And, "and"),
    (Kind::Nand, "nand"),
    (Kind::Or, "or"),
    (Kind::Xor, "xor"),
    (Kind::Max, "max"),
    (Kind::Min, "min"),
    (Kind::UMax, "umax"),
    (Kind::UMin, "umin"),
];
const FLOAT_KINDS: [(Kind, &str); 4] = [
    (Kind::FAdd, "fadd"),
    (Kind::FSub, "fsub"),
    (Kind::FMax, "fmax"),
    (Kind::FMin, "fmin"),
];

/// `rmw(ptr addrspace(1) %ints, ptr addrspace(1) %floats, i32 %v, float %f)`: every
/// `atomicrmw` kind, device scope, monotonic; each old value is stored to the next slot.
fn every_rmw_kind(ctx: &mut Context) -> ModuleOp {
    let (p1, i32t, f32t) = (ptr(ctx, 1), i32(ctx), f32(ctx));
    kernel(ctx, "rmw", vec![p1, p1, i32t, f32t], |ctx, e| {
        let (ints, floats, v, f) = (
            arg(ctx, e, 0),
            arg(ctx, e, 1),
            arg(ctx, e, 2),
            arg(ctx, e, 3),
        );
        let kinds = INT_KINDS.iter().map(|k| (k, ints, v, i32t));
        let kinds = kinds.chain(FLOAT_KINDS.iter().map(|k| (k, floats, f, f32t)));
        for (slot, ((kind, _), base, value, ty)) in kinds.enumerate() {
            let op = AtomicRmwOp::new(
                ctx,
                base,
                value,
                kind.clone(),
                Ord::Monotonic,
                scope("device"),
            );
            let old = val(e, op, ctx);
            let out = element(ctx, e, base, slot as i64 + 1, ty);
            put(e, StoreOp::new(ctx, old, out), ctx);
        }
    })
}

#[test]
fn atomicrmw_of_every_kind() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let m = every_rmw_kind(ctx);
        let out = emit(ctx, m, "rmw", level);
        let what = format!("O{level}");
        let ir_lines: Vec<String> = INT_KINDS
            .iter()
            .map(|(_, k)| format!("atomicrmw {k} ptr addrspace(1) %0, i32 %2 syncscope(\"device\") monotonic, align 4"))
            .chain(FLOAT_KINDS.iter().map(|(_, k)| {
                format!("atomicrmw {k} ptr addrspace(1) %1, float %3 syncscope(\"device\") monotonic, align 4")
            }))
            .collect();
        let ir_lines: Vec<&str> = ir_lines.iter().map(String::as_str).collect();
        assert_has(ir(&out), &ir_lines, &what);
        // A monotonic `atom` is PTX's default: relaxed, at .gpu scope. Sub is an add of the
        // negation; nand, fsub, fmax and fmin have no PTX `atom` and become CAS loops.
        assert_has(
            &out.ptx,
            &[
                "atom.global.exch.b32",
                "atom.global.add.u32",
                "neg.s32",
                "atom.global.and.b32",
                "atom.global.or.b32",
                "atom.global.xor.b32",
                "atom.global.max.s32",
                "atom.global.min.s32",
                "atom.global.max.u32",
                "atom.global.min.u32",
                "atom.global.add.f32",
                "atom.relaxed.gpu.global.cas.b32",
            ],
            &what,
        );
        assert_eq!(
            out.ptx.matches("atom.relaxed.gpu.global.cas.b32").count(),
            4,
            "{what}: {}",
            out.ptx
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("rmw_o{level}"));
    }
}

/// `scoped(ptr addrspace(1) %p, i32 %v)`: acq_rel `atomicrmw add` in each scope.
#[test]
fn atomicrmw_scopes_and_orderings() {
    let scopes = [
        ("block", scope("block")),
        ("cluster", scope("cluster")),
        ("device", scope("device")),
        ("system", SyncScopeAttr::System),
    ];
    let ctx = &mut Context::new();
    let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
    let m = kernel(ctx, "scoped", vec![p1, i32t], |ctx, e| {
        let (p, v) = (arg(ctx, e, 0), arg(ctx, e, 1));
        for (slot, (_, scope)) in scopes.iter().enumerate() {
            let op = AtomicRmwOp::new(ctx, p, v, Kind::Add, Ord::AcqRel, scope.clone());
            let old = val(e, op, ctx);
            let out = element(ctx, e, p, slot as i64 + 1, i32t);
            put(e, StoreOp::new(ctx, old, out), ctx);
        }
    });
    let out = emit(ctx, m, "scoped", 0);
    // LLVM 22 prints every `atomicrmw` as a relaxed .gpu `atom`, so acq_rel comes from a
    // release fence before and an acquire fence after, in the op's scope.
    for (name, _) in &scopes[..3] {
        let scoped = format!("syncscope(\"{name}\") ");
        let before = format!("fence {scoped}release\n  %");
        let rmw = format!(
            "= atomicrmw add ptr addrspace(1) %0, i32 %1 {scoped}monotonic, align 4\n  \
             fence {scoped}acquire"
        );
        assert_has(ir(&out), &[&before, &rmw], name);
    }
    assert_has(
        ir(&out),
        &[
            "fence release\n  %8 = atomicrmw add ptr addrspace(1) %0, i32 %1 monotonic, align 4\n  fence acquire",
        ],
        "system",
    );
    for ptx_scope in ["cta", "cluster", "gpu", "sys"] {
        let fenced = format!("fence.acq_rel.{ptx_scope};\n\tatom.global.add.u32 \t%r");
        assert_has(&out.ptx, &[&fenced], ptx_scope);
    }
    assert_eq!(out.ptx.matches("fence.acq_rel.").count(), 8, "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "scoped");
}

/// `cas(ptr addrspace(1) %p, i32 %expected, i32 %new)`: `p[1] = old; p[2] = success`.
#[test]
fn cmpxchg_gives_value_and_success_flag() {
    let ctx = &mut Context::new();
    let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
    let m = kernel(ctx, "cas", vec![p1, i32t, i32t], |ctx, e| {
        let (p, expected, new) = (arg(ctx, e, 0), arg(ctx, e, 1), arg(ctx, e, 2));
        let op = AtomicCmpxchgOp::new(
            ctx,
            p,
            expected,
            new,
            Ord::AcqRel,
            Ord::Acquire,
            scope("block"),
        );
        let pair = val(e, op, ctx);
        let old = val(e, ExtractValueOp::new(ctx, pair, vec![0]).unwrap(), ctx);
        let ok = val(e, ExtractValueOp::new(ctx, pair, vec![1]).unwrap(), ctx);
        let ok = val(e, ZExtOp::new_with_nneg(ctx, ok, i32t, false), ctx);
        let (out_old, out_ok) = (element(ctx, e, p, 1, i32t), element(ctx, e, p, 2, i32t));
        put(e, StoreOp::new(ctx, old, out_old), ctx);
        put(e, StoreOp::new(ctx, ok, out_ok), ctx);
    });
    for level in [0, 3] {
        let out = emit(ctx, m, "cas", level);
        let what = format!("O{level}");
        assert_has(
            ir(&out),
            &[
                "%3 = cmpxchg ptr addrspace(1) %0, i32 %1, i32 %2 syncscope(\"block\") acq_rel acquire, align 4",
                "%4 = extractvalue { i32, i1 } %3, 0",
                "%5 = extractvalue { i32, i1 } %3, 1",
            ],
            &what,
        );
        assert_has(
            &out.ptx,
            &[
                "atom.acq_rel.cta.global.cas.b32 \t%r3, [%rd1], %r1, %r2;",
                "setp.eq.b32 \t%p1, %r3, %r1;",
            ],
            &what,
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("cas_o{level}"));
    }
}

#[test]
fn fences() {
    let ctx = &mut Context::new();
    let m = kernel(ctx, "fences", vec![], |ctx, e| {
        put(
            e,
            FenceOp::new(ctx, Ord::SeqCst, SyncScopeAttr::System),
            ctx,
        );
        put(e, FenceOp::new(ctx, Ord::AcqRel, scope("device")), ctx);
        put(e, FenceOp::new(ctx, Ord::Acquire, scope("cluster")), ctx);
        put(e, FenceOp::new(ctx, Ord::Release, scope("block")), ctx);
        put(e, FenceOp::new(ctx, Ord::SeqCst, scope("block")), ctx);
        // Orders only against signal handlers of this thread: no instruction.
        put(
            e,
            FenceOp::new(ctx, Ord::SeqCst, SyncScopeAttr::SingleThread),
            ctx,
        );
    });
    for level in [0, 3] {
        let out = emit(ctx, m, "fences", level);
        let what = format!("O{level}");
        assert_has(
            ir(&out),
            &["  fence seq_cst\n  fence syncscope(\"device\") acq_rel\n  \
                 fence syncscope(\"cluster\") acquire\n  fence syncscope(\"block\") release\n  \
                 fence syncscope(\"block\") seq_cst\n  ret void"],
            &what,
        );
        // PTX has no acquire- or release-only fence; acq_rel is the next stronger one.
        assert_has(
            &out.ptx,
            &[
                "\tfence.sc.sys;\n\tfence.acq_rel.gpu;\n\tfence.acq_rel.cluster;\n\t\
                 fence.acq_rel.cta;\n\tfence.sc.cta;\n\tret;",
            ],
            &what,
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("fences_o{level}"));
    }
}

/// `flag(ptr addrspace(1) %p)`: `p[1] = load acquire device p[0]; store release block`.
#[test]
fn atomic_load_and_store() {
    let ctx = &mut Context::new();
    let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
    let m = kernel(ctx, "flag", vec![p1], |ctx, e| {
        let p = arg(ctx, e, 0);
        let op = AtomicLoadOp::new(ctx, p, i32t, Ord::Acquire, scope("device"));
        let x = val(e, op, ctx);
        let out = element(ctx, e, p, 1, i32t);
        put(
            e,
            AtomicStoreOp::new(ctx, x, out, Ord::Release, scope("block")),
            ctx,
        );
        let relaxed = AtomicLoadOp::new(ctx, out, i32t, Ord::Monotonic, SyncScopeAttr::System);
        let y = val(e, relaxed, ctx);
        let out = element(ctx, e, p, 2, i32t);
        put(
            e,
            AtomicStoreOp::new(ctx, y, out, Ord::SeqCst, scope("cluster")),
            ctx,
        );
    });
    for level in [0, 3] {
        let out = emit(ctx, m, "flag", level);
        let what = format!("O{level}");
        assert_has(
            ir(&out),
            &[
                "%1 = load atomic i32, ptr addrspace(1) %0 syncscope(\"device\") acquire, align 4",
                "store atomic i32 %1, ptr addrspace(1) %2 syncscope(\"block\") release, align 4",
                "%3 = load atomic i32, ptr addrspace(1) %2 monotonic, align 4",
                "store atomic i32 %3, ptr addrspace(1) %4 syncscope(\"cluster\") seq_cst, align 4",
            ],
            &what,
        );
        assert_has(
            &out.ptx,
            &[
                "ld.acquire.gpu.global.b32 \t%r1, [%rd1];",
                "st.release.cta.global.b32 \t[%rd1+4], %r1;",
                "ld.relaxed.sys.global.b32 \t%r2, [%rd1+4];",
                // seq_cst store: fence.sc, then a release store.
                "fence.sc.cluster;\n\tst.release.cluster.global.b32 \t[%rd1+8], %r2;",
            ],
            &what,
        );
        ptxas_accepts(&out.ptx, "sm_90", &format!("flag_o{level}"));
    }
}

/// Before sm_90 there are no clusters (a cluster is one block), and NVPTX stops the process on
/// a cluster scope: it becomes the device scope, which covers it.
#[test]
fn cluster_scope_before_hopper_is_device_scope() {
    let ctx = &mut Context::new();
    let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
    let m = kernel(ctx, "k", vec![p1, i32t], |ctx, e| {
        let (p, v) = (arg(ctx, e, 0), arg(ctx, e, 1));
        let op = AtomicRmwOp::new(ctx, p, v, Kind::Add, Ord::Release, scope("cluster"));
        put(e, op, ctx);
        put(e, FenceOp::new(ctx, Ord::AcqRel, scope("cluster")), ctx);
    });
    let opts = EmitOptions {
        kernels: vec!["k".into()],
        arch: "sm_80".parse().unwrap(),
        opt_level: 0,
        libdevice: None,
        dump_ir: true,
    };
    let out = emit_ptx(ctx, m, &opts).unwrap();
    assert!(!ir(&out).contains("cluster"), "{}", ir(&out));
    assert_has(
        &out.ptx,
        &["fence.acq_rel.gpu;\n\tatom.global.add.u32"],
        "sm_80",
    );
    ptxas_accepts(&out.ptx, "sm_80", "cluster_sm80");
}

/// What NVPTX cannot do is an error naming the op, not an LLVM abort or a wrong instruction.
#[test]
fn atomics_nvptx_cannot_do_are_errors() {
    type Body = fn(&mut Context, Ptr<BasicBlock>, Value, Value);
    let cases: [(&str, Body, &str); 5] = [
        (
            "PTX scope name",
            |ctx, e, p, v| {
                put(
                    e,
                    AtomicRmwOp::new(ctx, p, v, Kind::Add, Ord::Monotonic, scope("cta")),
                    ctx,
                );
            },
            "sync scope \"cta\" is not an NVPTX scope; the named ones are \"block\" (.cta), \
             \"cluster\" (.cluster), \"device\" (.gpu)",
        ),
        (
            "single thread",
            |ctx, e, p, _| {
                let i32t = i32(ctx);
                let op =
                    AtomicLoadOp::new(ctx, p, i32t, Ord::Monotonic, SyncScopeAttr::SingleThread);
                put(e, op, ctx);
            },
            "the single-thread sync scope has no NVPTX equivalent",
        ),
        (
            "fadd on an integer",
            |ctx, e, p, v| {
                put(
                    e,
                    AtomicRmwOp::new(ctx, p, v, Kind::FAdd, Ord::Monotonic, scope("device")),
                    ctx,
                );
            },
            "atomicrmw FAdd cannot operate on i32",
        ),
        (
            "128-bit rmw",
            |ctx, e, p, v| {
                let i128t: TypeHandle = IntegerType::get(ctx, 128, Signedness::Signless).into();
                let wide = val(e, <SExtOp as CastOpInterface>::new(ctx, v, i128t), ctx);
                put(
                    e,
                    AtomicRmwOp::new(ctx, p, wide, Kind::Xchg, Ord::Monotonic, scope("device")),
                    ctx,
                );
            },
            "atomicrmw Xchg cannot operate on i128",
        ),
        (
            "128-bit cmpxchg",
            |ctx, e, p, v| {
                let i128t: TypeHandle = IntegerType::get(ctx, 128, Signedness::Signless).into();
                let wide = val(e, <SExtOp as CastOpInterface>::new(ctx, v, i128t), ctx);
                let op = AtomicCmpxchgOp::new(
                    ctx,
                    p,
                    wide,
                    wide,
                    Ord::SeqCst,
                    Ord::SeqCst,
                    scope("device"),
                );
                put(e, op, ctx);
            },
            "integers (of 64 bits at most) or pointers",
        ),
    ];
    for (what, body, message) in cases {
        let ctx = &mut Context::new();
        let (p1, i32t) = (ptr(ctx, 1), i32(ctx));
        let m = kernel(ctx, "k", vec![p1, i32t], |ctx, e| {
            let (p, v) = (arg(ctx, e, 0), arg(ctx, e, 1));
            body(ctx, e, p, v);
        });
        let err = emit_err(ctx, m, "k");
        assert!(
            matches!(err, EmitError::InvalidOp { .. }),
            "{what}: {err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("llvm.") && text.contains(message),
            "{what}: {text}"
        );
    }
}
