//! The oxide rustc codegen backend.
//!
//! Host code goes to `rustc_codegen_llvm` unchanged. Before that, `device` finds the crate's
//! kernels, imports their MIR call graph into Pliron (`import`), runs the dialect passes
//! (oxide-dialects), emits PTX in process (oxide-llvm-emit), and `embed` adds the PTX to the
//! crate's objects so the host binary carries it.
//!
//! The modules stand on floors, each importing only modules below it (`floor_plan` checks it):
//! the error kinds, settings and mark keywords; the registry (what definitions mean, with its
//! vocabulary and the check of every mark where written) and `ice`; `mir_util`; the uniformity
//! analysis; the importer; the recursion check; `device`, which runs them for one crate;
//! `embed`; this file.
#![feature(rustc_private)]
// The unit test that every mark keyword has exactly one entry counts the keywords.
#![cfg_attr(test, feature(variant_count))]
#![warn(unreachable_pub, rust_2018_idioms)]

extern crate rustc_abi;
extern crate rustc_ast;
extern crate rustc_codegen_llvm;
extern crate rustc_codegen_ssa;
extern crate rustc_const_eval;
extern crate rustc_data_structures;
// The code of every rustc_* crate lives in librustc_driver; naming it links it.
#[allow(unused_extern_crates)]
extern crate rustc_driver;
extern crate rustc_hir;
extern crate rustc_index;
extern crate rustc_metadata;
extern crate rustc_middle;
extern crate rustc_session;
extern crate rustc_span;

mod config;
mod device;
mod embed;
mod error;
// The module graph's floors, checked (no module imports one above it).
#[cfg(test)]
mod floor_plan;
mod ice;
mod import;
mod marks;
mod mir_util;
mod recursion;
mod registry;
mod uniformity;

use std::any::Any;

use rustc_codegen_ssa::{CompiledModules, CrateInfo, TargetConfig, traits::CodegenBackend};
use rustc_data_structures::fx::FxIndexMap;
use rustc_metadata::EncodedMetadata;
use rustc_middle::{
    dep_graph::{WorkProduct, WorkProductId},
    ty::TyCtxt,
    util::Providers,
};
use rustc_session::{Session, config::OutputFilenames};

struct OxideBackend {
    llvm: Box<dyn CodegenBackend>,
}

/// The host's ongoing codegen plus the PTX image to link in beside it.
struct OxideOngoing {
    host: Box<dyn Any>,
    ptx: Option<device::PtxImage>,
}

impl CodegenBackend for OxideBackend {
    fn name(&self) -> &'static str {
        "oxide"
    }

    fn init(&self, sess: &Session) {
        self.llvm.init(sess)
    }

    fn print(&self, req: &rustc_session::config::PrintRequest, out: &mut String, sess: &Session) {
        self.llvm.print(req, out, sess)
    }

    fn target_config(&self, sess: &Session) -> TargetConfig {
        self.llvm.target_config(sess)
    }

    fn print_passes(&self) {
        self.llvm.print_passes()
    }

    fn print_version(&self) {
        self.llvm.print_version()
    }

    fn replaced_intrinsics(&self) -> Vec<rustc_span::Symbol> {
        self.llvm.replaced_intrinsics()
    }

    fn has_zstd(&self) -> bool {
        self.llvm.has_zstd()
    }

    fn provide(&self, providers: &mut Providers) {
        self.llvm.provide(providers)
    }

    fn target_cpu(&self, sess: &Session) -> String {
        self.llvm.target_cpu(sess)
    }

    fn codegen_crate<'tcx>(&self, tcx: TyCtxt<'tcx>) -> Box<dyn Any> {
        let ptx = device::compile_kernels(tcx);
        Box::new(OxideOngoing {
            host: self.llvm.codegen_crate(tcx),
            ptx,
        })
    }

    fn join_codegen(
        &self,
        ongoing: Box<dyn Any>,
        sess: &Session,
        outputs: &OutputFilenames,
        crate_info: &CrateInfo,
    ) -> (CompiledModules, FxIndexMap<WorkProductId, WorkProduct>) {
        let ongoing = ongoing
            .downcast::<OxideOngoing>()
            .expect("oxide's own ongoing codegen");
        let (mut modules, work_products) =
            self.llvm
                .join_codegen(ongoing.host, sess, outputs, crate_info);
        if let Some(ptx) = ongoing.ptx {
            match embed::ptx_object(sess, outputs, &ptx) {
                Ok(module) => modules.modules.push(module),
                Err(e) => {
                    sess.dcx().err(format!(
                        "oxide: could not embed the PTX of `{}`: {e}",
                        ptx.crate_name
                    ));
                }
            }
        }
        (modules, work_products)
    }

    fn print_pass_timings(&self) {
        self.llvm.print_pass_timings()
    }

    fn print_statistics(&self) {
        self.llvm.print_statistics()
    }

    fn link(
        &self,
        sess: &Session,
        compiled_modules: CompiledModules,
        crate_info: CrateInfo,
        metadata: EncodedMetadata,
        outputs: &OutputFilenames,
    ) {
        self.llvm
            .link(sess, compiled_modules, crate_info, metadata, outputs)
    }
}

/// The entry point rustc looks up in a `-Zcodegen-backend` library.
#[unsafe(no_mangle)]
pub fn __rustc_codegen_backend() -> Box<dyn CodegenBackend> {
    Box::new(OxideBackend {
        llvm: rustc_codegen_llvm::LlvmCodegenBackend::new(),
    })
}
