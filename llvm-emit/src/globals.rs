//! Module-level data: `llvm.global` and `llvm.addressof`.
//!
//! Globals are declared before any function (so that functions and initializers can refer to
//! any global, in any order, cycles included) and their initializers are set after every
//! function is declared (so that an initializer can take a function's address).

use inkwell::{
    AddressSpace,
    module::Linkage,
    targets::TargetData,
    types::{AnyType, BasicTypeEnum},
    values::{AsValueRef, BasicValueEnum, GlobalValue},
};
use pliron::{
    builtin::op_interfaces::SymbolOpInterface, context::Ptr, linked_list::ContainsLinkedList,
    op::Op, operation::Operation,
};
use pliron_llvm::{
    attributes::LinkageAttr,
    op_interfaces::{AlignableOpInterface, LlvmSymbolName},
    ops::{AddressOfOp, GlobalOp, ReturnOp},
};

use crate::{
    constants::{is_constant, undef_or_poison},
    errors::EmitError,
    translator::{FunctionState, OpValue, Translator},
};

/// NVPTX's shared address space (`.shared`).
const SHARED: u32 = 3;

fn llvm_linkage(linkage: &LinkageAttr) -> Linkage {
    match linkage {
        LinkageAttr::ExternalLinkage => Linkage::External,
        LinkageAttr::AvailableExternallyLinkage => Linkage::AvailableExternally,
        LinkageAttr::LinkOnceAnyLinkage => Linkage::LinkOnceAny,
        LinkageAttr::LinkOnceODRLinkage => Linkage::LinkOnceODR,
        LinkageAttr::LinkOnceODRAutoHideLinkage => Linkage::LinkOnceODRAutoHide,
        LinkageAttr::WeakAnyLinkage => Linkage::WeakAny,
        LinkageAttr::WeakODRLinkage => Linkage::WeakODR,
        LinkageAttr::AppendingLinkage => Linkage::Appending,
        LinkageAttr::InternalLinkage => Linkage::Internal,
        LinkageAttr::PrivateLinkage => Linkage::Private,
        LinkageAttr::DLLImportLinkage => Linkage::DLLImport,
        LinkageAttr::DLLExportLinkage => Linkage::DLLExport,
        LinkageAttr::ExternalWeakLinkage => Linkage::ExternalWeak,
        LinkageAttr::GhostLinkage => Linkage::Ghost,
        LinkageAttr::CommonLinkage => Linkage::Common,
        LinkageAttr::LinkerPrivateLinkage => Linkage::LinkerPrivate,
        LinkageAttr::LinkerPrivateWeakLinkage => Linkage::LinkerPrivateWeak,
    }
}

