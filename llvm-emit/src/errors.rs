//! The error type of this crate.
//!
//! Errors about a particular op carry the op as pliron prints it, so a failure in a large
//! module can be traced back to the LLVM-dialect text (`4-llvm-dialect.txt` in a dump).

use pliron::{
    builtin::op_interfaces::SymbolOpInterface,
    context::{Context, Ptr},
    operation::Operation,
    printable::Printable,
};
use pliron_llvm::ops::{FuncOp, GlobalOp};

/// Why [`crate::emit_ptx`] failed.
#[derive(thiserror::Error, Debug)]
pub enum EmitError {
    /// The op has no translation here: an op of another dialect, or an LLVM-dialect op this
    /// crate does not translate. Producers lower everything to the ops `dispatch.rs` lists, so
    /// this is an internal error of the producer, never something a kernel author can cause.
    #[error("internal error: no LLVM translation for {op}")]
    UnsupportedOp { op: String },

    /// A type (of an operand, result, block argument or signature) has no LLVM equivalent here.
    #[error("unsupported type {ty} in {op}")]
    UnsupportedType { ty: String, op: String },

    /// The op is supported but malformed: a missing attribute, an operand of the wrong kind,
    /// an unknown callee or intrinsic, a use before definition, ...
    #[error("cannot translate {op}: {reason}")]
    InvalidOp { op: String, reason: String },

    /// inkwell refused to build an instruction for the op.
    #[error("LLVM builder failed on {op}: {message}")]
    Builder { op: String, message: String },

    /// A name in [`crate::EmitOptions::kernels`] is not an `llvm.func` definition in the module.
    #[error("kernel `{0}` is not defined in the module")]
    UnknownKernel(String),

    /// A kernel calls a libdevice function (`f32::sin`...) and no libdevice was given.
    #[error(
        "the kernels use math functions from NVIDIA's libdevice, which was not found: install the pip wheel nvidia-nvvm==13.0.88 (ci/setup.sh does) or set OXIDE_LIBDEVICE to libdevice.10.bc"
    )]
    NoLibdevice,

    /// libdevice could not be read or linked.
    #[error("cannot link libdevice `{path}`: {message}")]
    Libdevice { path: String, message: String },

    /// The options are out of range (e.g. `opt_level > 3`).
    #[error("invalid emit options: {0}")]
    InvalidOptions(String),

    /// LLVM's verifier rejected the translated module. `llvm_ir` is the module as built, so the
    /// message's line references can be looked up.
    #[error("LLVM verifier rejected the module: {message}")]
    Verify { message: String, llvm_ir: String },

    /// The NVPTX target could not be set up (missing from this libLLVM).
    #[error("NVPTX target setup failed: {0}")]
    Target(String),

    /// The optimisation pipeline failed.
    #[error("LLVM pass pipeline `{pipeline}` failed: {message}")]
    Passes { pipeline: String, message: String },

    /// The NVPTX backend failed to produce PTX.
    #[error("PTX code generation failed: {0}")]
    Codegen(String),
}

/// The op as pliron prints it; functions and globals print as just their name and type, since
/// a whole function body or data table is rarely what a reader of an error wants.
pub(crate) fn op_text(ctx: &Context, opr: Ptr<Operation>) -> String {
    if let Some(func) = Operation::get_op::<FuncOp>(opr, ctx) {
        let name = func.get_symbol_name(ctx);
        return format!("llvm.func @{name}: {}", func.get_type(ctx).disp(ctx));
    }
    if let Some(global) = Operation::get_op::<GlobalOp>(opr, ctx) {
        let name = global.get_symbol_name(ctx);
        let ty = global
            .get_attr_llvm_global_type(ctx)
            .map(|t| t.disp(ctx).to_string())
            .unwrap_or_else(|| "(no type)".to_string());
        return format!("llvm.global @{name}: {ty}");
    }
    if opr.deref(ctx).num_regions() > 0 {
        return format!("{} (an op with regions)", Operation::get_opid(opr, ctx));
    }
    opr.disp(ctx).to_string()
}

/// Shorthand constructors used by the translation modules.
impl EmitError {
    pub(crate) fn unsupported(ctx: &Context, opr: Ptr<Operation>) -> Self {
        EmitError::UnsupportedOp {
            op: op_text(ctx, opr),
        }
    }

    pub(crate) fn invalid(ctx: &Context, opr: Ptr<Operation>, reason: impl Into<String>) -> Self {
        EmitError::InvalidOp {
            op: op_text(ctx, opr),
            reason: reason.into(),
        }
    }

    pub(crate) fn builder(ctx: &Context, opr: Ptr<Operation>, err: impl std::fmt::Display) -> Self {
        EmitError::Builder {
            op: op_text(ctx, opr),
            message: err.to_string(),
        }
    }
}
