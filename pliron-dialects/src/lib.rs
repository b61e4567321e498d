//! oxide's Pliron dialects and the passes that bring them to pliron-llvm's LLVM dialect, and
//! [`param_attrs`], the one extension of that dialect the backend writes and llvm-emit reads.
#![warn(unreachable_pub, rust_2018_idioms)]

pub mod gpu;
pub mod mir;
pub mod param_attrs;
pub mod passes;
pub mod to_llvm;
mod verify;

pub use passes::{PassError, StageDumps, run_pipeline};
