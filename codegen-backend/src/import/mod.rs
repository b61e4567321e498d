//! rustc MIR to the `mir`/`gpu` dialects.
//!
//! One `DeviceModule` per crate collects the kernels and, from their MIR, every function they
//! call; one `FnCx` imports one monomorphised MIR body. Modules follow the lowering's concerns:
//! `abi` (signatures), `places`, `operands` (and constants), `rvalues`, `casts`, `terminators`,
//! `calls`.

mod abi;
mod atomics;
mod calls;
mod casts;
mod core_intrinsics;
mod diagnostics;
mod globals;
mod math;
mod operands;
mod places;
mod rvalues;
mod terminators;
pub(crate) mod types;

use std::collections::VecDeque;

use pliron::{
    basic_block::BasicBlock,
    builtin::{op_interfaces::SingleBlockRegionInterface, ops::ModuleOp},
    context::{Context, Ptr},
    identifier::Identifier,
    linked_list::ContainsLinkedList,
    op::Op,
    value::Value,
};
use pliron_llvm::{ops::FuncOp, types::FuncType};
use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_index::IndexVec;
use rustc_middle::{
    mir::{self, Body, Local},
    ty::{self, EarlyBinder, Instance, Ty, TyCtxt, TypeFoldable, TypingEnv, layout::TyAndLayout},
};
use rustc_span::Span;

pub(crate) use abi::DeviceAbi;
use places::PlaceRef;

use oxide_contract::KernelOptions;

use crate::error::{CallSite, DeviceError, DeviceErrorKind, DeviceResult};
use crate::mir_util::display_instance;

/// A function of the device module: its symbol, LLVM type and how it passes values.
#[derive(Clone)]
pub(crate) struct FnDecl {
    pub(crate) name: Identifier,
    pub(crate) ty: pliron::r#type::TypedHandle<FuncType>,
    pub(crate) abi: DeviceAbi,
}

