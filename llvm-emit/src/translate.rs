//! Module- and function-level translation: the driver that declares and defines each function
//! and translates its ops in order.
//!
//! The translator's state and the helpers every op translation shares are in
//! [`crate::translator`]; which op becomes what is in [`crate::dispatch`]; the translations
//! themselves live in [`crate::control_flow`], [`crate::arith`], [`crate::memory`],
//! [`crate::atomics`] and [`crate::inline_asm`], as further `impl Translator` blocks.

use std::collections::{HashMap, HashSet};

use inkwell::{
    context::Context as LlContext,
    module::{Linkage, Module},
    values::FunctionValue,
};
use pliron::{
    basic_block::BasicBlock,
    builtin::op_interfaces::{
        AtMostOneRegionInterface, SingleBlockRegionInterface, SymbolOpInterface,
    },
    builtin::ops::ModuleOp,
    common_traits::Named,
    context::{Context, Ptr},
    linked_list::ContainsLinkedList,
    op::Op,
    operation::Operation,
    r#type::Typed,
    value::Value,
};
use pliron_llvm::{
    op_interfaces::{IsDeclaration, LlvmSymbolName},
    ops::{FuncOp, GlobalOp},
};

use crate::{
    EmitOptions,
    errors::EmitError,
    translator::{FunctionState, PTX_KERNEL_CC, Translator},
    types::TypeConverter,
};

/// Translates every `llvm.func` and `llvm.global` of `module_op` into `module`.
pub(crate) fn translate_module<'ll>(
    ctx: &Context,
    module_op: ModuleOp,
    ll: &'ll LlContext,
    module: &Module<'ll>,
    opts: &EmitOptions,
) -> Result<(), EmitError> {
    let kernels = &opts.kernels;
    let mut tr = Translator {
        ctx,
        ll,
        module,
        builder: ll.create_builder(),
        types: TypeConverter::new(ll),
        functions: HashMap::new(),
        globals: HashMap::new(),
        func: FunctionState::default(),
        cluster_scope: opts.arch.has_clusters(),
    };

    let body = module_op.get_body(ctx, 0);
    let (mut funcs, mut globals) = (Vec::new(), Vec::new());
    for opr in body.deref(ctx).iter(ctx) {
        if let Some(func) = Operation::get_op::<FuncOp>(opr, ctx) {
            funcs.push(func);
        } else if let Some(global) = Operation::get_op::<GlobalOp>(opr, ctx) {
            globals.push(global);
        } else {
            return Err(EmitError::unsupported(ctx, opr));
        }
    }

    // Declare everything first so calls, `addressof`s and initializers can refer to
    // functions and globals defined later.
    let mut declared_globals = Vec::new();
    for global in globals {
        let gv = tr.declare_global(global)?;
        declared_globals.push((global, gv));
    }
    let mut found_kernels = HashSet::new();
    let mut declared = Vec::new();
    for func in funcs {
        let is_kernel = kernels.iter().find(|k| {
            let k = k.as_str();
            *k == func.get_symbol_name(ctx).to_string()
                || Some(k) == llvm_name(ctx, func).as_deref()
        });
        if let Some(k) = is_kernel
            && !func.is_declaration(ctx)
        {
            found_kernels.insert(k.clone());
        }
        let fv = tr.declare(func, is_kernel.is_some())?;
        declared.push((func, fv));
    }
    if let Some(missing) = kernels.iter().find(|k| !found_kernels.contains(*k)) {
        return Err(EmitError::UnknownKernel(missing.clone()));
    }

    for (global, gv) in declared_globals {
        tr.define_global(global, gv)?;
    }
    for (func, fv) in declared {
        if !func.is_declaration(ctx) {
            tr.define(func, fv)?;
        }
    }
    Ok(())
}

/// The `llvm_symbol_name` attribute: the LLVM name when it is not a valid pliron identifier.
fn llvm_name(ctx: &Context, func: FuncOp) -> Option<String> {
    func.llvm_symbol_name(ctx)
}

