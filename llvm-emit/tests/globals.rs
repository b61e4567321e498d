//! Module-level data: `llvm.global` (byte tables, scalars, zero-initialised and shared arrays,
//! aggregates, pointer-valued globals) and `llvm.addressof`, checked on the LLVM IR, on the
//! PTX declarations and data, and with ptxas.

mod common;

use std::num::NonZero;

use common::*;
use oxide_llvm_emit::{EmitOptions, EmitOutput, emit_ptx};
use pliron::{
    attribute::AttrObj,
    basic_block::BasicBlock,
    builtin::{
        attr_interfaces::TypedAttrInterface,
        attributes::{FPSingleAttr, IntegerAttr, StringAttr},
        op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
        ops::ModuleOp,
        types::{IntegerType, Signedness},
    },
    context::{Context, Ptr},
    identifier::Identifier,
    op::Op,
    r#type::TypeHandle,
    utils::apint::APInt,
    value::Value,
};
use pliron_llvm::{
    attributes::{
        AggregateAttr, BytesAttr, IntegerOverflowFlagsAttr, LinkageAttr, SymbolAddrAttr, UndefAttr,
        ZeroAttr,
    },
    op_interfaces::{
        AlignableOpInterface, BinArithOp, CastOpWithNNegInterface, IntBinArithOpWithOverflowFlag,
    },
    ops::{
        AddOp, AddressOfOp, AndOp, CallIntrinsicOp, ConstantOp, ExtractValueOp, GepIndex,
        GetElementPtrOp, GlobalOp, LoadOp, ReturnOp, StoreOp, SubOp, URemOp, ZExtOp,
    },
    types::{ArrayType, PointerType, StructLayout, StructType},
};

fn opts(kernel: &str, opt_level: u8) -> EmitOptions {
    EmitOptions {
        arch: "sm_90".parse().unwrap(),
        opt_level,
        kernels: vec![kernel.to_string()],
        libdevice: None,
        dump_ir: true,
    }
}

fn ident(name: &str) -> Identifier {
    Identifier::try_from(name).unwrap()
}

fn int_attr(ctx: &mut Context, width: u32, v: i64) -> IntegerAttr {
    let ty = IntegerType::get(ctx, width, Signedness::Signless);
    IntegerAttr::new(
        ty,
        APInt::from_i64(v, NonZero::new(width as usize).unwrap()),
    )
}

fn i8(ctx: &Context) -> TypeHandle {
    IntegerType::get(ctx, 8, Signedness::Signless).into()
}

/// How a test global is set up; `None`s leave the attribute unset.
struct Global {
    name: &'static str,
    ty: TypeHandle,
    address_space: u32,
    constant: bool,
    align: Option<u32>,
    linkage: Option<LinkageAttr>,
    init: Option<AttrObj>,
}

impl Global {
    fn new(name: &'static str, ty: TypeHandle, address_space: u32) -> Self {
        Global {
            name,
            ty,
            address_space,
            constant: false,
            align: None,
            linkage: None,
            init: None,
        }
    }

    /// The producer-side recipe: exactly the calls the README documents.
    fn add(self, ctx: &mut Context, m: ModuleOp) -> GlobalOp {
        let g = GlobalOp::new(ctx, ident(self.name), self.ty);
        g.set_address_space(ctx, self.address_space);
        g.set_constant(ctx, self.constant);
        if let Some(align) = self.align {
            g.set_alignment(ctx, align);
        }
        if let Some(linkage) = self.linkage {
            g.set_attr_llvm_global_linkage(ctx, linkage);
        }
        if let Some(init) = self.init {
            g.set_initializer_value(ctx, init);
        }
        m.append_operation(ctx, g.get_operation(), 0);
        g
    }
}

/// `%tid.x`, zero-extended to i64.
fn tid64(ctx: &mut Context, block: Ptr<BasicBlock>) -> Value {
    let (i32t, i64t) = (i32(ctx), i64(ctx));
    let tid_ty = fn_ty(ctx, i32t, vec![]);
    let name = StringAttr::new("llvm.nvvm.read.ptx.sreg.tid.x".into());
    let tid = val(block, CallIntrinsicOp::new(ctx, name, tid_ty, vec![]), ctx);
    val(block, ZExtOp::new_with_nneg(ctx, tid, i64t, true), ctx)
}

