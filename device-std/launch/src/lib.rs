//! `oxide-launch`: what a launch is, wherever it goes (the GPU, through oxide-host, or the CPU
//! emulator, oxide-emulator): its shape ([`LaunchConfig`], checked against the hardware's
//! limits), its kernel's contract ([`contract`]: every check made before anything runs), the
//! shaped buffers a 2-D or pairs output is passed as ([`Rows`], [`Pairs`], [`Wave`]) and a 2-D
//! input ([`MatrixShape`]), and what
//! an emulated launch fails with ([`KernelFailure`]). The GPU launcher and the emulator both
//! depend on it, and not on each other.

pub mod config;
pub mod contract;
mod failure;
mod matrix;
mod shape;

pub use config::{
    LaunchConfig, LaunchConfigError, LaunchShapeError, MAX_DYNAMIC_SHARED_MEM_BYTES,
    SHARED_MEM_BYTES_WITHOUT_OPT_IN,
};
pub use failure::{FailureKind, KernelFailure};
pub use matrix::{MatrixShape, MatrixStorage};
pub use shape::{Pairs, RowShape, RowStorage, Rows, ShapeError, ShapedStorage, Wave};
