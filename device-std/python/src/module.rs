//! A module's kernels together: each as a function (module `function`), the exception
//! `DeviceError`, and the kernels' torch ops (module `torch`). Here rather than in either, so
//! that `torch`, which registers the functions' calls, and `function` do not import each other.

use pyo3::prelude::*;

use crate::function::{Kernel, add_exceptions, add_kernel};

/// Adds each kernel to `module` as a function of its name, the exception `DeviceError`, and
/// the kernels' torch ops (`torch_schemas`, `register_torch`: module `torch`).
pub fn add_kernels(module: &Bound<'_, PyModule>, kernels: &[Kernel]) -> PyResult<()> {
    for kernel in kernels {
        add_kernel(module, kernel.signature, kernel.call)?;
    }
    add_exceptions(module)?;
    crate::torch::add(module, kernels)
}