fn barrier(ctx: &mut Context, block: Ptr<BasicBlock>) {
    let v = void(ctx);
    let i32t = i32(ctx);
    let zero = const_int(ctx, block, 32, 0);
    let ty = fn_ty(ctx, v, vec![i32t]);
    let name = StringAttr::new("llvm.nvvm.barrier.cta.sync.aligned.all".into());
    put(block, CallIntrinsicOp::new(ctx, name, ty, vec![zero]), ctx);
}

fn addressof(ctx: &mut Context, block: Ptr<BasicBlock>, name: &str, address_space: u32) -> Value {
    val(
        block,
        AddressOfOp::new(ctx, ident(name), address_space),
        ctx,
    )
}

/// `out[tid] = value` (i32).
fn store_out(ctx: &mut Context, block: Ptr<BasicBlock>, out: Value, tid: Value, value: Value) {
    let i32t = i32(ctx);
    let gep = GetElementPtrOp::new(ctx, out, vec![GepIndex::Value(tid)], i32t);
    let slot = val(block, gep, ctx);
    put(block, StoreOp::new(ctx, value, slot), ctx).set_alignment(ctx, 4);
}

fn emit(ctx: &Context, m: ModuleOp, kernel: &str, opt_level: u8) -> EmitOutput {
    emit_ptx(ctx, m, &opts(kernel, opt_level))
        .unwrap_or_else(|e| panic!("{kernel} at O{opt_level}: {e}"))
}

/// The line of `text` that declares `name` (`.global`, `.const`, `.shared`).
fn decl<'t>(text: &'t str, name: &str) -> &'t str {
    let name_at = |l: &str| {
        l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == name)
    };
    text.lines()
        .find(|l| {
            let l = l.trim_start();
            (l.starts_with('.') || l.starts_with('@')) && name_at(l) && !l.contains("entry")
        })
        .unwrap_or_else(|| panic!("no declaration of {name} in\n{text}"))
        .trim()
}

const TABLE: &[u8; 16] = b"oxide\0tbl\x7f\x80\xfe\xff\x01\x02\n";

