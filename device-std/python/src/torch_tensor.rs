//! A plain `torch.Tensor` read from its own attributes, without DLPack: the common case of a
//! call from PyTorch, without what `__dlpack__` does for every tensor of every call (a capsule
//! and, given a stream, Python-side stream objects: docs/python.md, "What a call costs", where
//! what each path costs is to be measured).
//!
//! Only where the result is what `__dlpack__` would describe, and the launch needs none of its
//! ordering: an exact `torch.Tensor` (a subclass may redefine what its attributes mean: those,
//! `Parameter`s included, take DLPack), on a CUDA device, strided, without the negative bit
//! (a view whose elements are the negation of its memory), without `requires_grad` (DLPack
//! refuses those), of an element type a kernel takes, launched on PyTorch's current stream of
//! its device (where `__dlpack__(stream)` orders nothing). Anything else returns `None` and
//! goes through DLPack, whose checks and messages then apply unchanged; so does a tensor whose
//! attributes raise (a functorch wrapper without storage).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;
use pyo3::types::PyType;

use crate::dtype::DType;
use crate::tensor::{Device, TensorArg};

/// What the fast path compares with, read from the `torch` module once.
struct Torch {
    tensor: Py<PyType>,
    strided: Py<PyAny>,
    /// Each element type a kernel takes as PyTorch's dtype object (`torch.bfloat16`); dtypes
    /// this PyTorch lacks are left out.
    dtypes: Vec<(Py<PyAny>, DType)>,
}

static TORCH: PyOnceLock<Torch> = PyOnceLock::new();

/// The `torch` module when this process has imported it (never imported here: a call from a
/// program without PyTorch does not load it).
pub fn imported(py: Python<'_>) -> PyResult<Option<Bound<'_, PyAny>>> {
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    Ok(modules
        .get_item(intern!(py, "torch"))
        .ok()
        .filter(|t| !t.is_none()))
}

/// The torch module's objects, once PyTorch is imported; `None` before (no object can then
/// be a `torch.Tensor`).
fn torch(py: Python<'_>) -> PyResult<Option<&Torch>> {
    if let Some(torch) = TORCH.get(py) {
        return Ok(Some(torch));
    }
    let Some(module) = imported(py)? else {
        return Ok(None);
    };
    let dtypes = DType::ALL
        .iter()
        .filter_map(|&d| Some((module.getattr(d.torch_name()).ok()?.unbind(), d)))
        .collect();
    let torch = Torch {
        tensor: module
            .getattr(intern!(py, "Tensor"))?
            .cast_into::<PyType>()?
            .unbind(),
        strided: module.getattr(intern!(py, "strided"))?.unbind(),
        dtypes,
    };
    Ok(Some(TORCH.get_or_init(py, || torch)))
}

/// `obj` as a [`TensorArg`] when it is a plain CUDA `torch.Tensor` that needs no DLPack (see the
/// module) and `on_current_stream(device)` says the launch goes to PyTorch's current stream of
/// its device; else `None`.
pub fn read(
    obj: &Bound<'_, PyAny>,
    on_current_stream: impl FnOnce(usize) -> PyResult<bool>,
) -> Option<TensorArg> {
    read_attributes(obj, on_current_stream).ok().flatten()
}

fn read_attributes<'py>(
    obj: &Bound<'py, PyAny>,
    on_current_stream: impl FnOnce(usize) -> PyResult<bool>,
) -> PyResult<Option<TensorArg>> {
    let py = obj.py();
    let Some(torch) = torch(py)? else {
        return Ok(None);
    };
    if !obj.get_type().is(torch.tensor.bind(py)) {
        return Ok(None);
    }
    // Properties are read from the tensor (torch's are data descriptors, which an instance
    // attribute cannot shadow); methods as the type's, called on it, so that an attribute set
    // on the instance (`t.data_ptr = ...`) is not what describes its memory.
    let flag = |name: &Bound<'_, PyString>| obj.getattr(name)?.is_truthy();
    let tensor = torch.tensor.bind(py);
    let method = |name: &Bound<'py, PyString>| -> PyResult<Bound<'py, PyAny>> {
        tensor.getattr(name)?.call1((obj,))
    };
    if !flag(intern!(py, "is_cuda"))?
        || flag(intern!(py, "requires_grad"))?
        || method(intern!(py, "is_neg"))?.is_truthy()?
        || !obj
            .getattr(intern!(py, "layout"))?
            .is(torch.strided.bind(py))
    {
        return Ok(None);
    }
    let dtype = obj.getattr(intern!(py, "dtype"))?;
    let Some(&(_, dtype)) = torch.dtypes.iter().find(|(d, _)| dtype.is(d.bind(py))) else {
        return Ok(None);
    };
    let ordinal: usize = method(intern!(py, "get_device"))?.extract()?;
    if !on_current_stream(ordinal)? {
        return Ok(None);
    }
    Ok(Some(TensorArg {
        device: Device::Cuda(Some(ordinal)),
        dtype: Ok(dtype),
        shape: obj.getattr(intern!(py, "shape"))?.extract()?,
        strides: Some(method(intern!(py, "stride"))?.extract()?),
        address: method(intern!(py, "data_ptr"))?.extract()?,
        readonly: false,
        stream: None,
    }))
}