impl<'ll> Translator<'_, 'll> {
    /// Adds `global` to the LLVM module, without its initializer.
    pub(crate) fn declare_global(
        &mut self,
        global: GlobalOp,
    ) -> Result<GlobalValue<'ll>, EmitError> {
        let ctx = self.ctx;
        let opr = global.get_operation();
        let sym = global.get_symbol_name(ctx);
        let name = global
            .llvm_symbol_name(ctx)
            .unwrap_or_else(|| sym.to_string());
        // LLVM would silently rename the second one.
        if self.module.get_global(&name).is_some() || self.module.get_function(&name).is_some() {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "a global or function with this name already exists",
            ));
        }
        let ty = global
            .get_attr_llvm_global_type(ctx)
            .map(|t| pliron::r#type::Typed::get_type(&*t, ctx))
            .ok_or_else(|| EmitError::invalid(ctx, opr, "missing type"))?;
        let ty = self.ty(opr, ty)?;
        let space = global.address_space(ctx);
        let space = AddressSpace::try_from(space).map_err(|()| {
            EmitError::invalid(ctx, opr, format!("address space {space} is out of range"))
        })?;
        let gv = self.module.add_global(ty, Some(space), &name);
        self.globals.insert(sym, gv);
        Ok(gv)
    }

    /// Sets the initializer, linkage, constness and alignment of `global`. A global without
    /// an initializer is an external declaration; definitions are internal unless the op
    /// says otherwise.
    pub(crate) fn define_global(
        &mut self,
        global: GlobalOp,
        gv: GlobalValue<'ll>,
    ) -> Result<(), EmitError> {
        let ctx = self.ctx;
        let opr = global.get_operation();
        let _span = tracing::debug_span!("global", name = %global.get_symbol_name(ctx)).entered();
        let ty = pliron::r#type::Typed::get_type(&global, ctx);
        let init = if let Some(attr) = global.get_initializer_value(ctx) {
            Some(self.const_value(opr, &*attr, ty)?)
        } else if global.get_initializer_region(ctx).is_some() {
            Some(self.region_initializer(global)?)
        } else {
            None
        };
        let linkage = global.get_attr_llvm_global_linkage(ctx).map(|l| l.clone());
        let init = if global.address_space(ctx) == SHARED {
            self.shared_initializer(opr, gv, init, linkage.as_ref())?
        } else {
            init
        };
        if let Some(init) = init {
            if init.get_type().as_any_type_enum() != gv.get_value_type() {
                return Err(EmitError::invalid(
                    ctx,
                    opr,
                    "the initializer's type is not the global's",
                ));
            }
            gv.set_initializer(&init);
        }
        match linkage {
            Some(linkage) => gv.set_linkage(llvm_linkage(&linkage)),
            None if init.is_some() => gv.set_linkage(Linkage::Internal),
            None => {}
        }
        gv.set_constant(global.is_constant(ctx));
        if let Some(align) = global.alignment(ctx) {
            if !align.is_power_of_two() {
                return Err(EmitError::invalid(
                    ctx,
                    opr,
                    format!("alignment {align} is not a power of two"),
                ));
            }
            gv.set_alignment(align);
        } else if global.address_space(ctx) == SHARED {
            // Stated, as CUDA's `__shared__` definitions state it: the type's ABI alignment.
            let layout = self.module.get_data_layout();
            let layout = layout.as_str().to_str().map_err(|e| {
                EmitError::invalid(ctx, opr, format!("the data layout is not UTF-8: {e}"))
            })?;
            let ty = gv.get_value_type();
            gv.set_alignment(TargetData::create(layout).get_abi_alignment(&ty));
        }
        Ok(())
    }

    /// The initializer of a `.shared` global. Shared memory is per block and starts
    /// undefined, so, as for CUDA's `__shared__`, a definition is `undef`: a global without an
    /// initializer gets one, unless it is an explicit external declaration (`extern
    /// __shared__`, dynamic shared memory), and any other initializer is an error, which the
    /// NVPTX backend would otherwise report without naming the op.
    fn shared_initializer(
        &self,
        opr: Ptr<Operation>,
        gv: GlobalValue<'ll>,
        init: Option<BasicValueEnum<'ll>>,
        linkage: Option<&LinkageAttr>,
    ) -> Result<Option<BasicValueEnum<'ll>>, EmitError> {
        match init {
            // SAFETY: `value` is a constant of this context; `LLVMIsUndef` only inspects it
            // (and holds for `poison` too).
            Some(value) if unsafe { llvm_sys::core::LLVMIsUndef(value.as_value_ref()) } != 0 => {
                Ok(Some(value))
            }
            Some(_) => Err(EmitError::invalid(
                self.ctx,
                opr,
                "a global in the shared address space (3) cannot be initialised; \
                 give it an `undef` initializer or none",
            )),
            None if matches!(
                linkage,
                Some(LinkageAttr::ExternalLinkage | LinkageAttr::ExternalWeakLinkage)
            ) =>
            {
                Ok(None)
            }
            None => {
                let ty = BasicTypeEnum::try_from(gv.get_value_type()).map_err(|()| {
                    EmitError::invalid(self.ctx, opr, "the global's type is not a value type")
                })?;
                Ok(Some(undef_or_poison(ty, true)))
            }
        }
    }

    /// Evaluates an initializer region: its ops are translated into a scratch function, where
    /// the builder folds operations on constants into constants, and the value returned must
    /// come out as a constant. The scratch function is deleted afterwards.
    fn region_initializer(&mut self, global: GlobalOp) -> Result<BasicValueEnum<'ll>, EmitError> {
        let ctx = self.ctx;
        let opr = global.get_operation();
        let block = global
            .get_initializer_block(ctx)
            .ok_or_else(|| EmitError::invalid(ctx, opr, "empty initializer region"))?;
        let ops: Vec<Ptr<Operation>> = block.deref(ctx).iter(ctx).collect();
        let retval = ops
            .last()
            .and_then(|&term| Operation::get_op::<ReturnOp>(term, ctx))
            .and_then(|ret| ret.retval(ctx))
            .ok_or_else(|| {
                EmitError::invalid(
                    ctx,
                    opr,
                    "the initializer region does not end with a return of a value",
                )
            })?;

        let scratch_ty = self.ll.void_type().fn_type(&[], false);
        let scratch =
            self.module
                .add_function("oxide.global.init", scratch_ty, Some(Linkage::Private));
        self.builder
            .position_at_end(self.ll.append_basic_block(scratch, "entry"));
        self.func = FunctionState {
            function: Some(scratch),
            ..FunctionState::default()
        };
        let value = ops[..ops.len() - 1]
            .iter()
            .try_for_each(|&op| self.translate_op(op))
            .and_then(|()| self.value(opr, retval));
        self.func = FunctionState::default();
        self.builder.clear_insertion_position();
        // SAFETY: nothing outside the scratch function refers to its instructions: the
        // translated values were only recorded in the state just dropped.
        unsafe { scratch.delete() };

        let value = value?;
        if !is_constant(value) {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "the initializer region does not compute a constant",
            ));
        }
        Ok(value)
    }

    /// `llvm.addressof`: the global's (or function's) address in the address space of the
    /// op's result type, through an `addrspacecast` when the symbol lives in another one
    /// (e.g. a generic `ptr` to a global in `addrspace(4)`).
    pub(crate) fn address_of(&mut self, op: AddressOfOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        if op.get_attr_llvm_global_name(ctx).is_none() {
            return Err(EmitError::invalid(ctx, opr, "missing global name"));
        }
        let inkwell::types::BasicTypeEnum::PointerType(want) = self.result_type(opr)? else {
            return Err(EmitError::invalid(ctx, opr, "the result is not a pointer"));
        };
        let ptr = self.symbol_address(opr, &op.get_global_name(ctx), want)?;
        Ok(Some(ptr.into()))
    }
}
