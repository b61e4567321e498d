//! Terminators (with block arguments turned into phi incomings), calls and intrinsic calls.

use inkwell::{
    basic_block::BasicBlock as LlBlock,
    intrinsics::Intrinsic,
    types::{BasicMetadataTypeEnum, BasicType, FunctionType},
    values::{
        BasicMetadataValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue,
        InstructionValue, PhiValue, ValueKind,
    },
};
use pliron::{
    basic_block::BasicBlock,
    builtin::op_interfaces::{BranchOpInterface, CallOpCallable, CallOpInterface},
    context::Ptr,
    op::{Op, op_cast},
    operation::Operation,
    r#type::TypedHandle,
    value::Value,
};
use pliron_llvm::{
    attributes::FastmathFlagsAttr,
    ops::{CallIntrinsicOp, CallOp, SwitchOp},
    types::FuncType,
};

use crate::{
    arith::apply_fast_math,
    constants::int_constant,
    errors::EmitError,
    translator::{OpValue, Translator},
};

/// Intrinsics that LLVM renamed: LLVM auto-upgrades them only when parsing IR, and we build IR
/// in memory, so the producer's old spelling is mapped here. Each entry is (old name, new
/// name, i32 constants appended to the arguments).
const RENAMED_INTRINSICS: &[(&str, &str, &[u64])] = &[(
    "llvm.nvvm.barrier0",
    "llvm.nvvm.barrier.cta.sync.aligned.all",
    &[0],
)];

