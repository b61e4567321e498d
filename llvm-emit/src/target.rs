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

use oxide_contract::GpuArch;

use crate::errors::EmitError;

pub(crate) const TRIPLE: &str = "nvptx64-nvidia-cuda";

fn llvm_opt_level(opt_level: u8) -> OptimizationLevel {
    match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// A target machine for `arch`; its codegen optimisation level follows `opt_level`. Only a
/// [`GpuArch`] reaches LLVM, which only warns on an unknown processor name (and ignores it) and
/// aborts the process on a PTX ISA too old for a known one.
pub(crate) fn target_machine(arch: GpuArch, opt_level: u8) -> Result<TargetMachine, EmitError> {
    let features = arch.ptx_isa().llvm_feature();
    static INIT: Once = Once::new();
    INIT.call_once(|| Target::initialize_nvptx(&InitializationConfig::default()));

    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| EmitError::Target(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            arch.name(),
            &features,
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

/// What [`crate::branch_threading`], [`crate::kernel_body`] and the unroll marks make possible
/// after `default<O3>`, in two halves: first the loops put in the form whose trip count can be
/// read (rotated, their counters made canonical), which [`crate::local_array_loops`] then reads;
/// then the loops that now have a trip count, or a mark, unrolled (and the arrays they index
/// promoted to registers), and the clean-up `default<O3>` ends with.
pub(crate) const LOOPS_IN_FORM: &str = "function(simplifycfg,instcombine<no-verify-fixpoint>,\
     loop-mssa(licm),loop(loop-rotate,indvars,loop-deletion))";

/// The second half of the steps after `default<O3>` ([`LOOPS_IN_FORM`]).
pub(crate) const UNROLL_AND_CLEAN: &str = "function(loop(loop-unroll-full),sroa,\
     infer-address-spaces,instcombine<no-verify-fixpoint>,gvn,dse,simplifycfg,\
     instcombine<no-verify-fixpoint>)";

/// Runs the new-pass-manager `default<On>` pipeline.
pub(crate) fn optimize(
    module: &Module<'_>,
    machine: &TargetMachine,
    opt_level: u8,
) -> Result<(), EmitError> {
    run_passes(module, machine, &format!("default<O{opt_level}>"))
}

/// Runs a new-pass-manager pipeline given as text.
pub(crate) fn run_passes(
    module: &Module<'_>,
    machine: &TargetMachine,
    pipeline: &str,
) -> Result<(), EmitError> {
    module
        .run_passes(pipeline, machine, PassBuilderOptions::create())
        .map_err(|e| EmitError::Passes {
            pipeline: pipeline.to_owned(),
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
    use super::*;

    /// LLVM knows every supported name (else `.target` would not be it) and accepts its ISA
    /// (else it aborts).
    #[test]
    fn every_supported_arch_emits_its_target_and_isa() {
        let ll = inkwell::context::Context::create();
        for arch in GpuArch::supported() {
            let machine = target_machine(arch, 3).unwrap();
            let module = ll.create_module("empty");
            configure_module(&module, &machine);
            let ptx = emit_ptx(&module, &machine).unwrap();
            assert!(
                ptx.contains(&format!("\n.version {}\n.target {arch}\n", arch.ptx_isa())),
                "{arch}:\n{ptx}"
            );
        }
    }
}
