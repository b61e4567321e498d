//! oxide's Pliron dialects and the passes that bring them to pliron-llvm's LLVM dialect.
#![warn(unreachable_pub, rust_2018_idioms)]

pub mod gpu;
pub mod mir;
pub mod passes;
pub mod to_llvm;
mod verify;

pub use passes::{PassError, StageDumps, run_pipeline};