/// (a) `lookup(ptr out)`: `out[tid] = TABLE[tid & 15]`, with `TABLE` a constant `[16 x i8]` in
/// the const space (4), read through a generic pointer. `as_aggregate` spells the bytes as an
/// `AggregateAttr` of `i8`s instead of a `BytesAttr`.
fn byte_table_module(ctx: &mut Context, as_aggregate: bool) -> ModuleOp {
    let m = new_module(ctx, "tables");
    let (i8t, i32t, p0, v) = (i8(ctx), i32(ctx), ptr(ctx, 0), void(ctx));
    let table_ty: TypeHandle = ArrayType::get(ctx, i8t, TABLE.len() as u64).into();
    let init: AttrObj = if as_aggregate {
        let bytes = TABLE
            .iter()
            .map(|&b| Box::new(int_attr(ctx, 8, b as i64)) as Box<dyn TypedAttrInterface>)
            .collect();
        Box::new(AggregateAttr::new(bytes, table_ty))
    } else {
        Box::new(BytesAttr::new(TABLE.to_vec()))
    };
    Global {
        constant: true,
        align: Some(4),
        init: Some(init),
        ..Global::new("TABLE", table_ty, 4)
    }
    .add(ctx, m);

    let ty = fn_ty(ctx, v, vec![p0]);
    let (_, e) = define(ctx, m, "lookup", ty);
    let out = arg(ctx, e, 0);
    let tid = tid64(ctx, e);
    let mask = const_int(ctx, e, 64, 15);
    let idx = val(e, <AndOp as BinArithOp>::new(ctx, tid, mask), ctx);
    let table = addressof(ctx, e, "TABLE", 0);
    let byte_ptr = val(
        e,
        GetElementPtrOp::new(ctx, table, vec![GepIndex::Value(idx)], i8t),
        ctx,
    );
    let byte = val(e, LoadOp::new(ctx, byte_ptr, i8t), ctx);
    let word = val(e, ZExtOp::new_with_nneg(ctx, byte, i32t, false), ctx);
    store_out(ctx, e, out, tid, word);
    put(e, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

#[test]
fn constant_byte_table_in_const_space() {
    let bytes: Vec<String> = TABLE.iter().map(|b| b.to_string()).collect();
    let ptx_data = format!(".const .align 4 .b8 TABLE[16] = {{{}}};", bytes.join(", "));
    for as_aggregate in [false, true] {
        for level in [0, 3] {
            let ctx = &mut Context::new();
            let m = byte_table_module(ctx, as_aggregate);
            let out = emit(ctx, m, "lookup", level);
            let what = format!("aggregate={as_aggregate} O{level}");
            assert_eq!(
                decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "TABLE"),
                r#"@TABLE = internal addrspace(4) constant [16 x i8] c"oxide\00tbl\7F\80\FE\FF\01\02\0A", align 4"#,
                "{what}"
            );
            // The generic pointer the kernel asked for is a cast of the const-space global.
            assert!(
                out.llvm_ir_unoptimized
                    .as_deref()
                    .unwrap()
                    .contains("addrspacecast (ptr addrspace(4) @TABLE to ptr)"),
                "{what}: {}",
                out.llvm_ir_unoptimized.as_deref().unwrap()
            );
            assert_eq!(decl(&out.ptx, "TABLE"), ptx_data, "{what}");
            if level == 3 {
                // The optimiser sees through the cast and reads the const space directly.
                assert!(out.ptx.contains("ld.const.b8"), "{what}: {}", out.ptx);
            } else {
                assert!(out.ptx.contains("cvta.const.u64"), "{what}: {}", out.ptx);
            }
            ptxas_accepts(&out.ptx, "sm_90", &format!("table_{as_aggregate}_o{level}"));
        }
    }
}

/// (b) `bump()`: `counter += 1`, with `counter` a mutable `i32` in the global space (1),
/// initialised to 42, with external linkage so that the host can find it by name.
#[test]
fn mutable_global_with_integer_initializer() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let m = new_module(ctx, "counters");
        let (i32t, v) = (i32(ctx), void(ctx));
        let init = int_attr(ctx, 32, 42);
        Global {
            align: Some(4),
            linkage: Some(LinkageAttr::ExternalLinkage),
            init: Some(Box::new(init)),
            ..Global::new("counter", i32t, 1)
        }
        .add(ctx, m);
        let ty = fn_ty(ctx, v, vec![]);
        let (_, e) = define(ctx, m, "bump", ty);
        let counter = addressof(ctx, e, "counter", 1);
        let old = put(e, LoadOp::new(ctx, counter, i32t), ctx);
        old.set_alignment(ctx, 4);
        let old = old.get_result(ctx);
        let one = const_int(ctx, e, 32, 1);
        let flags = Default::default();
        let new = val(e, AddOp::new_with_overflow_flag(ctx, old, one, flags), ctx);
        put(e, StoreOp::new(ctx, new, counter), ctx).set_alignment(ctx, 4);
        put(e, ReturnOp::new(ctx, None), ctx);
        let m = verified(ctx, m);

        let out = emit(ctx, m, "bump", level);
        assert_eq!(
            decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "counter"),
            "@counter = addrspace(1) global i32 42, align 4"
        );
        assert_eq!(
            decl(&out.ptx, "counter"),
            ".visible .global .align 4 .u32 counter = 42;"
        );
        assert!(out.ptx.contains("ld.global.b32"), "O{level}: {}", out.ptx);
        assert!(out.ptx.contains("st.global.b32"), "O{level}: {}", out.ptx);
        ptxas_accepts(&out.ptx, "sm_90", &format!("counter_o{level}"));
    }
}

