//! `oxide-python`: oxide kernels as Python functions (PyO3, abi3: one wheel for every CPython
//! from 3.9). A kernel crate exports kernels with `oxide::python_module!(module: k1, k2)`
//! (the `oxide` facade's feature `python`), and `cargo oxide python <crate>` builds the wheel
//! (docs/python.md).
//!
//! A call takes tensors (anything with DLPack or `__cuda_array_interface__`) for slice,
//! output, atomic and matrix parameters and Python numbers for values, and is checked before
//! anything reaches the GPU:
//! - each argument on its own ([`tensor::TensorArg::check`]): CUDA memory, the parameter's
//!   dtype, C-contiguous (a matrix: rows of consecutive elements), writable when the kernel
//!   writes it;
//! - all together ([`tensor::check_together`]): an argument the kernel writes overlaps no
//!   other argument's bytes (the same tensor twice, overlapping views), one device, 16-byte
//!   aligned;
//! - on the GPU: every range is device memory of that device, inside one allocation.
//!
//! It launches through the kernel's own `launch`, on PyTorch's current stream of the device
//! (or `stream=`), in the device's primary context (PyTorch's), and puts the thread's current
//! context back. Refusals raise `TypeError`, `ValueError` or `DeviceError` (a `ValueError`),
//! naming the argument by its Rust parameter name.

mod call;
mod config;
mod device;
mod dlpack;
pub mod dtype;
mod error;
mod function;
mod module;
mod param_kind;
mod read;
pub mod refusal;
mod schema;
pub mod tensor;
mod torch;
mod torch_tensor;

pub use call::{Call, Scalar, SliceElement};
pub use error::{CallError, DeviceError};
pub use function::{Foreign, Kernel, add_exceptions, add_kernel, docstring};
pub use module::add_kernels;
pub use pyo3;
pub use schema::{Params, ParamsOf, Stop};
