//! The pass pipeline from the imported `mir`/`gpu` module to the LLVM dialect.

use pliron::{
    builtin::ops::ModuleOp,
    context::Context,
    op::{Op, verify_op},
    opts::mem2reg::mem2reg,
    pass::AnalysisManager,
    printable::Printable,
};

#[derive(thiserror::Error, Debug)]
pub enum PassError {
    #[error("the {stage} module does not verify: {message}")]
    Verify {
        stage: &'static str,
        message: String,
    },
    #[error("pass `{pass}` failed: {message}")]
    Pass { pass: &'static str, message: String },
}

/// What the pipeline printed at each stage, for `cargo oxide pipeline`.
#[derive(Default, Debug, Clone)]
pub struct StageDumps {
    pub mir_dialect: String,
    pub mir_dialect_opt: String,
    pub llvm_dialect: String,
}

/// Verifies, runs `mem2reg` (SSA construction over `mir.slot`s), then converts every `mir` and
/// `gpu` op to the LLVM dialect, verifying after each step.
pub fn run_pipeline(ctx: &mut Context, module: ModuleOp) -> Result<StageDumps, PassError> {
    let _span = tracing::info_span!("dialect_passes").entered();
    let mut dumps = StageDumps {
        mir_dialect: module.get_operation().disp(ctx).to_string(),
        ..StageDumps::default()
    };
    verify(ctx, module, "imported mir")?;

    let mut analyses = AnalysisManager::default();
    mem2reg(module.get_operation(), ctx, &mut analyses).map_err(|e| PassError::Pass {
        pass: "mem2reg",
        message: e.disp(ctx).to_string(),
    })?;
    dumps.mir_dialect_opt = module.get_operation().disp(ctx).to_string();
    verify(ctx, module, "mem2reg'd mir")?;

    pliron_llvm::builtin_to_llvm::convert_builtin_to_llvm(ctx, module).map_err(|e| {
        PassError::Pass {
            pass: "mir-to-llvm",
            message: e.disp(ctx).to_string(),
        }
    })?;
    dumps.llvm_dialect = module.get_operation().disp(ctx).to_string();
    verify(ctx, module, "LLVM dialect")?;
    Ok(dumps)
}

fn verify(ctx: &Context, module: ModuleOp, stage: &'static str) -> Result<(), PassError> {
    verify_op(&module, ctx).map_err(|e| PassError::Verify {
        stage,
        message: e.disp(ctx).to_string(),
    })
}