pub(crate) struct DeviceModule<'tcx> {
    pub(crate) tcx: TyCtxt<'tcx>,
    pub(crate) ctx: Context,
    pub(crate) module: ModuleOp,
    /// Keyed by the options too: what a kernel states about itself (`#[kernel(...)]`, as
    /// `oxide_contract` parses it) applies to every function it calls, so a function reached
    /// from kernels of different options is compiled once per options.
    functions: FxHashMap<(Instance<'tcx>, KernelOptions), FnDecl>,
    queue: VecDeque<(Instance<'tcx>, KernelOptions, Vec<String>, Vec<CallSite>)>,
    used_names: FxHashSet<String>,
    /// The global of each rustc allocation used as data.
    globals: FxHashMap<rustc_middle::mir::interpret::AllocId, Identifier>,
    /// PTX entry names of the kernels, in source order.
    pub(crate) kernels: Vec<String>,
    /// Every imported MIR body, printed, for `cargo oxide pipeline`: `Some` only when a dump
    /// was asked for, since printing every body costs time on every build.
    pub(crate) mir_text: Option<String>,
    pub(crate) registry: crate::registry::Registry<'tcx>,
    /// Which functions may reach a barrier (for `convergent` and the uniformity check).
    pub(crate) barriers: crate::uniformity::BarrierReach<'tcx>,
    /// Whether libdevice was found, so that math functions can be imported (`math.rs`).
    pub(crate) has_libdevice: bool,
    /// Every call between device functions (for the recursion check, `recursion`).
    pub(crate) calls: Calls<'tcx>,
}

/// The calls of each device function (with its mode): the callee, and the calls from the
/// kernel's body to this one, this one last.
pub(crate) type Calls<'tcx> =
    FxHashMap<(Instance<'tcx>, KernelOptions), Vec<(Instance<'tcx>, Vec<CallSite>)>>;

impl<'tcx> DeviceModule<'tcx> {
    pub(crate) fn new(tcx: TyCtxt<'tcx>, name: &str, dump: bool) -> Self {
        let mut ctx = Context::new();
        let module = ModuleOp::new(&mut ctx, sanitize(name).try_into().expect("sanitized name"));
        DeviceModule {
            tcx,
            ctx,
            module,
            functions: FxHashMap::default(),
            queue: VecDeque::new(),
            used_names: FxHashSet::default(),
            globals: FxHashMap::default(),
            kernels: Vec::new(),
            mir_text: dump.then(String::new),
            registry: crate::registry::Registry::new(tcx),
            barriers: Default::default(),
            has_libdevice: false,
            calls: FxHashMap::default(),
        }
    }

    /// Each device function with its name in the module (and in the PTX), its instance and
    /// mode. Kernels are not among them: their names are their entries.
    pub(crate) fn device_functions(
        &self,
    ) -> impl Iterator<Item = (String, Instance<'tcx>, KernelOptions)> + '_ {
        self.functions
            .iter()
            .map(|(&(instance, mode), decl)| (decl.name.to_string(), instance, mode))
    }

    pub(crate) fn typing_env(&self) -> TypingEnv<'tcx> {
        TypingEnv::fully_monomorphized()
    }

    pub(crate) fn layout_of(&self, ty: Ty<'tcx>, span: Span) -> DeviceResult<TyAndLayout<'tcx>> {
        self.tcx
            .layout_of(self.typing_env().as_query_input(ty))
            .map_err(|e| {
                DeviceError::new(
                    span,
                    DeviceErrorKind::Unsupported {
                        construct: format!("the type `{ty}` ({e})"),
                    },
                )
            })
    }

    fn unique_name(&mut self, wanted: &str) -> Identifier {
        let base = sanitize(wanted);
        let mut name = base.clone();
        let mut n = 1;
        while !self.used_names.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        name.try_into().expect("sanitized name")
    }

    /// Claims the kernels' PTX entries (`oxide_contract::kernel_entry`, `generic_entry`) before
    /// any other function or global is named, so that none of those takes a kernel's name: each
    /// entry that is a Pliron identifier (every ASCII one) is the kernel's own name in the
    /// module. The others (`fa$e7$ade`) get a free identifier and the entry as LLVM name.
    pub(crate) fn reserve_entries<'e>(&mut self, entries: impl IntoIterator<Item = &'e str>) {
        for entry in entries {
            if Identifier::try_from(entry).is_ok() {
                self.used_names.insert(entry.to_string());
            }
        }
    }

    /// Imports a kernel and, transitively, every function it calls. Every unsupported construct
    /// is reported, not only the first: a function goes on importing after a statement it
    /// cannot, and its callees are imported all the same. `entry_name` was reserved
    /// (`reserve_entries`) and is the kernel's name in the PTX.
    pub(crate) fn import_kernel(
        &mut self,
        instance: Instance<'tcx>,
        entry_name: &str,
        mode: KernelOptions,
    ) -> Result<(), Vec<DeviceError>> {
        let (name, llvm_name) = match Identifier::try_from(entry_name) {
            Ok(name) => {
                debug_assert!(
                    self.used_names.contains(entry_name),
                    "{entry_name} reserved"
                );
                (name, None)
            }
            Err(_) => (self.unique_name(entry_name), Some(entry_name)),
        };
        let path = vec![entry_name.to_string()];
        let mut errors = Vec::new();
        let kernel = FnCx::import(
            self,
            instance,
            mode,
            FnKind::Kernel(name.clone()),
            path,
            Vec::new(),
        );
        errors.extend(kernel.err().into_iter().flatten());
        if let Some(llvm_name) = llvm_name {
            self.set_llvm_name(&name, llvm_name);
        }
        self.kernels.push(entry_name.to_string());
        while let Some((callee, callee_mode, call_path, sites)) = self.queue.pop_front() {
            let decl = self.functions[&(callee, callee_mode)].clone();
            let kind = FnKind::Device(decl);
            let imported = FnCx::import(self, callee, callee_mode, kind, call_path, sites);
            errors.extend(imported.err().into_iter().flatten());
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Names the function `name` `llvm_name` in LLVM IR and PTX (a name Pliron does not allow).
    fn set_llvm_name(&self, name: &Identifier, llvm_name: &str) {
        use pliron::builtin::op_interfaces::SymbolOpInterface as _;
        use pliron_llvm::op_interfaces::LlvmSymbolName as _;
        let body = self.module.get_body(&self.ctx, 0);
        for op in body.deref(&self.ctx).iter(&self.ctx) {
            if let Some(func) = pliron::operation::Operation::get_op::<FuncOp>(op, &self.ctx)
                && func.get_symbol_name(&self.ctx) == *name
            {
                func.set_llvm_symbol_name(&self.ctx, llvm_name.to_string());
            }
        }
    }

    /// The declaration of a device function, queuing its body for import on first use.
    pub(crate) fn declare(
        &mut self,
        instance: Instance<'tcx>,
        mode: KernelOptions,
        span: Span,
        call_path: &[String],
        call_sites: Vec<CallSite>,
    ) -> DeviceResult<FnDecl> {
        if let Some(decl) = self.functions.get(&(instance, mode)) {
            return Ok(decl.clone());
        }
        let symbol = self.tcx.symbol_name(instance).name.to_string();
        let name = self.unique_name(&symbol);
        let (abi, ty) = abi::device_fn_signature(self, instance, span)?;
        let decl = FnDecl { name, ty, abi };
        self.functions.insert((instance, mode), decl.clone());
        let mut path = call_path.to_vec();
        path.push(display_instance(self.tcx, instance));
        self.queue.push_back((instance, mode, path, call_sites));
        Ok(decl)
    }
}

/// rustc's symbol names, and kernel entries of non-ASCII names, may hold characters Pliron
/// identifiers do not: a Pliron identifier close to `name` (`unique_name` makes it unique).
fn sanitize(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

pub(crate) enum FnKind {
    Kernel(Identifier),
    Device(FnDecl),
}

/// A MIR local: its stack slot, or nothing for a zero-sized local.
#[derive(Clone, Copy)]
pub(crate) enum LocalPlace<'tcx> {
    Slot(PlaceRef<'tcx>),
    ZeroSized(TyAndLayout<'tcx>),
}

pub(crate) struct FnCx<'tcx, 'm> {
    pub(crate) m: &'m mut DeviceModule<'tcx>,
    pub(crate) instance: Instance<'tcx>,
    pub(crate) mode: KernelOptions,
    pub(crate) mir: &'tcx Body<'tcx>,
    pub(crate) abi: Option<DeviceAbi>,
    blocks: IndexVec<mir::BasicBlock, Option<Ptr<BasicBlock>>>,
    pub(crate) locals: IndexVec<Local, LocalPlace<'tcx>>,
    pub(crate) cur: Ptr<BasicBlock>,
    pub(crate) region: Ptr<pliron::region::Region>,
    pub(crate) span: Span,
    /// The source scope of the statement being imported: which inlined calls it is inside.
    pub(crate) scope: mir::SourceScope,
    pub(crate) call_path: Vec<String>,
    /// The calls that reach this function from the kernel's body (empty for the kernel).
    pub(crate) call_sites: Vec<CallSite>,
    /// What could not be imported so far; importing goes on to find the rest.
    errors: Vec<DeviceError>,
    /// Where a function returning through memory writes its result.
    pub(crate) ret_out: Option<Value>,
}

impl<'tcx, 'm> FnCx<'tcx, 'm> {
    fn import(
        m: &'m mut DeviceModule<'tcx>,
        instance: Instance<'tcx>,
        mode: KernelOptions,
        kind: FnKind,
        call_path: Vec<String>,
        call_sites: Vec<CallSite>,
    ) -> Result<(), Vec<DeviceError>> {
        let tcx = m.tcx;
        let _span = tracing::debug_span!("import_fn", function = %display_instance(tcx, instance))
            .entered();
        let _compiling =
            crate::ice::Compiling::function(&call_path, tcx.def_span(instance.def_id()));
        let mir = tcx.instance_mir(instance.def);
        if let Some(span) = failing_required_const(tcx, instance, mir) {
            let mut e = DeviceError::new(
                span,
                DeviceErrorKind::ConstantFailed {
                    function: display_instance(tcx, instance),
                },
            );
            e.call_path.clone_from(&call_path);
            e.call_sites.clone_from(&call_sites);
            return Err(vec![e]);
        }
        if let Some(mir_text) = &mut m.mir_text {
            let mut text = Vec::new();
            let _ = rustc_middle::ty::print::with_no_trimmed_paths!(
                rustc_middle::mir::pretty::MirWriter::new(tcx).write_mir_fn(mir, &mut text)
            );
            mir_text.push_str(&String::from_utf8_lossy(&text));
            mir_text.push('\n');
        }
        let span = mir.span;
        let is_kernel = matches!(kind, FnKind::Kernel(_));
        let (name, ty, abi, param_attrs) = match kind {
            FnKind::Kernel(name) => {
                let (ty, attrs) =
                    abi::kernel_signature(m, instance, mir, span).map_err(|mut e| {
                        e.call_path.clone_from(&call_path);
                        vec![e]
                    })?;
                (name, ty, None, Some(attrs))
            }
            FnKind::Device(decl) => (decl.name, decl.ty, Some(decl.abi), None),
        };
        let func = FuncOp::new(&mut m.ctx, name, ty);
        let mut func_attrs =
            crate::uniformity::function_attributes(m.tcx, &m.registry, &mut m.barriers, instance);
        if let (true, Some([x, y, z])) = (is_kernel, mode.block) {
            // The exact block shape, for ptxas (`.reqntid x, y, z`).
            func_attrs.set(
                "nvvm.reqntid",
                pliron_llvm::llvm_attrs::LlvmAttrValue::Str(format!("{x},{y},{z}")),
            );
        }
        if is_kernel {
            // The most threads a block may have (`.maxntid n, 1, 1`) and the occupancy hint
            // (`.minnctapersm n`), for ptxas's register allocation.
            if let Some(n) = mode.max_threads {
                func_attrs.set(
                    "nvvm.maxntid",
                    pliron_llvm::llvm_attrs::LlvmAttrValue::Str(format!("{n},1,1")),
                );
            }
            if let Some(n) = mode.min_blocks_per_sm {
                func_attrs.set(
                    "nvvm.minctasm",
                    pliron_llvm::llvm_attrs::LlvmAttrValue::Str(n.to_string()),
                );
            }
        }
        if !func_attrs.is_empty() {
            func.set_attr_llvm_func_attrs(&m.ctx, func_attrs);
        }
        if let Some(attrs) = param_attrs {
            oxide_dialects::param_attrs::set_param_attrs(&m.ctx, func, attrs);
        }
        m.module
            .append_operation(&mut m.ctx, func.get_operation(), 0);
        let entry = func.get_or_create_entry_block(&mut m.ctx);
        let region = entry
            .deref(&m.ctx)
            .get_parent_region()
            .expect("entry block in a region");

        let mut cx = FnCx {
            m,
            instance,
            mode,
            mir,
            abi,
            blocks: IndexVec::new(),
            locals: IndexVec::new(),
            cur: entry,
            region,
            span,
            scope: mir::OUTERMOST_SOURCE_SCOPE,
            call_path,
            call_sites,
            errors: Vec::new(),
            ret_out: None,
        };
        let result = cx.import_body(entry);
        let mut errors = std::mem::take(&mut cx.errors);
        if let Err(e) = result {
            errors.push(cx.locate(e));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    fn import_body(&mut self, entry: Ptr<BasicBlock>) -> DeviceResult<()> {
        let panic_only = crate::mir_util::panic_only_blocks(
            self.m.tcx,
            &self.m.registry,
            self.instance,
            self.mir,
        );
        let host_only = self.check_host_only_calls(&panic_only);
        for (bb, e) in &host_only {
            self.scope = self.mir.basic_blocks[*bb].terminator().source_info.scope;
            let e = self.locate(e.clone());
            self.errors.push(e);
        }
        for (local, decl) in self.mir.local_decls.iter_enumerated() {
            let ty = self.monomorphize(decl.ty);
            let layout = self.m.layout_of(ty, decl.source_info.span)?;
            let place = if layout.is_zst() {
                LocalPlace::ZeroSized(layout)
            } else {
                LocalPlace::Slot(self.new_slot(layout))
            };
            let pushed = self.locals.push(place);
            debug_assert_eq!(pushed, local);
        }
        for (bb, data) in self.mir.basic_blocks.iter_enumerated() {
            // Unwinding does not exist on the GPU: a panic traps, so cleanup blocks never run.
            let block = (!data.is_cleanup).then(|| {
                let name: Identifier = format!("bb{}", bb.as_usize()).try_into().expect("name");
                let block = BasicBlock::new(&mut self.m.ctx, Some(name), vec![]);
                block.insert_at_back(self.region, &self.m.ctx);
                block
            });
            self.blocks.push(block);
        }
        match &self.abi {
            None => abi::store_kernel_params(self, entry)?,
            Some(_) => abi::store_device_params(self, entry)?,
        }
        let start = self.block(mir::START_BLOCK);
        self.emit(|ctx| pliron_llvm::ops::BrOp::new(ctx, start, vec![]));

        for (bb, data) in self.mir.basic_blocks.iter_enumerated() {
            let Some(block) = self.blocks[bb] else {
                continue;
            };
            self.cur = block;
            if let Some(panic) = &panic_only[bb] {
                self.trap(&format!("panic in `{panic}`"))?;
                continue;
            }
            for stmt in &data.statements {
                self.span = stmt.source_info.span;
                self.scope = stmt.source_info.scope;
                if let Err(e) = self.statement(stmt) {
                    self.record(e, bb, &host_only);
                }
            }
            let term = data.terminator();
            self.span = term.source_info.span;
            self.scope = term.source_info.scope;
            // A call already reported as host-only is not imported (its callee would only
            // repeat the error from inside the standard library).
            let reported = host_only.iter().any(|(b, _)| *b == bb);
            if reported {
                self.trap("a call that cannot run on the GPU")?;
            } else if let Err(e) = self.terminator(term) {
                self.record(e, bb, &host_only);
            }
        }
        Ok(())
    }

    pub(crate) fn block(&self, bb: mir::BasicBlock) -> Ptr<BasicBlock> {
        self.blocks[bb].expect("a non-cleanup block never jumps to a cleanup block")
    }

    pub(crate) fn new_block(&mut self, name: &str) -> Ptr<BasicBlock> {
        let id: Identifier = name.to_string().try_into().expect("block name");
        let block = BasicBlock::new(&mut self.m.ctx, Some(id), vec![]);
        block.insert_at_back(self.region, &self.m.ctx);
        block
    }

    pub(crate) fn monomorphize<T: TypeFoldable<TyCtxt<'tcx>> + Copy>(&self, value: T) -> T {
        self.instance.instantiate_mir_and_normalize_erasing_regions(
            self.m.tcx,
            self.m.typing_env(),
            EarlyBinder::bind(value),
        )
    }

    pub(crate) fn layout_of(&self, ty: Ty<'tcx>) -> DeviceResult<TyAndLayout<'tcx>> {
        self.m.layout_of(ty, self.span)
    }

    pub(crate) fn ctx(&mut self) -> &mut Context {
        &mut self.m.ctx
    }

    /// Appends `op` to the current block.
    pub(crate) fn push<T: Op>(&mut self, op: T) -> T {
        op.get_operation().insert_at_back(self.cur, &self.m.ctx);
        op
    }

    /// Builds an op with the context and appends it to the current block.
    pub(crate) fn emit<T: Op>(&mut self, build: impl FnOnce(&mut Context) -> T) -> T {
        let op = build(&mut self.m.ctx);
        self.push(op)
    }

    /// Builds a one-result op, appends it and returns its result.
    pub(crate) fn emit_value<T: Op>(&mut self, build: impl FnOnce(&mut Context) -> T) -> Value {
        let op = build(&mut self.m.ctx);
        self.push_value(op)
    }

    /// Appends a one-result op and returns its result.
    pub(crate) fn push_value<T: Op>(&mut self, op: T) -> Value {
        let op = self.push(op);
        op.get_operation().deref(&self.m.ctx).get_result(0)
    }

    /// A stack slot for a value of `layout`, placed in the entry block so that LLVM sees a static
    /// alloca.
    pub(crate) fn new_slot(&mut self, layout: TyAndLayout<'tcx>) -> PlaceRef<'tcx> {
        let content = match types::as_scalar(layout) {
            Some(s) => types::scalar_memory(&mut self.m.ctx, s),
            None => None,
        };
        let content = content.unwrap_or_else(|| types::bytes(&mut self.m.ctx, layout.size.bytes()));
        let align = layout.align.abi.bytes() as u32;
        let slot = oxide_dialects::mir::SlotOp::new(&mut self.m.ctx, content, align);
        let entry = self
            .region
            .deref(&self.m.ctx)
            .get_head()
            .expect("entry block");
        match first_non_slot(&self.m.ctx, entry) {
            Some(op) => slot.get_operation().insert_before(&self.m.ctx, op),
            None => slot.get_operation().insert_at_back(entry, &self.m.ctx),
        }
        let ptr = slot.get_operation().deref(&self.m.ctx).get_result(0);
        PlaceRef::new_sized(ptr, layout)
    }

    fn statement(&mut self, stmt: &mir::Statement<'tcx>) -> DeviceResult<()> {
        use mir::StatementKind as S;
        match &stmt.kind {
            S::Assign(assign) => {
                let (place, rvalue) = &**assign;
                let dest = self.place(*place)?;
                self.rvalue(dest, rvalue)
            }
            S::SetDiscriminant {
                place,
                variant_index,
            } => {
                let dest = self.place(**place)?;
                self.set_discriminant(dest, *variant_index)
            }
            S::Intrinsic(intrinsic) => match &**intrinsic {
                // What unsafe code promised (`hint::assert_unchecked`, the standard library's
                // own facts), told to LLVM as rustc's LLVM backend tells it.
                mir::NonDivergingIntrinsic::Assume(condition) => {
                    let condition = self.operand(condition)?.immediate(self.span)?;
                    let void = pliron_llvm::types::VoidType::get(&self.m.ctx).into();
                    self.intrinsic("llvm.assume", void, vec![condition]);
                    Ok(())
                }
                mir::NonDivergingIntrinsic::CopyNonOverlapping(copy) => {
                    self.copy_nonoverlapping(copy)
                }
            },
            S::StorageLive(_)
            | S::StorageDead(_)
            | S::FakeRead(_)
            | S::PlaceMention(_)
            | S::AscribeUserType(..)
            | S::Coverage(_)
            | S::ConstEvalCounter
            | S::Nop
            | S::BackwardIncompatibleDropHint { .. } => Ok(()),
        }
    }
}

/// The first op of `block` that is not a `mir.slot`: slots stay grouped at the top.
fn first_non_slot(
    ctx: &Context,
    block: Ptr<BasicBlock>,
) -> Option<Ptr<pliron::operation::Operation>> {
    block.deref(ctx).iter(ctx).find(|op| {
        pliron::operation::Operation::get_op::<oxide_dialects::mir::SlotOp>(*op, ctx).is_none()
    })
}

pub(crate) fn is_unit<'tcx>(ty: Ty<'tcx>) -> bool {
    matches!(ty.kind(), ty::Tuple(fields) if fields.is_empty())
}

/// The Pliron traits whose methods every lowering module calls.
pub(crate) mod prelude {
    pub(crate) use pliron::builtin::op_interfaces::OneResultInterface as _;
    pub(crate) use pliron::op::Op as _;
    pub(crate) use pliron_llvm::op_interfaces::{
        BinArithOp as _, CastOpInterface as _, CastOpWithNNegInterface as _, FastMathFlags as _,
        IntBinArithOpWithOverflowFlag as _,
    };
}

/// Evaluates the constants `mir` requires for `instance` (its `const { assert!(..) }` blocks,
/// the associated constants it uses), as rustc's own monomorphization does for every function
/// it compiles: a failing one is then the same compile-time error for a kernel as for host code
/// (device-std's layout and shape checks are such assertions: `MmaTiles`' warp regions, a
/// pipeline's stage size). rustc reports the failure where the constant is written; this returns
/// that constant's span, so that the caller can also point at the user's call.
fn failing_required_const<'tcx>(
    tcx: rustc_middle::ty::TyCtxt<'tcx>,
    instance: rustc_middle::ty::Instance<'tcx>,
    mir: &rustc_middle::mir::Body<'tcx>,
) -> Option<rustc_span::Span> {
    let typing_env = rustc_middle::ty::TypingEnv::fully_monomorphized();
    mir.required_consts().iter().find_map(|required| {
        let constant = instance.instantiate_mir_and_normalize_erasing_regions(
            tcx,
            typing_env,
            rustc_middle::ty::EarlyBinder::bind(required.const_),
        );
        constant
            .eval(tcx, typing_env, required.span)
            .is_err()
            .then_some(required.span)
    })
}
