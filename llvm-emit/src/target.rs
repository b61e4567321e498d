//! The NVPTX target machine: module setup, the optimisation pipeline and PTX emission.

use std::sync::Once;

use inkwell::{
    OptimizationLevel,
    module::Module,
    passes::PassBuilderOptions,
    targets::{
        CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
    },
};

use crate::errors::EmitError;

pub(crate) const TRIPLE: &str = "nvptx64-nvidia-cuda";
/// PTX ISA 8.0 is the first with sm_90 and what CUDA 12.0+ drivers accept.
pub(crate) const FEATURES: &str = "+ptx80";

/// LLVM only warns (and silently ignores the CPU) on an unknown processor name, which would
/// produce PTX for the wrong architecture; catch the obvious typos here instead.
fn check_arch(arch: &str) -> Result<(), EmitError> {
    let valid = arch.strip_prefix("sm_").is_some_and(|rest| {
        let digits = rest.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit())
            && rest.len() - digits.len() <= 1
    });
    if valid {
        Ok(())
    } else {
        Err(EmitError::InvalidOptions(format!(
            "arch `{arch}` is not an NVPTX processor name like `sm_90`"
        )))
    }
}

fn llvm_opt_level(opt_level: u8) -> OptimizationLevel {
    match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// A target machine for `arch`; its codegen optimisation level follows `opt_level`.
pub(crate) fn target_machine(arch: &str, opt_level: u8) -> Result<TargetMachine, EmitError> {
    check_arch(arch)?;
    static INIT: Once = Once::new();
    INIT.call_once(|| Target::initialize_nvptx(&InitializationConfig::default()));

    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| EmitError::Target(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            arch,
            FEATURES,
            llvm_opt_level(opt_level),
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| EmitError::Target(format!("cannot create a target machine for {arch}")))
}

/// Stamps the module with the target's triple and data layout, which the optimiser needs to
/// reason about pointer sizes and alignment the way the backend will.
pub(crate) fn configure_module(module: &Module<'_>, machine: &TargetMachine) {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
}

/// Runs the new-pass-manager `default<On>` pipeline.
pub(crate) fn optimize(
    module: &Module<'_>,
    machine: &TargetMachine,
    opt_level: u8,
) -> Result<(), EmitError> {
    let pipeline = format!("default<O{opt_level}>");
    module
        .run_passes(&pipeline, machine, PassBuilderOptions::create())
        .map_err(|e| EmitError::Passes {
            pipeline,
            message: e.to_string(),
        })
}

/// Lowers the module to PTX assembly text.
pub(crate) fn emit_ptx(module: &Module<'_>, machine: &TargetMachine) -> Result<String, EmitError> {
    let buffer = machine
        .write_to_memory_buffer(module, FileType::Assembly)
        .map_err(|e| EmitError::Codegen(e.to_string()))?;
    String::from_utf8(buffer.as_slice().to_vec())
        .map_err(|e| EmitError::Codegen(format!("PTX is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests {
    use super::check_arch;

    #[test]
    fn arch_names() {
        for ok in ["sm_90", "sm_90a", "sm_52", "sm_100f"] {
            assert!(check_arch(ok).is_ok(), "{ok}");
        }
        for bad in ["sm90", "sm_", "sm_x", "compute_90", "sm_90ab", ""] {
            assert!(check_arch(bad).is_err(), "{bad}");
        }
    }
}