/// (c) `reverse(ptr out)`: every thread writes its id into a zero-initialised global array and
/// into an uninitialised shared one, then reads its mirror image from both.
#[test]
fn zero_initialised_global_array_and_shared_array() {
    for level in [0, 3] {
        let ctx = &mut Context::new();
        let m = new_module(ctx, "scratch");
        let (i32t, p0, v) = (i32(ctx), ptr(ctx, 0), void(ctx));
        let arr: TypeHandle = ArrayType::get(ctx, i32t, 64).into();
        Global {
            align: Some(4),
            init: Some(Box::new(ZeroAttr(arr))),
            ..Global::new("scratch", arr, 1)
        }
        .add(ctx, m);
        // Shared memory cannot be initialised: its initializer is `undef`.
        Global {
            align: Some(4),
            init: Some(Box::new(UndefAttr(arr))),
            ..Global::new("tile", arr, 3)
        }
        .add(ctx, m);

        let ty = fn_ty(ctx, v, vec![p0]);
        let (_, e) = define(ctx, m, "reverse", ty);
        let out = arg(ctx, e, 0);
        let tid = tid64(ctx, e);
        let tid32 = val(
            e,
            <pliron_llvm::ops::TruncOp as pliron_llvm::op_interfaces::CastOpInterface>::new(
                ctx, tid, i32t,
            ),
            ctx,
        );
        let last = const_int(ctx, e, 64, 63);
        let flags = IntegerOverflowFlagsAttr::default;
        let mirror = val(
            e,
            SubOp::new_with_overflow_flag(ctx, last, tid, flags()),
            ctx,
        );
        let mut total = None;
        for (name, space) in [("scratch", 0), ("tile", 3)] {
            let base = addressof(ctx, e, name, space);
            let mine = vec![GepIndex::Constant(0), GepIndex::Value(tid)];
            let mine = val(e, GetElementPtrOp::new(ctx, base, mine, arr), ctx);
            put(e, StoreOp::new(ctx, tid32, mine), ctx);
            barrier(ctx, e);
            let theirs = vec![GepIndex::Constant(0), GepIndex::Value(mirror)];
            let theirs = val(e, GetElementPtrOp::new(ctx, base, theirs, arr), ctx);
            let got = val(e, LoadOp::new(ctx, theirs, i32t), ctx);
            total = Some(match total {
                None => got,
                Some(t) => val(e, AddOp::new_with_overflow_flag(ctx, t, got, flags()), ctx),
            });
        }
        store_out(ctx, e, out, tid, total.unwrap());
        put(e, ReturnOp::new(ctx, None), ctx);
        let m = verified(ctx, m);

        let out = emit(ctx, m, "reverse", level);
        assert_eq!(
            decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "scratch"),
            "@scratch = internal addrspace(1) global [64 x i32] zeroinitializer, align 4"
        );
        assert_eq!(
            decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "tile"),
            "@tile = internal addrspace(3) global [64 x i32] undef, align 4"
        );
        assert_eq!(
            decl(&out.ptx, "scratch"),
            ".global .align 4 .b8 scratch[256];"
        );
        assert_eq!(decl(&out.ptx, "tile"), ".shared .align 4 .b8 tile[256];");
        if level == 3 {
            assert!(out.ptx.contains("st.shared.b32"), "{}", out.ptx);
            assert!(out.ptx.contains("st.global.b32"), "{}", out.ptx);
        }
        ptxas_accepts(&out.ptx, "sm_90", &format!("scratch_o{level}"));
    }
}

