//! cargo-oxide: builds Rust GPU kernel crates with the oxide codegen backend, runs them, and shows
//! their PTX and every pipeline stage. `cargo oxide <cmd>` in this repository runs it through the
//! alias in `.cargo/config.toml`; docs/contracts.md says what the flags and paths mean.
//!
//! The library is what the binary runs; the tests (package `oxide-tests`) use it too.

pub mod backend;
pub mod build;
pub mod cargo;
pub mod check_port;
pub mod cli;
pub mod doctor;
pub mod driver;
pub mod error;
pub mod inspect;
pub mod json;
pub mod linked;
pub mod new;
pub mod pipeline;
pub mod python;
pub mod run;
pub mod toolchain;
pub mod wheel;

pub use build::{BuildOptions, BuildOutput, build};
pub use error::{Error, Result};
