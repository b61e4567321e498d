//! The Rust snippets of docs/porting.md and of its sections in docs/porting/, as doctests:
//! `cargo test -p oxide-docs --doc` compiles every ```rust block of the guide against `oxide` on
//! the host and runs those that have a `main` (on the CPU emulator that `#[kernel]` generates).
//! They do not go through the GPU backend; the kernels of kernels/ that the guide quotes do, in
//! the GPU suite.

#![cfg(doctest)]
#![doc = include_str!("../../../docs/porting.md")]

/// Section 2: from CUDA to oxide, construct by construct.
#[doc = include_str!("../../../docs/porting/constructs.md")]
pub mod constructs {}

/// Section 3: writing outputs safely.
#[doc = include_str!("../../../docs/porting/outputs.md")]
pub mod outputs {}

/// Section 4: not supported yet, and the way out.
#[doc = include_str!("../../../docs/porting/unsupported.md")]
pub mod unsupported {}

/// Section 5: worked ports.
#[doc = include_str!("../../../docs/porting/worked-ports.md")]
pub mod worked_ports {}
