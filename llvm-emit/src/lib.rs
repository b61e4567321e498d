//! `oxide-llvm-emit`: LLVM-dialect pliron module → LLVM IR (in process, via inkwell) →
//! optimised LLVM IR → PTX.
//!
//! LLVM here is rustc's own libLLVM (see `build.rs`), so inside the codegen backend there is
//! exactly one LLVM in the process.
//!
//! Block arguments become phis: every non-entry block gets one phi per argument before any op
//! is translated, branch ops add the incoming values, and blocks are translated in reverse
//! post-order so that every operand is defined before its use. Unreachable blocks are dropped.
//!
//! Which ops are translated, and into what, is one table (`dispatch.rs`, one entry per op
//! type); any other op, of this dialect or another, is an internal error
//! ([`EmitError::UnsupportedOp`]). Atomics (`llvm.atomicrmw`, `llvm.cmpxchg`, `llvm.fence`,
//! `llvm.atomic_load`, `llvm.atomic_store`) take pliron-llvm's `SyncScopeAttr`: `System`, or
//! `NamedScope` `"device"`, `"cluster"` or `"block"` (PTX `.sys`, `.gpu`, `.cluster`, `.cta`);
//! `llvm.inline_asm` becomes an LLVM inline-assembly call whose text lands in the PTX.
//!
//! # Module-level data: `llvm.global` and `llvm.addressof`
//!
//! Statics, `const` tables, string literals and promoted constants are `llvm.global` ops
//! ([`GlobalOp`](pliron_llvm::ops::GlobalOp)) in the module body, next to the `llvm.func`s,
//! in any order. What the translation reads from one:
//!
//! | producer call | LLVM / PTX |
//! |---|---|
//! | `GlobalOp::new(ctx, name, ty)` | `@name` of type `ty` |
//! | `g.set_address_space(ctx, n)` | `addrspace(n)`: 1 `.global`, 4 `.const` (64 KiB at most), 3 `.shared`; 0 (the default) is generic, which NVPTX places in `.global` |
//! | `g.set_constant(ctx, true)` | `constant` (read-only) |
//! | `g.set_alignment(ctx, a)` ([`AlignableOpInterface`](pliron_llvm::op_interfaces::AlignableOpInterface)) | `align a` / `.align a` |
//! | `g.set_attr_llvm_global_linkage(ctx, LinkageAttr::…)` | that linkage; without it a definition is `internal` (LLVM may fold and drop it) and a declaration `external`. `ExternalLinkage` on a definition gives a `.visible` symbol the host can look up |
//! | `g.set_llvm_symbol_name(ctx, s)` ([`LlvmSymbolName`](pliron_llvm::op_interfaces::LlvmSymbolName)) | LLVM name `s`, for names that are not pliron identifiers; `llvm.addressof` still uses the pliron name |
//! | `g.set_initializer_value(ctx, Box::new(attr))` | the initializer (below); no initializer and no region makes a declaration, except in the shared space (below) |
//! | `g.add_initializer_region(ctx)`, ops in `g.get_initializer_block(ctx)`, ending in `ReturnOp::new(ctx, Some(v))` | the initializer is `v`, which must fold to a constant (`llvm.addressof`, `llvm.constant`, `llvm.zero`/`undef`/`poison`, `llvm.insert_value`, casts, GEPs) |
//!
//! Initializer attributes, which must have exactly the global's type (nested as deep as
//! needed, the same ones `llvm.constant` takes):
//! - [`BytesAttr::new(bytes)`](pliron_llvm::attributes::BytesAttr): `[N x i8]` with exactly
//!   those bytes — strings, byte tables;
//! - `IntegerAttr::new(int_ty, apint)`, and the float attributes (`FPSingleAttr::from(2.5f32)`,
//!   `FPDoubleAttr`, `FPHalfAttr`, `FPBFloatAttr`), bit-exact;
//! - [`ZeroAttr(ty)`](pliron_llvm::attributes::ZeroAttr): `zeroinitializer`;
//!   [`UndefAttr(ty)`](pliron_llvm::attributes::UndefAttr); `PoisonAttr(ty)`;
//! - [`AggregateAttr::new(elements, ty)`](pliron_llvm::attributes::AggregateAttr): an array,
//!   struct or vector, one `Box<dyn TypedAttrInterface>` per element (an `[N x i8]` may be
//!   spelled this way too); `SplatAttr` for vectors;
//! - [`SymbolAddrAttr::new(name, ptr_ty)`](pliron_llvm::attributes::SymbolAddrAttr): the
//!   address of another global or a function — pointer-valued statics such as
//!   `static S: &[u32] = &[1, 2]` are an `AggregateAttr` of `{ SymbolAddrAttr, IntegerAttr }`
//!   over a second global holding the data.
//!
//! Shared memory (address space 3) cannot be initialised, so, as with CUDA's `__shared__`, a
//! shared global without an initializer is a definition with an `undef` one (`internal`
//! unless a linkage is given), and any initializer but `undef`/`poison` is an error. With
//! `ExternalLinkage` and no initializer it stays a declaration: `extern __shared__`, dynamic
//! shared memory (`.extern .shared .align 16 .b8 dyn[];` for a `[0 x i32]` aligned to 16).
//! Without an alignment a shared global gets its type's ABI alignment.
//!
//! `AddressOfOp::new(ctx, name, n)` (in a function or an initializer region) and a
//! `SymbolAddrAttr` of type `ptr addrspace(n)` give the symbol's address in address space `n`:
//! when the symbol lives in another space — a generic `ptr` to a `.const` table, the usual
//! case for Rust references — the translation inserts the `addrspacecast`. (pliron-llvm's own
//! LLVM export does not cast; there the types must match.)
//!
//! ```
//! use pliron::{
//!     builtin::{
//!         attr_interfaces::TypedAttrInterface,
//!         attributes::IntegerAttr,
//!         op_interfaces::{OneResultInterface, SingleBlockRegionInterface},
//!         ops::ModuleOp,
//!         types::{IntegerType, Signedness},
//!     },
//!     context::Context,
//!     identifier::Identifier,
//!     op::Op,
//!     utils::apint::APInt,
//! };
//! use pliron_llvm::{
//!     attributes::{AggregateAttr, BytesAttr, SymbolAddrAttr},
//!     op_interfaces::AlignableOpInterface,
//!     ops::{AddressOfOp, FuncOp, GlobalOp, LoadOp, ReturnOp, StoreOp},
//!     types::{ArrayType, FuncType, PointerType, StructLayout, StructType, VoidType},
//! };
//!
//! let ctx = &mut Context::new();
//! let module = ModuleOp::new(ctx, Identifier::try_from("m").unwrap());
//! let i8_ty = IntegerType::get(ctx, 8, Signedness::Signless);
//! let i64_ty = IntegerType::get(ctx, 64, Signedness::Signless);
//! let generic_ptr = PointerType::get(ctx, 0);
//!
//! // A string literal / const byte table, in the const space.
//! let bytes = b"hello\0".to_vec();
//! let table_ty = ArrayType::get(ctx, i8_ty.into(), bytes.len() as u64).into();
//! let table = GlobalOp::new(ctx, Identifier::try_from("HELLO").unwrap(), table_ty);
//! table.set_address_space(ctx, 4);
//! table.set_constant(ctx, true);
//! table.set_initializer_value(ctx, Box::new(BytesAttr::new(bytes)));
//! module.append_operation(ctx, table.get_operation(), 0);
//!
//! // `static S: &[u8] = b"hello\0";`: a { ptr, i64 } pointing at HELLO.
//! let slice_ty = StructType::get_unnamed(
//!     ctx,
//!     (vec![generic_ptr.into(), i64_ty.into()], StructLayout::Unpacked),
//! );
//! let len = IntegerAttr::new(i64_ty, APInt::from_u64(6, 64.try_into().unwrap()));
//! let fields: Vec<Box<dyn TypedAttrInterface>> = vec![
//!     Box::new(SymbolAddrAttr::new(Identifier::try_from("HELLO").unwrap(), generic_ptr)),
//!     Box::new(len),
//! ];
//! let s = GlobalOp::new(ctx, Identifier::try_from("S").unwrap(), slice_ty.into());
//! s.set_address_space(ctx, 1);
//! s.set_constant(ctx, true);
//! s.set_alignment(ctx, 8);
//! s.set_initializer_value(ctx, Box::new(AggregateAttr::new(fields, slice_ty.into())));
//! module.append_operation(ctx, s.get_operation(), 0);
//!
//! // kernel first(out: ptr) { *out = HELLO[0] }, through a generic pointer.
//! let void = VoidType::get(ctx).into();
//! let kernel_ty = FuncType::get(ctx, void, vec![generic_ptr.into()], false);
//! let kernel = FuncOp::new(ctx, Identifier::try_from("first").unwrap(), kernel_ty);
//! module.append_operation(ctx, kernel.get_operation(), 0);
//! let entry = kernel.get_or_create_entry_block(ctx);
//! let out = entry.deref(ctx).get_argument(0);
//! let hello = AddressOfOp::new(ctx, Identifier::try_from("HELLO").unwrap(), 0);
//! hello.get_operation().insert_at_back(entry, ctx);
//! let hello = hello.get_result(ctx);
//! let byte = LoadOp::new(ctx, hello, i8_ty.into());
//! byte.get_operation().insert_at_back(entry, ctx);
//! let byte = byte.get_result(ctx);
//! StoreOp::new(ctx, byte, out).get_operation().insert_at_back(entry, ctx);
//! ReturnOp::new(ctx, None).get_operation().insert_at_back(entry, ctx);
//!
//! let opts = oxide_llvm_emit::EmitOptions {
//!     kernels: vec!["first".into()],
//!     opt_level: 0,
//!     ..Default::default()
//! };
//! let out = oxide_llvm_emit::emit_ptx(ctx, module, &opts).unwrap();
//! assert!(out.ptx.contains(".const .align 1 .b8 HELLO[6] = {104, 101, 108, 108, 111};"));
//! assert!(out.ptx.contains(".global .align 8 .u64 S[2] = {generic(HELLO), 6};"));
//! ```

