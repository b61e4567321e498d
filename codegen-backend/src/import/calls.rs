//! Calls: device-std intrinsics (through the registry), core intrinsics, panics (traps) and
//! calls of other device functions (queued for import).

#[allow(unused_imports)]
use crate::import::prelude::*;
use oxide_dialects::{
    gpu::{BarrierOp, InlineAsmOp, IntrinsicCallOp, SpecialRegOp},
    mir::CallOp,
};
use pliron::value::Value;
use rustc_abi::ExternAbi;
use rustc_middle::{
    mir::{self, Operand as MirOperand},
    ty::{self, Instance, InstanceKind},
};
use rustc_span::Spanned;

use super::{
    FnCx,
    abi::{ArgPass, RetPass},
    operands::{Operand, OperandVal},
    places::PlaceRef,
};
use crate::{
    error::{DeviceError, DeviceErrorKind, DeviceResult, not_on_gpu, unsupported},
    registry::{BadAttribute, DeviceFn, SoftFn},
};

impl<'tcx> FnCx<'tcx, '_> {
    /// Every call of a host-only standard-library function in this body, with its block.
    pub(crate) fn check_host_only_calls(
        &mut self,
        panic_only: &rustc_index::IndexSlice<mir::BasicBlock, Option<String>>,
    ) -> Vec<(mir::BasicBlock, DeviceError)> {
        let tcx = self.m.tcx;
        let mut found = Vec::new();
        for (bb, data) in self.mir.basic_blocks.iter_enumerated() {
            if data.is_cleanup || panic_only[bb].is_some() {
                continue;
            }
            let term = data.terminator();
            let mir::TerminatorKind::Call { func, fn_span, .. } = &term.kind else {
                continue;
            };
            let callee_ty = self.monomorphize(func.ty(self.mir, tcx));
            let ty::FnDef(def_id, _) = *callee_ty.kind() else {
                continue;
            };
            if self.m.registry.is_std_panic(def_id) {
                continue;
            }
            if let Some(why) = self.m.registry.host_only(def_id) {
                let path = ty::print::with_no_trimmed_paths!(tcx.def_path_str(def_id));
                let e = not_on_gpu::<()>(*fn_span, format!("`{path}`"), why);
                found.extend(e.err().map(|e| (bb, e)));
            }
        }
        found
    }

    pub(crate) fn call(
        &mut self,
        func: &MirOperand<'tcx>,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let tcx = self.m.tcx;
        let callee_ty = self.monomorphize(func.ty(self.mir, tcx));
        let instance = match *callee_ty.kind() {
            ty::FnDef(def_id, generic_args) => {
                match Instance::try_resolve(tcx, self.m.typing_env(), def_id, generic_args) {
                    Ok(Some(instance)) => instance,
                    _ => {
                        return unsupported(
                            self.span,
                            format!(
                                "calling `{}`, which does not resolve",
                                tcx.def_path_str(def_id)
                            ),
                        );
                    }
                }
            }
            // A function pointer known at compile time (core's sort picks its partition routine
            // with `const { ... }`) is a direct call.
            _ => match self.constant_fn_pointer(func) {
                Some(instance) => instance,
                None => {
                    return not_on_gpu(
                        self.span,
                        "calling a function pointer",
                        "device code calls functions directly; use generics or closures",
                    );
                }
            },
        };
        let def_id = instance.def_id();
        let path = ty::print::with_no_trimmed_paths!(tcx.def_path_str(def_id));
        match self.m.registry.device_fn(def_id) {
            Ok(Some(device_fn)) => {
                return self.device_intrinsic(&path, device_fn, args, destination, target);
            }
            Ok(None) => {}
            // A malformed mark of another crate, or one the rule of `crate::marks` refuses
            // (that crate was compiled without the backend's check where marks are written).
            Err(BadAttribute(why)) => {
                return not_on_gpu(self.span, format!("the call of `{path}`"), why);
            }
        }
        if self.m.registry.is_std_panic(def_id) {
            // Panics trap: the kernel stops and the host's synchronisation reports the failure.
            return self.trap(&format!("panic in `{path}`"));
        }
        match instance.def {
            InstanceKind::Intrinsic(_) => {
                return self.core_intrinsic(instance, args, destination, target);
            }
            InstanceKind::Virtual(..) => {
                return not_on_gpu(
                    self.span,
                    format!("the `dyn Trait` method call `{path}`"),
                    "trait objects need vtables and indirect calls, which device code does not have; use generics",
                );
            }
            InstanceKind::DropGlue(_, None) => return self.finish_call(target),
            InstanceKind::Item(_) if tcx.is_foreign_item(def_id) => {
                if let Some(libdevice) = self.m.registry.c_math(def_id) {
                    let mut operands = Vec::new();
                    for arg in args {
                        operands.push(self.operand(&arg.node)?);
                    }
                    return self.libdevice_call(libdevice, &path, &operands, destination, target);
                }
                return not_on_gpu(
                    self.span,
                    format!("the foreign function `{path}`"),
                    "it is host code",
                );
            }
            InstanceKind::Item(_) if !tcx.is_mir_available(def_id) => {
                if let Some(why) = self.m.registry.host_only(def_id) {
                    return not_on_gpu(self.span, format!("`{path}`"), why);
                }
                return Err(DeviceError::new(
                    self.span,
                    DeviceErrorKind::NoMir { callee: path },
                ));
            }
            _ => {}
        }
        self.device_call(instance, callee_ty, args, destination, target)
    }

    /// The function a constant function pointer points to.
    fn constant_fn_pointer(&self, func: &MirOperand<'tcx>) -> Option<Instance<'tcx>> {
        let MirOperand::Constant(constant) = func else {
            return None;
        };
        let value = self
            .monomorphize(constant.const_)
            .eval(self.m.tcx, self.m.typing_env(), constant.span)
            .ok()?;
        let rustc_middle::mir::ConstValue::Scalar(rustc_middle::mir::interpret::Scalar::Ptr(
            ptr,
            _,
        )) = value
        else {
            return None;
        };
        let (provenance, _) = ptr.into_raw_parts();
        match self.m.tcx.global_alloc(provenance.alloc_id()) {
            rustc_middle::mir::interpret::GlobalAlloc::Function { instance } => Some(instance),
            _ => None,
        }
    }

    pub(crate) fn finish_call(&mut self, target: Option<mir::BasicBlock>) -> DeviceResult<()> {
        match target {
            Some(t) => self.goto(t),
            None => self.trap("returned from a function that never returns"),
        }
    }

    /// A call of a device-std function the registry knows: its GPU instruction replaces it.
    fn device_intrinsic(
        &mut self,
        path: &str,
        device_fn: DeviceFn,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let dest = self.place(destination)?;
        let value = match device_fn {
            DeviceFn::SpecialRegister(register) => {
                let fixed = register
                    .value_in_1d_grid()
                    .filter(|_| self.mode.grid_1d)
                    .or_else(|| self.mode.block.and_then(|b| register.value_in_block(b)));
                Some(match fixed {
                    Some(v) => self.const_int(32, u128::from(v)),
                    None => {
                        let value = self.emit_value(|ctx| SpecialRegOp::new(ctx, register));
                        // Under a block contract a thread index is below the block's size:
                        // LLVM then folds the ownership tests and bounds checks it implies.
                        if let Some(bound) =
                            self.mode.block.and_then(|b| register.bound_in_block(b))
                        {
                            let bound = self.const_int(32, u128::from(bound));
                            let below = self.icmp(
                                pliron_llvm::attributes::ICmpPredicateAttr::ULT,
                                value,
                                bound,
                            );
                            let void = pliron_llvm::types::VoidType::get(&self.m.ctx).into();
                            self.intrinsic("llvm.assume", void, vec![below]);
                        }
                        value
                    }
                })
            }
            DeviceFn::Barrier => {
                self.emit(BarrierOp::new);
                None
            }
            DeviceFn::UnrollHint => {
                let values = self.scalar_arguments(path, args)?;
                let void = pliron_llvm::types::VoidType::get(&self.m.ctx).into();
                self.intrinsic(oxide_contract::UNROLL_HINT_SYMBOL, void, values);
                None
            }
            // Checked by the uniformity analysis; nothing to execute.
            DeviceFn::WarpCollective | DeviceFn::EmulatorCheck | DeviceFn::UniformOperands => None,
            // The other arguments (a dynamic array's size) are the host's.
            DeviceFn::SharedAddress => match self.scalar_arguments(path, args)?.as_slice() {
                &[address, ..] => Some(address),
                _ => {
                    return unsupported(
                        self.span,
                        format!("`{path}` (a shared address takes a pointer argument first)"),
                    );
                }
            },
            DeviceFn::SharedWindow => {
                // One raw pointer in, an integer out: anything else would be a cast LLVM
                // rejects, so it is a diagnostic at the mark's call instead.
                let tcx = self.m.tcx;
                let pointer = match args {
                    [only] => self.monomorphize(only.node.ty(self.mir, tcx)).is_raw_ptr(),
                    _ => false,
                };
                if !pointer || !dest.layout.ty.is_integral() {
                    return unsupported(
                        self.span,
                        format!(
                            "`{path}` (a shared window offset takes one raw pointer and returns an integer)"
                        ),
                    );
                }
                match self.scalar_arguments(path, args)?.as_slice() {
                    &[address] => Some(self.shared_window(address, dest.layout.size.bits())),
                    _ => {
                        return unsupported(
                            self.span,
                            format!("`{path}` (a shared window offset takes one pointer argument)"),
                        );
                    }
                }
            }
            DeviceFn::FloatConvert { format } => {
                Some(self.float16_convert(path, format, args, dest.layout)?)
            }
            DeviceFn::Nvvm { intrinsic } => {
                let values = self.scalar_arguments(path, args)?;
                let result = self.result_type(path, dest.layout)?;
                let call = self.emit(|ctx| IntrinsicCallOp::new(ctx, &intrinsic, result, values));
                self.non_void_result(call.get_operation(), dest.layout)
            }
            DeviceFn::Atomic {
                op,
                scope,
                ordering,
            } => {
                let values = self.scalar_arguments(path, args)?;
                self.scoped_atomic(path, (op, scope, ordering), &values)?
            }
            DeviceFn::DeviceRuntime { symbol } => {
                let values = self.scalar_arguments(path, args)?;
                let result = self.result_type(path, dest.layout)?;
                let value = self.intrinsic(&symbol, result, values);
                (!dest.layout.is_zst()).then_some(value)
            }
            DeviceFn::Ptx {
                template,
                constraints,
                side_effects,
            } => {
                let values = self.scalar_arguments(path, args)?;
                let outputs = constraints
                    .split(',')
                    .map(str::trim)
                    .filter(|c| c.starts_with('=') && !c.starts_with("=*"))
                    .count();
                let elements = self.asm_outputs(dest.layout)?;
                let returned = match &elements {
                    Some(elements) => elements.len(),
                    None => usize::from(!dest.layout.is_zst()),
                };
                if outputs != returned {
                    return Err(crate::error::DeviceError::new(
                        self.span,
                        crate::error::DeviceErrorKind::AsmOutputs {
                            callee: path.to_string(),
                            outputs,
                            returns: format!("`{}`", dest.layout.ty),
                        },
                    ));
                }
                if let Some(elements) = elements {
                    // Several outputs (`=r,=r,...`): the asm returns them as one LLVM struct,
                    // whose fields are stored into the destination's elements in order.
                    let fields: Vec<_> = elements.iter().map(|(ty, ..)| *ty).collect();
                    let result = pliron_llvm::types::StructType::get_unnamed(
                        self.ctx(),
                        (fields, pliron_llvm::types::StructLayout::Unpacked),
                    )
                    .into();
                    let asm = self.emit(|ctx| {
                        InlineAsmOp::new(ctx, &template, &constraints, result, values, side_effects)
                    });
                    let all = asm.get_operation().deref(self.ctx()).get_result(0);
                    for (i, (_, scalar, offset)) in elements.into_iter().enumerate() {
                        let field =
                            pliron_llvm::ops::ExtractValueOp::new(self.ctx(), all, vec![i as u32])
                                .map_err(|e| self.internal(e))?;
                        let field = self.push_value(field);
                        let align = dest.align.restrict_for_offset(offset);
                        let ptr = self.offset_place(dest, offset, dest.layout).ptr;
                        self.store_scalar(field, ptr, scalar, align);
                    }
                    None
                } else {
                    let result = self.result_type(path, dest.layout)?;
                    let asm = self.emit(|ctx| {
                        InlineAsmOp::new(ctx, &template, &constraints, result, values, side_effects)
                    });
                    self.non_void_result(asm.get_operation(), dest.layout)
                }
            }
        };
        if let Some(value) = value {
            self.store_operand(
                Operand {
                    val: OperandVal::Imm(value),
                    layout: dest.layout,
                },
                dest,
            )?;
        }
        self.finish_call(target)
    }

    /// The arguments of a call that an intrinsic or inline assembly takes: scalars only (a pair
    /// such as a slice passes its two halves).
    pub(super) fn scalar_arguments(
        &mut self,
        path: &str,
        args: &[Spanned<MirOperand<'tcx>>],
    ) -> DeviceResult<Vec<Value>> {
        let mut values = Vec::new();
        for arg in args {
            let operand = self.operand(&arg.node)?;
            match operand.val {
                OperandVal::Imm(v) => values.push(v),
                OperandVal::Pair(a, b) => values.extend([a, b]),
                OperandVal::ZeroSized => {}
                OperandVal::Mem(..) => {
                    return unsupported(
                        arg.span,
                        format!(
                            "passing `{}` to the device intrinsic `{path}` (only scalars cross into an intrinsic)",
                            operand.layout.ty
                        ),
                    );
                }
            }
        }
        Ok(values)
    }

    /// The LLVM type an intrinsic returning a value of `layout` has: void for `()`.
    fn result_type(
        &mut self,
        path: &str,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<pliron::r#type::TypeHandle> {
        if layout.is_zst() {
            return Ok(pliron_llvm::types::VoidType::get(&self.m.ctx).into());
        }
        match layout.backend_repr {
            rustc_abi::BackendRepr::Scalar(_) => self.immediate_type(layout),
            _ => unsupported(
                self.span,
                format!(
                    "the device intrinsic `{path}` returning `{}` (only a scalar, `()`, or, from inline PTX, an array of 2 to 32 scalars: one per output)",
                    layout.ty
                ),
            ),
        }
    }

    /// The outputs of an inline assembly that returns an array of scalars (`[u32; 4]`: a
    /// vector load, an MMA fragment): each element's register type, scalar and offset, or
    /// `None` for any other result (a scalar or `()`, one output at most).
    fn asm_outputs(
        &mut self,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<
        Option<
            Vec<(
                pliron::r#type::TypeHandle,
                rustc_abi::Scalar,
                rustc_abi::Size,
            )>,
        >,
    > {
        let rustc_middle::ty::Array(element, len) = layout.ty.kind() else {
            return Ok(None);
        };
        let Some(len) = len.try_to_target_usize(self.m.tcx) else {
            return Ok(None);
        };
        let element = self.layout_of(*element)?;
        let Some(scalar) = super::types::as_scalar(element) else {
            return Ok(None);
        };
        if !(2..=32).contains(&len) {
            return Ok(None);
        }
        let ty = self.immediate_type(element)?;
        Ok(Some(
            (0..len).map(|i| (ty, scalar, element.size * i)).collect(),
        ))
    }

    fn non_void_result(
        &self,
        op: pliron::context::Ptr<pliron::operation::Operation>,
        layout: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> Option<Value> {
        (!layout.is_zst()).then(|| op.deref(&self.m.ctx).get_result(0))
    }

    pub(crate) fn device_call(
        &mut self,
        instance: Instance<'tcx>,
        callee_ty: ty::Ty<'tcx>,
        args: &[Spanned<MirOperand<'tcx>>],
        destination: mir::Place<'tcx>,
        target: Option<mir::BasicBlock>,
    ) -> DeviceResult<()> {
        let decl = self.declare_callee(instance)?;
        let spread = callee_ty.fn_sig(self.m.tcx).abi() == ExternAbi::RustCall;

        let mut values: Vec<Operand<'tcx>> = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let value = self.operand(&arg.node)?;
            if spread && i + 1 == args.len() {
                // `rust-call`: the last argument is a tuple passed as its fields.
                let tuple = self.spill(value)?;
                for field in 0..tuple.layout.fields.count() {
                    let offset = tuple.layout.fields.offset(field);
                    let layout = tuple.layout.field(&self.layout_cx(), field);
                    let place = self.offset_place(tuple, offset, layout);
                    values.push(self.load_operand(place)?);
                }
            } else {
                values.push(value);
            }
        }
        if values.len() != decl.abi.args.len() {
            return unsupported(
                self.span,
                format!(
                    "calling `{}` with this argument shape",
                    crate::mir_util::display_instance(self.m.tcx, instance)
                ),
            );
        }

        let dest = self.place(destination)?;
        self.emit_device_call(&decl, values, dest)?;
        self.finish_call(target)
    }

    /// Calls a declared device function with `values`, writing its result into `dest`.
    pub(crate) fn emit_device_call(
        &mut self,
        decl: &super::FnDecl,
        values: Vec<Operand<'tcx>>,
        dest: PlaceRef<'tcx>,
    ) -> DeviceResult<()> {
        let mut params: Vec<Value> = Vec::new();
        let out = match decl.abi.ret {
            RetPass::OutPtr => {
                let slot = self.new_slot(dest.layout);
                params.push(slot.ptr);
                Some(slot)
            }
            _ => None,
        };
        for (value, pass) in values.into_iter().zip(decl.abi.args.iter()) {
            match (pass, value.val) {
                (ArgPass::Ignore, _) => {}
                (ArgPass::Imm, OperandVal::Imm(v)) => params.push(v),
                (ArgPass::Pair, OperandVal::Pair(a, b)) => params.extend([a, b]),
                (ArgPass::ByRef, _) => {
                    // The callee owns its argument: give it a copy.
                    let copy = self.spill(value)?;
                    params.push(copy.ptr);
                }
                (_, _) => {
                    let copy: PlaceRef<'tcx> = self.spill(value)?;
                    let reloaded = self.load_operand(copy)?;
                    match reloaded.val {
                        OperandVal::Imm(v) => params.push(v),
                        OperandVal::Pair(a, b) => params.extend([a, b]),
                        _ => {
                            return unsupported(
                                self.span,
                                format!("passing a `{}`", value.layout.ty),
                            );
                        }
                    }
                }
            }
        }
        let call = self.emit(|ctx| CallOp::new(ctx, decl.name.clone(), decl.ty, params));
        match decl.abi.ret {
            RetPass::Imm => {
                let result = call.get_operation().deref(&self.m.ctx).get_result(0);
                self.store_operand(
                    Operand {
                        val: OperandVal::Imm(result),
                        layout: dest.layout,
                    },
                    dest,
                )?;
            }
            RetPass::OutPtr => {
                let slot = out.expect("out slot");
                self.store_operand(
                    Operand {
                        val: OperandVal::Mem(slot.ptr, slot.align),
                        layout: dest.layout,
                    },
                    dest,
                )?;
            }
            RetPass::Void => {}
        }
        Ok(())
    }

    /// Calls the device-std function that implements a construct the GPU has no instruction for
    /// (the registry's `SoftFn`), returning its result.
    pub(crate) fn soft_call(
        &mut self,
        soft: SoftFn,
        values: Vec<Operand<'tcx>>,
        result: rustc_middle::ty::layout::TyAndLayout<'tcx>,
    ) -> DeviceResult<Operand<'tcx>> {
        let Some(def_id) = self.m.registry.soft_fn(soft) else {
            return unsupported(
                self.span,
                format!(
                    "{} without device-std's implementation (is `oxide` a dependency?)",
                    soft.construct()
                ),
            );
        };
        let instance = Instance::mono(self.m.tcx, def_id);
        let decl = self.declare_callee(instance)?;
        let dest = self.new_slot(result);
        self.emit_device_call(&decl, values, dest)?;
        self.load_operand(dest)
    }
}
