//! `llvm.inline_asm`: a call of an LLVM inline-assembly value, which the NVPTX backend
//! prints into the PTX between `// begin inline asm` and `// end inline asm`, with `$n`
//! replaced by the registers of the operands.

use inkwell::{
    attributes::AttributeLoc,
    types::{BasicMetadataTypeEnum, BasicType},
    values::BasicMetadataValueEnum,
};
use pliron::{op::Op, r#type::Typed};
use pliron_llvm::ops::InlineAsmOp;

use crate::{
    errors::EmitError,
    translator::{OpValue, Translator},
    types::TypeConverter,
};

impl<'ll> Translator<'_, 'll> {
    /// The asm's type is `result (operand types...)`; a `llvm.void` result means the asm
    /// produces no value.
    pub(crate) fn inline_asm(&mut self, op: InlineAsmOp) -> OpValue<'ll> {
        let (ctx, opr) = (self.ctx, op.get_operation());
        let template = op.get_attr_llvm_inline_asm_template(ctx);
        let constraints = op.get_attr_llvm_inline_asm_constraints(ctx);
        let side_effects = op.get_attr_llvm_inline_asm_side_effects(ctx);
        let (Some(template), Some(constraints), Some(side_effects)) =
            (template, constraints, side_effects)
        else {
            return Err(EmitError::invalid(
                ctx,
                opr,
                "missing template, constraints or side-effects flag",
            ));
        };
        let template = String::from(template.clone());
        let constraints = String::from(constraints.clone());
        let side_effects = bool::from(side_effects.clone());

        let args = self.operands(opr)?;
        let params: Vec<BasicMetadataTypeEnum<'ll>> =
            args.iter().map(|a| a.get_type().into()).collect();
        let result = opr.deref(ctx).get_result(0).get_type(ctx);
        let fn_ty = if TypeConverter::is_void(ctx, result) {
            self.ll.void_type().fn_type(&params, false)
        } else {
            self.ty(opr, result)?.fn_type(&params, false)
        };
        // PTX has one assembly dialect; alignstack and unwinding do not apply to it.
        let asm = self.ll.create_inline_asm(
            fn_ty,
            template,
            constraints,
            side_effects,
            false,
            None,
            false,
        );
        let args: Vec<BasicMetadataValueEnum<'ll>> = args.iter().map(|&a| a.into()).collect();
        let name = if fn_ty.get_return_type().is_some() {
            self.result_name(opr)
        } else {
            String::new()
        };
        let site = self.built(
            opr,
            self.builder.build_indirect_call(fn_ty, asm, &args, &name),
        )?;
        if let Some(attrs) = op.get_attr_llvm_inline_asm_attrs(ctx) {
            let attrs = crate::params::llvm_attributes(self.ll, &attrs)
                .map_err(|reason| EmitError::invalid(ctx, opr, reason))?;
            for attribute in attrs {
                site.add_attribute(AttributeLoc::Function, attribute);
            }
        }
        Ok(crate::control_flow::basic_result(site.try_as_basic_value()))
    }
}