impl<'ll> Translator<'_, 'll> {
    pub(crate) fn ret(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let value = match opr.deref(self.ctx).get_num_operands() {
            0 => None,
            _ => Some(self.operand(opr, 0)?),
        };
        let value = value.as_ref().map(|v| v as &dyn BasicValue<'ll>);
        self.built(opr, self.builder.build_return(value))?;
        Ok(None)
    }

    pub(crate) fn unreachable(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        self.built(opr, self.builder.build_unreachable())?;
        Ok(None)
    }

    pub(crate) fn br(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let targets = self.branch_targets(opr)?;
        let [dest] = targets[..] else {
            return Err(EmitError::invalid(self.ctx, opr, "expected one successor"));
        };
        self.built(opr, self.builder.build_unconditional_branch(dest))?;
        Ok(None)
    }

    pub(crate) fn cond_br(&mut self, opr: Ptr<Operation>) -> OpValue<'ll> {
        let cond = self.operand(opr, 0)?;
        let BasicValueEnum::IntValue(cond) = cond else {
            return Err(EmitError::invalid(self.ctx, opr, "condition is not an i1"));
        };
        let targets = self.branch_targets(opr)?;
        let [then_dest, else_dest] = targets[..] else {
            return Err(EmitError::invalid(self.ctx, opr, "expected two successors"));
        };
        let br = self
            .builder
            .build_conditional_branch(cond, then_dest, else_dest);
        self.built(opr, br)?;
        Ok(None)
    }

    pub(crate) fn switch(&mut self, switch: SwitchOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, switch.get_operation());
        if switch.get_attr_llvm_switch_case_values(ctx).is_none() {
            return Err(EmitError::invalid(ctx, opr, "missing case values"));
        }
        let BasicValueEnum::IntValue(cond) = self.operand(opr, 0)? else {
            return Err(EmitError::invalid(ctx, opr, "condition is not an integer"));
        };
        let targets = self.branch_targets(opr)?;
        let case_values = switch.cases(ctx).into_iter().map(|c| c.value);
        // Successor 0 is the default destination; the cases follow in order.
        let cases: Vec<_> = case_values
            .zip(targets.iter().skip(1))
            .map(|(value, &dest)| (int_constant(cond.get_type(), &value.value()), dest))
            .collect();
        let Some(&default) = targets.first() else {
            return Err(EmitError::invalid(ctx, opr, "no default destination"));
        };
        self.built(opr, self.builder.build_switch(cond, default, &cases))?;
        Ok(None)
    }

    /// The LLVM blocks a branch op jumps to, one per successor, after adding the successor
    /// operands to the destinations' phis.
    fn branch_targets(&mut self, opr: Ptr<Operation>) -> Result<Vec<LlBlock<'ll>>, EmitError> {
        let ctx = self.ctx;
        let edges: Vec<(Ptr<BasicBlock>, Vec<Value>)> = {
            let op = Operation::get_op_dyn(opr, ctx);
            let Some(branch) = op_cast::<dyn BranchOpInterface>(op.as_ref()) else {
                return Err(EmitError::invalid(ctx, opr, "not a branch op"));
            };
            let succs: Vec<_> = opr.deref(ctx).successors().collect();
            succs
                .into_iter()
                .enumerate()
                .map(|(i, dest)| (dest, branch.successor_operands(ctx, i)))
                .collect()
        };
        edges
            .into_iter()
            .map(|(dest, args)| self.edge(opr, dest, &args))
            .collect()
    }

    /// Feeds `args` into `dest`'s phis for the edge from the current block, and returns the
    /// block to jump to.
    ///
    /// An LLVM phi holds one value per predecessor *block*. When one terminator reaches the
    /// same destination twice (a `cond_br` with both arms to one block, a `switch` with shared
    /// targets) with different arguments, each further set of arguments goes through a detour
    /// block of its own.
    fn edge(
        &mut self,
        opr: Ptr<Operation>,
        dest: Ptr<BasicBlock>,
        args: &[Value],
    ) -> Result<LlBlock<'ll>, EmitError> {
        let ctx = self.ctx;
        let target = *self.func.blocks.get(&dest).ok_or_else(|| {
            EmitError::invalid(ctx, opr, "branches to a block outside the function")
        })?;
        let Some(phis) = self.func.phis.get(&dest).cloned() else {
            return Err(EmitError::invalid(ctx, opr, "branches to the entry block"));
        };
        if phis.len() != args.len() {
            return Err(EmitError::invalid(
                ctx,
                opr,
                format!(
                    "passes {} operands to a block with {} arguments",
                    args.len(),
                    phis.len()
                ),
            ));
        }
        if args.is_empty() {
            return Ok(target);
        }
        let values = args
            .iter()
            .map(|&v| self.value(opr, v))
            .collect::<Result<Vec<_>, _>>()?;
        let here = self
            .builder
            .get_insert_block()
            .expect("the builder is positioned in the block being translated");

        let known = self.func.edges.get(&(here, dest));
        let first = known.is_none_or(Vec::is_empty);
        let same = known.and_then(|k| k.iter().find(|(v, _)| *v == values).map(|(_, b)| *b));
        if let Some(jump_to) = same {
            // Same arguments as an earlier edge: a direct edge needs one phi entry per edge,
            // while a detour block already feeds the phis.
            if jump_to == target {
                add_incoming(&phis, &values, here);
            }
            return Ok(jump_to);
        }
        let jump_to = if first {
            add_incoming(&phis, &values, here);
            target
        } else {
            let function = self.func.function.expect("inside a function");
            let detour = self.ll.append_basic_block(function, "edge");
            self.builder.position_at_end(detour);
            let br = self.builder.build_unconditional_branch(target);
            self.builder.position_at_end(here);
            self.built(opr, br)?;
            add_incoming(&phis, &values, detour);
            detour
        };
        self.func
            .edges
            .entry((here, dest))
            .or_default()
            .push((values, jump_to));
        Ok(jump_to)
    }

    pub(crate) fn call(&mut self, call: CallOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, call.get_operation());
        let args: Vec<Value> = call.args(ctx);
        let args = args
            .into_iter()
            .map(|v| self.value(opr, v))
            .collect::<Result<Vec<_>, _>>()?;
        let name = self.result_name(opr);
        let site = match call.callee(ctx) {
            CallOpCallable::Direct(sym) => {
                let Some(&callee) = self.functions.get(&sym) else {
                    return Err(EmitError::invalid(
                        ctx,
                        opr,
                        format!("unknown callee @{sym}"),
                    ));
                };
                let declared = self.callee_type(opr, call.callee_type(ctx))?;
                if declared != callee.get_type() {
                    return Err(EmitError::invalid(
                        ctx,
                        opr,
                        format!(
                            "call type {} does not match @{sym}'s type {}",
                            declared.print_to_string().to_string(),
                            callee.get_type().print_to_string().to_string()
                        ),
                    ));
                }
                check_args(self, opr, declared, &args)?;
                let site = self.builder.build_direct_call(callee, &meta(&args), &name);
                let site = self.built(opr, site)?;
                site.set_call_convention(callee.get_call_conventions());
                site
            }
            CallOpCallable::Indirect(ptr) => {
                let BasicValueEnum::PointerValue(ptr) = self.value(opr, ptr)? else {
                    return Err(EmitError::invalid(ctx, opr, "callee is not a pointer"));
                };
                let fn_ty = self.callee_type(opr, call.callee_type(ctx))?;
                check_args(self, opr, fn_ty, &args)?;
                let site = self
                    .builder
                    .build_indirect_call(fn_ty, ptr, &meta(&args), &name);
                self.built(opr, site)?
            }
        };
        if let Some(fmf) = call.get_attr_llvm_call_fastmath_flags(ctx) {
            apply_fast_math(site_instruction(site), *fmf);
        }
        Ok(basic_result(site.try_as_basic_value()))
    }

    pub(crate) fn call_intrinsic(&mut self, call: CallIntrinsicOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, call.get_operation());
        let name: String = call
            .get_attr_llvm_intrinsic_name(ctx)
            .ok_or_else(|| EmitError::invalid(ctx, opr, "missing intrinsic name"))?
            .clone()
            .into();
        let ty = call
            .get_attr_llvm_intrinsic_type(ctx)
            .ok_or_else(|| EmitError::invalid(ctx, opr, "missing intrinsic type"))?
            .clone()
            .into();
        let fmf: Option<FastmathFlagsAttr> =
            call.get_attr_llvm_intrinsic_fastmath_flags(ctx).map(|f| *f);
        let mut fn_ty = self.callee_type(opr, ty)?;
        let mut args = self.operands(opr)?;

        let mut name = name.as_str();
        if let Some((_, new_name, extra)) = RENAMED_INTRINSICS.iter().find(|r| r.0 == name) {
            name = new_name;
            let i32_ty = self.ll.i32_type();
            args.extend(
                extra
                    .iter()
                    .map(|&c| BasicValueEnum::from(i32_ty.const_int(c, false))),
            );
            let params: Vec<_> = args.iter().map(|a| a.get_type().into()).collect();
            fn_ty = match fn_ty.get_return_type() {
                Some(ret) => ret.fn_type(&params, false),
                None => self.ll.void_type().fn_type(&params, false),
            };
        }

        let callee = self.intrinsic(opr, name, fn_ty)?;
        check_args(self, opr, fn_ty, &args)?;
        let result_name = if fn_ty.get_return_type().is_some() {
            self.result_name(opr)
        } else {
            String::new()
        };
        let site = self
            .builder
            .build_direct_call(callee, &meta(&args), &result_name);
        let site = self.built(opr, site)?;
        if let Some(fmf) = fmf {
            apply_fast_math(site_instruction(site), fmf);
        }
        Ok(basic_result(site.try_as_basic_value()))
    }

    /// The declaration of intrinsic `name` with type `fn_ty`.
    fn intrinsic(
        &mut self,
        opr: Ptr<Operation>,
        name: &str,
        fn_ty: FunctionType<'ll>,
    ) -> Result<FunctionValue<'ll>, EmitError> {
        let ctx = self.ctx;
        if name.starts_with(crate::LIBDEVICE_PREFIX)
            || oxide_contract::DEVICE_RUNTIME_FUNCTIONS.contains(&name)
            || name == oxide_contract::UNROLL_HINT_SYMBOL
        {
            // A libdevice function: an external declaration that `libdevice::link` defines; or
            // one of the device runtime's, which the driver links at load time; or the unroll
            // hint, which `loop_hints` removes before the PTX.
            return Ok(self
                .module
                .get_function(name)
                .unwrap_or_else(|| self.module.add_function(name, fn_ty, None)));
        }
        let Some(intrinsic) = Intrinsic::find(name) else {
            return Err(EmitError::invalid(
                ctx,
                opr,
                format!("`{name}` is not an intrinsic of this LLVM"),
            ));
        };
        let decl = match self.module.get_function(name) {
            Some(existing) => existing,
            // An overloaded intrinsic spells its overload in the name (`.p0.p0.i64`).
            // Declaring that name with the op's type lets LLVM's verifier check they agree.
            None if intrinsic.is_overloaded() => self.module.add_function(name, fn_ty, None),
            None => intrinsic.get_declaration(self.module, &[]).ok_or_else(|| {
                EmitError::invalid(ctx, opr, format!("LLVM cannot declare `{name}`"))
            })?,
        };
        if decl.get_type() != fn_ty {
            return Err(EmitError::invalid(
                ctx,
                opr,
                format!(
                    "type {} does not match the intrinsic's {}",
                    fn_ty.print_to_string().to_string(),
                    decl.get_type().print_to_string().to_string()
                ),
            ));
        }
        Ok(decl)
    }

    fn callee_type(
        &mut self,
        opr: Ptr<Operation>,
        ty: pliron::r#type::TypeHandle,
    ) -> Result<FunctionType<'ll>, EmitError> {
        let ty = TypedHandle::<FuncType>::from_handle(ty, self.ctx)
            .map_err(|_| EmitError::invalid(self.ctx, opr, "callee type is not llvm.func"))?;
        self.types
            .function(self.ctx, ty)
            .map_err(|e| self.type_error(opr, e))
    }
}