impl<'a, 'll> Translator<'a, 'll> {
    fn declare(&mut self, func: FuncOp, is_kernel: bool) -> Result<FunctionValue<'ll>, EmitError> {
        let ctx = self.ctx;
        let opr = func.get_operation();
        let sym = func.get_symbol_name(ctx);
        let name = llvm_name(ctx, func).unwrap_or_else(|| sym.to_string());
        if self.module.get_function(&name).is_some() || self.module.get_global(&name).is_some() {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "a global or function with this name already exists",
            ));
        }
        let fn_ty = self
            .types
            .function(ctx, func.get_type(ctx))
            .map_err(|e| self.type_error(opr, e))?;
        let fv = self.module.add_function(&name, fn_ty, None);
        if is_kernel {
            fv.set_call_conventions(PTX_KERNEL_CC);
        } else if !func.is_declaration(ctx) {
            // Only kernels are entry points; everything else may be inlined and dropped.
            fv.set_linkage(Linkage::Internal);
        }
        crate::params::apply(ctx, func, self.ll, fv)
            .map_err(|reason| EmitError::invalid(ctx, opr, &reason))?;
        self.functions.insert(sym, fv);
        Ok(fv)
    }

    fn define(&mut self, func: FuncOp, fv: FunctionValue<'ll>) -> Result<(), EmitError> {
        let ctx = self.ctx;
        let opr = func.get_operation();
        let name = func.get_symbol_name(ctx);
        let _span = tracing::debug_span!("function", %name).entered();
        let entry = func
            .get_region(ctx)
            .and_then(|r| r.deref(ctx).get_head())
            .ok_or_else(|| EmitError::invalid(ctx, opr, "function region has no blocks"))?;
        self.func = FunctionState {
            function: Some(fv),
            ..FunctionState::default()
        };

        // Unreachable blocks are left out: nothing can observe them, and they are the only
        // blocks whose operands might not be defined by the time an RPO walk reaches them.
        let order = reverse_post_order(ctx, entry);
        for (idx, &block) in order.iter().enumerate() {
            let name = block
                .deref(ctx)
                .given_name(ctx)
                .map_or_else(|| format!("bb{idx}"), |n| n.to_string());
            let ll_block = self.ll.append_basic_block(fv, &name);
            self.func.blocks.insert(block, ll_block);
        }

        let params = fv.get_params();
        let entry_args: Vec<Value> = entry.deref(ctx).arguments().collect();
        if params.len() != entry_args.len() {
            return Err(EmitError::invalid(
                ctx,
                opr,
                format!(
                    "entry block has {} arguments but the signature has {} parameters",
                    entry_args.len(),
                    params.len()
                ),
            ));
        }
        for (arg, param) in entry_args.into_iter().zip(params) {
            if let Some(name) = arg.given_name(ctx) {
                param.set_name(name.as_ref());
            }
            self.func.values.insert(arg, param);
        }

        // Every block argument becomes a phi up front; branches fill in the incoming values
        // as they are translated, so back edges need no second pass.
        for &block in &order[1..] {
            self.builder.position_at_end(self.func.blocks[&block]);
            let args: Vec<Value> = block.deref(ctx).arguments().collect();
            let mut phis = Vec::with_capacity(args.len());
            for arg in args {
                let ty = self.ty(opr, arg.get_type(ctx))?;
                let name = arg
                    .given_name(ctx)
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                let phi = self
                    .builder
                    .build_phi(ty, &name)
                    .map_err(|e| EmitError::builder(ctx, opr, e))?;
                self.func.values.insert(arg, phi.as_basic_value());
                phis.push(phi);
            }
            self.func.phis.insert(block, phis);
        }

        // In reverse post-order every block comes after its dominators, hence after every
        // definition it uses.
        for &block in &order {
            self.builder.position_at_end(self.func.blocks[&block]);
            let ops: Vec<Ptr<Operation>> = block.deref(ctx).iter(ctx).collect();
            for op in ops {
                self.translate_op(op)?;
            }
        }
        self.func = FunctionState::default();
        Ok(())
    }

    pub(crate) fn translate_op(&mut self, opr: Ptr<Operation>) -> Result<(), EmitError> {
        let ctx = self.ctx;
        tracing::trace!(op = %Operation::get_opid(opr, ctx), "translating");
        let Some(translate) = crate::dispatch::handler(ctx, opr) else {
            return Err(EmitError::unsupported(ctx, opr));
        };
        let value = translate(self, opr)?;
        let op = opr.deref(ctx);
        if let (Some(value), 1) = (value, op.get_num_results()) {
            self.func.values.insert(op.get_result(0), value);
        }
        Ok(())
    }
}

/// Blocks reachable from `entry`, in reverse post-order.
fn reverse_post_order(ctx: &Context, entry: Ptr<BasicBlock>) -> Vec<Ptr<BasicBlock>> {
    // Successors are visited last-first so that the first successor (a `cond_br`'s "then"
    // side) comes first in the result, which keeps the LLVM block order close to the source.
    let succs_of = |b: Ptr<BasicBlock>| {
        let mut succs = b.deref(ctx).succs(ctx);
        succs.reverse();
        succs
    };
    let mut seen = HashSet::from([entry]);
    let mut post = Vec::new();
    // Explicit stack: deep CFGs (long match ladders) must not overflow the native stack.
    let mut stack = vec![(entry, succs_of(entry), 0usize)];
    while let Some((block, succs, next)) = stack.last_mut() {
        if let Some(&succ) = succs.get(*next) {
            *next += 1;
            if seen.insert(succ) {
                stack.push((succ, succs_of(succ), 0));
            }
        } else {
            post.push(*block);
            stack.pop();
        }
    }
    post.reverse();
    post
}