mod arith;
mod atomics;
mod barrier_merge;
mod branch_threading;
mod cfg;
mod constants;
mod control_flow;
mod disjoint_or;
mod dispatch;
mod errors;
mod globals;
mod inline_asm;
mod invariant_compares;
mod kernel_body;
mod libdevice;
mod local_array_loops;
mod loop_hints;
mod memory;
mod params;
mod target;
mod translate;
mod translator;
mod types;
mod workarounds;

use inkwell::context::Context as LlContext;
use oxide_contract::GpuArch;
use pliron::{
    builtin::{op_interfaces::SymbolOpInterface, ops::ModuleOp},
    context::Context,
};

pub use errors::EmitError;
pub use libdevice::LIBDEVICE_PREFIX;

/// What to generate.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The PTX target architecture, validated where it entered (`--arch`, `--cfg oxide_arch`).
    pub arch: GpuArch,
    /// LLVM optimisation level, 0..=3 (the `default<On>` pipeline and the codegen level).
    pub opt_level: u8,
    /// Names of the `llvm.func` ops that are kernel entries (pliron symbol name or the
    /// `llvm_symbol_name` attribute). They become `.entry`s; all other definitions become
    /// internal so LLVM can inline and drop them.
    pub kernels: Vec<String>,
    /// NVIDIA's libdevice bitcode (`libdevice.10.bc`), linked when a kernel calls one of its
    /// functions (`__nv_sinf`...); without it such a module is an error.
    pub libdevice: Option<std::path::PathBuf>,
    /// Render the LLVM IR (before and after optimisation) as text into [`EmitOutput`].
    /// Printing a large module costs time and memory, so only dumps ask for it.
    pub dump_ir: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        Self {
            arch: oxide_contract::DEFAULT_ARCH,
            opt_level: 3,
            kernels: Vec::new(),
            libdevice: None,
            dump_ir: false,
        }
    }
}