/// LLVM (without assertions, as shipped with rustc) builds a call with mismatched arguments
/// silently and crashes later, so the arguments are checked against the callee type here.
fn check_args<'ll>(
    tr: &Translator<'_, 'll>,
    opr: Ptr<Operation>,
    fn_ty: FunctionType<'ll>,
    args: &[BasicValueEnum<'ll>],
) -> Result<(), EmitError> {
    let params: Vec<BasicMetadataTypeEnum<'ll>> = fn_ty.get_param_types();
    let count_ok = if fn_ty.is_var_arg() {
        args.len() >= params.len()
    } else {
        args.len() == params.len()
    };
    if !count_ok {
        return Err(EmitError::invalid(
            tr.ctx,
            opr,
            format!("{} arguments for {} parameters", args.len(), params.len()),
        ));
    }
    for (i, (arg, param)) in args.iter().zip(&params).enumerate() {
        if BasicMetadataTypeEnum::from(arg.get_type()) != *param {
            return Err(EmitError::invalid(
                tr.ctx,
                opr,
                format!(
                    "argument {i} is {} but the parameter is {}",
                    arg.get_type().print_to_string().to_string(),
                    param.print_to_string().to_string()
                ),
            ));
        }
    }
    Ok(())
}

fn add_incoming<'ll>(phis: &[PhiValue<'ll>], values: &[BasicValueEnum<'ll>], from: LlBlock<'ll>) {
    for (phi, value) in phis.iter().zip(values) {
        phi.add_incoming(&[(value as &dyn BasicValue<'ll>, from)]);
    }
}

fn meta<'ll>(args: &[BasicValueEnum<'ll>]) -> Vec<BasicMetadataValueEnum<'ll>> {
    args.iter().map(|&a| a.into()).collect()
}

fn site_instruction(site: CallSiteValue<'_>) -> Option<InstructionValue<'_>> {
    match site.try_as_basic_value() {
        ValueKind::Basic(v) => v.as_instruction_value(),
        ValueKind::Instruction(i) => Some(i),
    }
}

pub(crate) fn basic_result(kind: ValueKind<'_>) -> Option<BasicValueEnum<'_>> {
    match kind {
        ValueKind::Basic(v) => Some(v),
        ValueKind::Instruction(_) => None,
    }
}
