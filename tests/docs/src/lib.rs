//! The Rust snippets of docs/porting.md, as doctests: `cargo test -p oxide-docs --doc` compiles
//! every ```rust block of the guide against `oxide` on the host and runs those that have a
//! `main` (on the CPU emulator that `#[kernel]` generates). They do not go through the GPU
//! backend; the kernels of kernels/ that the guide quotes do, in the GPU suite.

#![cfg(doctest)]
#![doc = include_str!("../../../docs/porting.md")]