/// (d) Pointer-valued globals, as `static S: &[u32] = &[10, 20, 30, 40]` produces them:
/// - `DATA`, the `[4 x i32]` behind the slice (an `AggregateAttr` of integers);
/// - `SLICE = { ptr, i64 } { DATA, 4 }`: an `AggregateAttr` holding a `SymbolAddrAttr`;
/// - `ALIAS = DATA` through an initializer region (`llvm.addressof` + `llvm.return`).
///
/// `read(ptr out)`: `out[tid] = SLICE[tid % SLICE.len] + ALIAS[tid % 4] + DATA[0]`, the
/// last through an `llvm.constant` holding a `SymbolAddrAttr`.
fn pointer_globals_module(ctx: &mut Context) -> ModuleOp {
    let m = new_module(ctx, "pointers");
    let (i32t, i64t, p0, v) = (i32(ctx), i64(ctx), ptr(ctx, 0), void(ctx));
    let data_ty: TypeHandle = ArrayType::get(ctx, i32t, 4).into();
    let values = [10, 20, 30, 40]
        .into_iter()
        .map(|x| Box::new(int_attr(ctx, 32, x)) as Box<dyn TypedAttrInterface>)
        .collect();
    Global {
        constant: true,
        align: Some(4),
        init: Some(Box::new(AggregateAttr::new(values, data_ty))),
        ..Global::new("DATA", data_ty, 1)
    }
    .add(ctx, m);

    // The slice's pointer is generic, as Rust references are; DATA is in the global space,
    // so the initializer holds an addrspacecast.
    let slice_ty: TypeHandle =
        StructType::get_unnamed(ctx, (vec![p0, i64t], StructLayout::Unpacked)).into();
    let generic = PointerType::get(ctx, 0);
    let fields: Vec<Box<dyn TypedAttrInterface>> = vec![
        Box::new(SymbolAddrAttr::new(ident("DATA"), generic)),
        Box::new(int_attr(ctx, 64, 4)),
    ];
    Global {
        constant: true,
        align: Some(8),
        init: Some(Box::new(AggregateAttr::new(fields, slice_ty))),
        ..Global::new("SLICE", slice_ty, 1)
    }
    .add(ctx, m);

    let alias = Global {
        constant: true,
        align: Some(8),
        ..Global::new("ALIAS", p0, 1)
    }
    .add(ctx, m);
    alias.add_initializer_region(ctx);
    let init = alias.get_initializer_block(ctx).unwrap();
    let data = addressof(ctx, init, "DATA", 0);
    put(init, ReturnOp::new(ctx, Some(data)), ctx);

    let ty = fn_ty(ctx, v, vec![p0]);
    let (_, e) = define(ctx, m, "read", ty);
    let out = arg(ctx, e, 0);
    let tid = tid64(ctx, e);
    let slice = addressof(ctx, e, "SLICE", 1);
    let elems = put(e, LoadOp::new(ctx, slice, p0), ctx);
    elems.set_alignment(ctx, 8);
    let elems = elems.get_result(ctx);
    let len_idx = vec![GepIndex::Constant(0), GepIndex::Constant(1)];
    let len_ptr = val(e, GetElementPtrOp::new(ctx, slice, len_idx, slice_ty), ctx);
    let len = val(e, LoadOp::new(ctx, len_ptr, i64t), ctx);
    let idx = val(e, <URemOp as BinArithOp>::new(ctx, tid, len), ctx);
    let elem = val(
        e,
        GetElementPtrOp::new(ctx, elems, vec![GepIndex::Value(idx)], i32t),
        ctx,
    );
    let from_slice = val(e, LoadOp::new(ctx, elem, i32t), ctx);

    let alias = addressof(ctx, e, "ALIAS", 1);
    let aliased = val(e, LoadOp::new(ctx, alias, p0), ctx);
    let elem = val(
        e,
        GetElementPtrOp::new(ctx, aliased, vec![GepIndex::Value(idx)], i32t),
        ctx,
    );
    let from_alias = val(e, LoadOp::new(ctx, elem, i32t), ctx);

    let data_ptr_ty = PointerType::get(ctx, 1);
    let data_addr = SymbolAddrAttr::new(ident("DATA"), data_ptr_ty);
    let data = val(e, ConstantOp::new(ctx, Box::new(data_addr)), ctx);
    let first = val(e, LoadOp::new(ctx, data, i32t), ctx);

    let flags = IntegerOverflowFlagsAttr::default;
    let sum = val(
        e,
        AddOp::new_with_overflow_flag(ctx, from_slice, from_alias, flags()),
        ctx,
    );
    let sum = val(
        e,
        AddOp::new_with_overflow_flag(ctx, sum, first, flags()),
        ctx,
    );
    store_out(ctx, e, out, tid, sum);
    put(e, ReturnOp::new(ctx, None), ctx);
    verified(ctx, m)
}