/// The products of [`emit_ptx`].
#[derive(Clone, Debug)]
pub struct EmitOutput {
    /// The module after the optimisation pipeline; only with [`EmitOptions::dump_ir`].
    pub llvm_ir: Option<String>,
    /// The module as translated (and verified), before optimisation; only with
    /// [`EmitOptions::dump_ir`].
    pub llvm_ir_unoptimized: Option<String>,
    /// PTX assembly.
    pub ptx: String,
}

/// Translates `module` (LLVM dialect) to LLVM IR, verifies and optimises it, and emits PTX.
pub fn emit_ptx(
    ctx: &Context,
    module: ModuleOp,
    opts: &EmitOptions,
) -> Result<EmitOutput, EmitError> {
    let _span =
        tracing::info_span!("llvm_emit", arch = %opts.arch, opt_level = opts.opt_level).entered();
    if opts.opt_level > 3 {
        return Err(EmitError::InvalidOptions(format!(
            "opt_level {} is not in 0..=3",
            opts.opt_level
        )));
    }
    let machine = target::target_machine(opts.arch, opts.opt_level)?;

    let ll = LlContext::create();
    let ll_module = ll.create_module(module.get_symbol_name(ctx).as_ref());
    target::configure_module(&ll_module, &machine);
    translate::translate_module(ctx, module, &ll, &ll_module, opts)?;

    let ir_text = |m: &inkwell::module::Module<'_>| m.print_to_string().to_string();
    let llvm_ir_unoptimized = opts.dump_ir.then(|| ir_text(&ll_module));
    ll_module.verify().map_err(|e| EmitError::Verify {
        message: e.to_string(),
        llvm_ir: llvm_ir_unoptimized
            .clone()
            .unwrap_or_else(|| ir_text(&ll_module)),
    })?;
    tracing::debug!("translated and verified");

    if libdevice::needed(&ll_module) {
        libdevice::link(&ll_module, opts.libdevice.as_deref())?;
        tracing::debug!("linked libdevice");
    }

    let optimizing = opts.opt_level >= 2;
    let hinted = loop_hints::mark_unroll_loops(&ll_module, optimizing);
    target::optimize(&ll_module, &machine, opts.opt_level)?;
    if optimizing {
        // A kernel body O3 left a call inlined, the threading LLVM does not do for a GPU, then
        // what they and the unroll hints make possible: the loops with a trip count now, and
        // the marked ones O3 could not count, unrolled, and what unrolling leaves cleaned up.
        let bodies = kernel_body::mark_bodies_left_called(&ll_module);
        if bodies > 0 {
            target::run_passes(&ll_module, &machine, "always-inline")?;
        }
        let threaded = branch_threading::thread_known_branches(&ll_module);
        let folded = disjoint_or::fold_disjoint_or_differences(&ll_module);
        let changed = threaded + hinted + folded + bodies > 0;
        if changed {
            target::run_passes(&ll_module, &machine, target::LOOPS_IN_FORM)?;
        }
        let walks = local_array_loops::mark_local_array_loops(&ll_module);
        tracing::debug!(
            bodies,
            threaded,
            hinted,
            folded,
            walks,
            "inlined bodies, threaded branches, marked loops, folded, local-array loops"
        );
        if changed || walks > 0 {
            target::run_passes(&ll_module, &machine, target::UNROLL_AND_CLEAN)?;
        }
        // After LLVM's IR passes, which would undo them.
        let merged = barrier_merge::merge_adjacent_barriers(&ll_module);
        let frozen = invariant_compares::keep_invariant_compares_out_of_loops(&ll_module);
        tracing::debug!(
            merged,
            frozen,
            "merged barriers, kept compares out of loops"
        );
    }
    let llvm_ir = opts.dump_ir.then(|| ir_text(&ll_module));
    workarounds::expand_wide_shifts(&ll_module);
    let ptx = target::emit_ptx(&ll_module, &machine)?;
    let ptx = workarounds::rewrite_float_selects(workarounds::rewrite_conversions(
        workarounds::rewrite_ptx(ptx),
    ));
    tracing::debug!(bytes = ptx.len(), "emitted PTX");

    Ok(EmitOutput {
        llvm_ir,
        llvm_ir_unoptimized,
        ptx,
    })
}
