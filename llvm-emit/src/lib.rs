//! `oxide-llvm-emit`: LLVM-dialect pliron module → LLVM IR (in process, via inkwell) →
//! optimised LLVM IR → PTX.
//!
//! LLVM here is rustc's own libLLVM (see `build.rs`), so inside the codegen backend there is
//! exactly one LLVM in the process.
//!
//! Block arguments become phis: every non-entry block gets one phi per argument before any op
//! is translated, branch ops add the incoming values, and blocks are translated in reverse
//! post-order so that every operand is defined before its use. Unreachable blocks are dropped.

mod arith;
mod constants;
mod control_flow;
mod errors;
mod globals;
mod memory;
mod params;
mod target;
mod translate;
mod types;

use inkwell::context::Context as LlContext;
pub use params::{ATTR_KEY_LLVM_PARAM_ATTRS, set_param_attrs};
use pliron::{
    builtin::{op_interfaces::SymbolOpInterface, ops::ModuleOp},
    context::Context,
};

pub use errors::EmitError;

/// What to generate.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The PTX target architecture, e.g. `"sm_90"`.
    pub arch: String,
    /// LLVM optimisation level, 0..=3 (the `default<On>` pipeline and the codegen level).
    pub opt_level: u8,
    /// Names of the `llvm.func` ops that are kernel entries (pliron symbol name or the
    /// `llvm_symbol_name` attribute). They become `.entry`s; all other definitions become
    /// internal so LLVM can inline and drop them.
    pub kernels: Vec<String>,
}

impl Default for EmitOptions {
    fn default() -> Self {
        Self {
            arch: "sm_90".to_string(),
            opt_level: 3,
            kernels: Vec::new(),
        }
    }
}

/// The products of [`emit_ptx`].
#[derive(Clone, Debug)]
pub struct EmitOutput {
    /// The module after the optimisation pipeline.
    pub llvm_ir: String,
    /// The module as translated (and verified), before optimisation.
    pub llvm_ir_unoptimized: String,
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
    let machine = target::target_machine(&opts.arch, opts.opt_level)?;

    let ll = LlContext::create();
    let ll_module = ll.create_module(module.get_symbol_name(ctx).as_ref());
    target::configure_module(&ll_module, &machine);
    translate::translate_module(ctx, module, &ll, &ll_module, &opts.kernels)?;

    let llvm_ir_unoptimized = ll_module.print_to_string().to_string();
    ll_module.verify().map_err(|e| EmitError::Verify {
        message: e.to_string(),
        llvm_ir: llvm_ir_unoptimized.clone(),
    })?;
    tracing::debug!(bytes = llvm_ir_unoptimized.len(), "translated and verified");

    target::optimize(&ll_module, &machine, opts.opt_level)?;
    let llvm_ir = ll_module.print_to_string().to_string();
    let ptx = target::emit_ptx(&ll_module, &machine)?;
    tracing::debug!(bytes = ptx.len(), "emitted PTX");

    Ok(EmitOutput {
        llvm_ir,
        llvm_ir_unoptimized,
        ptx,
    })
}