#[test]
fn globals_initialised_with_addresses_of_globals() {
    let ctx = &mut Context::new();
    let m = pointer_globals_module(ctx);
    let out = emit(ctx, m, "read", 0);
    let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
    assert_eq!(
        decl(ir, "DATA"),
        "@DATA = internal addrspace(1) constant [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4"
    );
    assert_eq!(
        decl(ir, "SLICE"),
        "@SLICE = internal addrspace(1) constant { ptr, i64 } \
         { ptr addrspacecast (ptr addrspace(1) @DATA to ptr), i64 4 }, align 8"
    );
    assert_eq!(
        decl(ir, "ALIAS"),
        "@ALIAS = internal addrspace(1) constant ptr addrspacecast (ptr addrspace(1) @DATA to ptr), align 8"
    );
    // The initializer region was evaluated in a scratch function that is gone again.
    assert!(!ir.contains("oxide.global.init"), "{ir}");

    // The backend leaves out trailing zero bytes; PTX pads the rest of the array with zeros.
    assert_eq!(
        decl(&out.ptx, "DATA"),
        ".global .align 4 .b8 DATA[16] = {10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40};"
    );
    // PTX spells a generic pointer to a global as `generic(name)`.
    assert_eq!(
        decl(&out.ptx, "SLICE"),
        ".global .align 8 .u64 SLICE[2] = {generic(DATA), 4};"
    );
    assert_eq!(
        decl(&out.ptx, "ALIAS"),
        ".global .align 8 .u64 ALIAS = generic(DATA);"
    );
    ptxas_accepts(&out.ptx, "sm_90", "pointers_o0");

    // At O3 the loads from the constant globals fold away; what is left must still assemble.
    let ctx = &mut Context::new();
    let m = pointer_globals_module(ctx);
    let out = emit(ctx, m, "read", 3);
    assert!(out.ptx.contains(".entry read"), "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "pointers_o3");
}

/// (e) A struct constant mixing every scalar initializer kind:
/// `{ i32 7, f32 2.5, [3 x i8] "abc", [2 x i16] [-1, 300] }` in the const space; the kernel
/// reads the float field.
#[test]
fn struct_constant_of_mixed_fields() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "mixed");
    let (i8t, i32t, f32t, p0, v) = (i8(ctx), i32(ctx), f32(ctx), ptr(ctx, 0), void(ctx));
    let i16t: TypeHandle = IntegerType::get(ctx, 16, Signedness::Signless).into();
    let bytes_ty: TypeHandle = ArrayType::get(ctx, i8t, 3).into();
    let shorts_ty: TypeHandle = ArrayType::get(ctx, i16t, 2).into();
    let fields = vec![i32t, f32t, bytes_ty, shorts_ty];
    let st: TypeHandle = StructType::get_unnamed(ctx, (fields, StructLayout::Unpacked)).into();
    let shorts: Vec<Box<dyn TypedAttrInterface>> = vec![
        Box::new(int_attr(ctx, 16, -1)),
        Box::new(int_attr(ctx, 16, 300)),
    ];
    let values: Vec<Box<dyn TypedAttrInterface>> = vec![
        Box::new(int_attr(ctx, 32, 7)),
        Box::new(FPSingleAttr::from(2.5f32)),
        Box::new(BytesAttr::new(b"abc".to_vec())),
        Box::new(AggregateAttr::new(shorts, shorts_ty)),
    ];
    Global {
        constant: true,
        align: Some(4),
        init: Some(Box::new(AggregateAttr::new(values, st))),
        ..Global::new("MIXED", st, 4)
    }
    .add(ctx, m);

    let ty = fn_ty(ctx, v, vec![p0]);
    let (_, e) = define(ctx, m, "mixed", ty);
    let out = arg(ctx, e, 0);
    let mixed = addressof(ctx, e, "MIXED", 4);
    let field = vec![GepIndex::Constant(0), GepIndex::Constant(1)];
    let field = val(e, GetElementPtrOp::new(ctx, mixed, field, st), ctx);
    let x = val(e, LoadOp::new(ctx, field, f32t), ctx);
    put(e, StoreOp::new(ctx, x, out), ctx);
    put(e, ReturnOp::new(ctx, None), ctx);
    let m = verified(ctx, m);

    let out = emit(ctx, m, "mixed", 0);
    assert_eq!(
        decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "MIXED"),
        "@MIXED = internal addrspace(4) constant { i32, float, [3 x i8], [2 x i16] } \
         { i32 7, float 2.500000e+00, [3 x i8] c\"abc\", [2 x i16] [i16 -1, i16 300] }, align 4"
    );
    // Little-endian bytes: 7, 2.5f32 = 0x40200000, "abc", a pad byte, -1, 300 = 0x012c.
    assert_eq!(
        decl(&out.ptx, "MIXED"),
        ".const .align 4 .b8 MIXED[16] = \
         {7, 0, 0, 0, 0, 0, 32, 64, 97, 98, 99, 0, 255, 255, 44, 1};"
    );
    assert!(out.ptx.contains("ld.const"), "{}", out.ptx);
    ptxas_accepts(&out.ptx, "sm_90", "mixed_o0");
}

