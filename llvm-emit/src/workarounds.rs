//! Rewrites of the optimised LLVM IR around faults of the NVPTX code generator measured on the
//! GPU: each one keeps the IR's meaning and avoids the instruction that breaks it.

use inkwell::{
    intrinsics::Intrinsic,
    module::Module,
    values::{BasicValueEnum, CallSiteValue, InstructionOpcode, InstructionValue},
};

/// `llvm.abs.i8` and `llvm.abs.i16` become `trunc(llvm.abs.i32(sext x))`.
///
/// NVPTX emits `abs.s16` for them, and on the H200 (driver 580) `abs.s16` of -32768 followed by
/// `cvt.s64.s16` gives +32768, where `llvm.abs(x, false)` must give the most negative value back
/// (`i16::MIN.wrapping_abs()` is `i16::MIN`): found by oxide-fuzz, docs/fuzzing.md. In 32 bits
/// the absolute value of -32768 is 32768, whose low 16 bits are -32768 again.
pub(crate) fn widen_narrow_abs(module: &Module<'_>) {
    let narrow: Vec<InstructionValue<'_>> = module
        .get_functions()
        .flat_map(|f| f.get_basic_blocks())
        .flat_map(|b| b.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::Call && is_narrow_abs(*i))
        .collect();
    if narrow.is_empty() {
        return;
    }
    let ll = module.get_context();
    let i32_ty = ll.i32_type();
    let Some(abs32) =
        Intrinsic::find("llvm.abs").and_then(|abs| abs.get_declaration(module, &[i32_ty.into()]))
    else {
        return;
    };
    let builder = ll.create_builder();
    for call in narrow {
        let (Some(x), Some(poison_flag)) = (value_operand(call, 0), value_operand(call, 1)) else {
            continue;
        };
        let BasicValueEnum::IntValue(x) = x else {
            continue;
        };
        builder.position_before(&call);
        let rewritten = builder
            .build_int_s_extend(x, i32_ty, "abs.wide")
            .and_then(|wide| builder.build_call(abs32, &[wide.into(), poison_flag.into()], ""))
            .ok()
            .and_then(|abs| match abs.try_as_basic_value() {
                inkwell::values::ValueKind::Basic(v) => Some(v),
                inkwell::values::ValueKind::Instruction(_) => None,
            })
            .and_then(|abs| {
                builder
                    .build_int_truncate(abs.into_int_value(), x.get_type(), "abs.narrow")
                    .ok()
            })
            .and_then(|narrowed| narrowed.as_instruction());
        if let Some(narrowed) = rewritten {
            call.replace_all_uses_with(&narrowed);
            call.erase_from_basic_block();
        }
    }
}

fn is_narrow_abs(call: InstructionValue<'_>) -> bool {
    let Ok(site) = CallSiteValue::try_from(call) else {
        return false;
    };
    site.get_called_fn_value().is_some_and(|f| {
        let name = f.get_name().to_bytes();
        name == b"llvm.abs.i8" || name == b"llvm.abs.i16"
    })
}

fn value_operand<'ctx>(call: InstructionValue<'ctx>, index: u32) -> Option<BasicValueEnum<'ctx>> {
    match call.get_operand(index)? {
        inkwell::values::Operand::Value(v) => Some(v),
        inkwell::values::Operand::Block(_) => None,
    }
}
