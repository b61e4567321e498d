//! The pass pipeline from the imported `mir`/`gpu` module to the LLVM dialect, on pliron's pass
//! manager: it verifies the imported module before the first pass and the module after every
//! pass (`PMConfig`), and the module's text is rendered only when a dump is asked for.

use std::{cell::RefCell, rc::Rc};

use pliron::{
    builtin::ops::ModuleOp,
    context::{Context, Ptr},
    irbuild::dialect_conversion::PassWrapper,
    op::Op,
    operation::Operation,
    opts::mem2reg::Mem2RegPass,
    pass::{AnalysisManager, PMConfig, Pass, PassResult, Passes},
    printable::Printable,
    result::Result,
};
use pliron_llvm::builtin_to_llvm::BuiltinToLLVMConversion;

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

/// The module's text at each stage, for `cargo oxide pipeline`; `None` unless asked for.
#[derive(Default, Debug, Clone)]
pub struct StageDumps {
    pub mir_dialect: Option<String>,
    pub mir_dialect_opt: Option<String>,
    pub llvm_dialect: Option<String>,
}

/// What the stages have done so far, shared with the pass manager (which owns the passes).
#[derive(Default)]
struct Progress {
    /// What the last stage started makes; a module failing to verify after it is its fault.
    current: Option<&'static str>,
    /// A stage whose pass itself failed; the pass manager may then report the verification
    /// failure of the half-rewritten module instead, which would hide the cause.
    failed: Option<(&'static str, String)>,
    /// The module's text after each stage, when dumping.
    dumps: Vec<String>,
}

/// One pass of the pipeline, reporting into [`Progress`]. It is what the pass manager sees as
/// the pass, so the manager's verification runs after it.
struct Stage<P: Pass> {
    name: &'static str,
    /// The module this stage makes, as the errors name it.
    makes: &'static str,
    pass: P,
    dump: bool,
    progress: Rc<RefCell<Progress>>,
}

impl<P: Pass> Pass for Stage<P> {
    fn name(&self) -> &str {
        self.name
    }

    fn run(
        &mut self,
        op: Ptr<Operation>,
        ctx: &mut Context,
        analyses: &mut AnalysisManager,
    ) -> Result<PassResult> {
        self.progress.borrow_mut().current = Some(self.makes);
        let result = self.pass.run(op, ctx, analyses);
        let mut progress = self.progress.borrow_mut();
        match &result {
            Err(e) => progress.failed = Some((self.name, e.disp(ctx).to_string())),
            Ok(_) if self.dump => progress.dumps.push(op.disp(ctx).to_string()),
            Ok(_) => {}
        }
        result
    }
}

const MEM2REG: &str = "mem2reg";
const TO_LLVM: &str = "mir-to-llvm";

fn stage<P: Pass>(
    name: &'static str,
    makes: &'static str,
    pass: P,
    dump: bool,
    progress: &Rc<RefCell<Progress>>,
) -> Stage<P> {
    Stage {
        name,
        makes,
        pass,
        dump,
        progress: progress.clone(),
    }
}

/// Verifies, runs `mem2reg` (SSA construction over `mir.slot`s), then converts every `mir` and
/// `gpu` op to the LLVM dialect, verifying after each step. With `dump`, returns the module's
/// text before and after each pass.
pub fn run_pipeline(
    ctx: &mut Context,
    module: ModuleOp,
    dump: bool,
) -> std::result::Result<StageDumps, PassError> {
    let _span = tracing::info_span!("dialect_passes").entered();
    let mir_dialect = dump.then(|| module.get_operation().disp(ctx).to_string());

    let progress = Rc::new(RefCell::new(Progress::default()));
    let to_llvm = PassWrapper::new(TO_LLVM, BuiltinToLLVMConversion);
    let mut passes = Passes::default();
    passes.add_pass(stage(
        MEM2REG,
        "mem2reg'd mir",
        Mem2RegPass,
        dump,
        &progress,
    ));
    passes.add_pass(stage(TO_LLVM, "LLVM dialect", to_llvm, dump, &progress));

    let mut config = PMConfig {
        verify_after_all: true,
        ..PMConfig::default()
    };
    config.verify_before.insert(MEM2REG.to_string());
    let mut analyses = AnalysisManager::default();
    analyses.set_config(config);

    let outcome = passes.run(module.get_operation(), ctx, &mut analyses);
    let progress = progress.take();
    if let Err(e) = outcome {
        return Err(match progress.failed {
            Some((pass, message)) => PassError::Pass { pass, message },
            None => PassError::Verify {
                stage: progress.current.unwrap_or("imported mir"),
                message: e.disp(ctx).to_string(),
            },
        });
    }
    let mut dumps = progress.dumps.into_iter();
    Ok(StageDumps {
        mir_dialect,
        mir_dialect_opt: dumps.next(),
        llvm_dialect: dumps.next(),
    })
}