/// A global without an initializer is a declaration: external, left for the linker.
#[test]
fn global_declaration_stays_external() {
    let ctx = &mut Context::new();
    let m = byte_table_module(ctx, false);
    let i32t = i32(ctx);
    Global::new("elsewhere", i32t, 1).add(ctx, m);
    let m = verified(ctx, m);
    let out = emit(ctx, m, "lookup", 0);
    assert_eq!(
        decl(out.llvm_ir_unoptimized.as_deref().unwrap(), "elsewhere"),
        "@elsewhere = external addrspace(1) global i32"
    );
}

/// `llvm.constant` takes the same attributes as initializers: aggregates and byte strings work
/// inside functions too.
#[test]
fn aggregate_and_byte_constants_in_functions() {
    let ctx = &mut Context::new();
    let m = new_module(ctx, "consts");
    let (i32t, p0, v) = (i32(ctx), ptr(ctx, 0), void(ctx));
    let pair_ty: TypeHandle = ArrayType::get(ctx, i32t, 2).into();
    let pair: Vec<Box<dyn TypedAttrInterface>> = vec![
        Box::new(int_attr(ctx, 32, 5)),
        Box::new(int_attr(ctx, 32, 6)),
    ];
    let ty = fn_ty(ctx, v, vec![p0, p0]);
    let (_, e) = define(ctx, m, "consts", ty);
    let (out_i, out_b) = (arg(ctx, e, 0), arg(ctx, e, 1));
    let agg = AggregateAttr::new(pair, pair_ty);
    let pair = val(e, ConstantOp::new(ctx, Box::new(agg)), ctx);
    let six = val(e, ExtractValueOp::new(ctx, pair, vec![1]).unwrap(), ctx);
    put(e, StoreOp::new(ctx, six, out_i), ctx);
    let xyz = val(
        e,
        ConstantOp::new(ctx, Box::new(BytesAttr::new(b"xyz".to_vec()))),
        ctx,
    );
    let z = val(e, ExtractValueOp::new(ctx, xyz, vec![2]).unwrap(), ctx);
    put(e, StoreOp::new(ctx, z, out_b), ctx);
    put(e, ReturnOp::new(ctx, None), ctx);
    let m = verified(ctx, m);

    let out = emit(ctx, m, "consts", 0);
    // The builder folds extracting from a constant.
    let ir = out.llvm_ir_unoptimized.as_deref().unwrap();
    assert!(ir.contains("store i32 6, ptr %0"), "{ir}");
    assert!(ir.contains("store i8 122, ptr %1"), "{ir}");
    ptxas_accepts(&out.ptx, "sm_90", "consts_o0");
}
