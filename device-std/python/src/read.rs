//! Reading a Python object as a [`TensorArg`]: a plain CUDA `torch.Tensor` from its attributes
//! (`torch_tensor`); else its device from `__dlpack_device__` when it has one, its description
//! from `__dlpack__` (a DLPack capsule, module `dlpack`) or else from `__cuda_array_interface__`
//! (versions 2 and 3). A numpy array or a CPU tensor is refused by
//! its device, before any pointer is read.

use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyTuple};

use crate::dlpack;
use crate::dtype::DType;
use crate::refusal::{ReadError, Refusal};
use crate::tensor::{Device, TensorArg};
use crate::torch_tensor;

/// The streams of a call, as reading a tensor needs them.
pub trait CallStreams {
    /// The stream the launch on device `ordinal` goes to, passed to `__dlpack__` so that the
    /// producer orders its work before it.
    fn launch(&mut self, ordinal: usize) -> PyResult<usize>;
    /// Whether that stream is PyTorch's current stream of the device (a `torch.Tensor` then
    /// needs no ordering: `torch_tensor`).
    fn is_torch_current(&mut self, ordinal: usize) -> PyResult<bool>;
}

/// A tensor argument read from `obj`, and the capsule its description lives in (kept until the
/// launch is queued). `name` is the kernel parameter's.
pub fn read<'py>(
    obj: &Bound<'py, PyAny>,
    name: &str,
    streams: &mut impl CallStreams,
) -> Result<(TensorArg, Option<Bound<'py, PyCapsule>>), ReadError> {
    if let Some(arg) = torch_tensor::read(obj, |ordinal| streams.is_torch_current(ordinal)) {
        return Ok((arg, None));
    }
    let device = dlpack_device(obj, name)?;
    if let Some(Device::Other(what)) = device {
        // Refused by its device whatever else it has; no pointer is read.
        return Ok((host_arg(Device::Other(what)), None));
    }
    if let (true, Some(Device::Cuda(ordinal))) = (obj.hasattr("__dlpack__")?, &device) {
        // The spec's stream numbers: 1 is the legacy default stream, which a raw 0 means.
        let stream = streams.launch(ordinal.unwrap_or(0))?;
        let stream = if stream == 0 { 1 } else { stream };
        let kwargs = PyDict::new(obj.py());
        kwargs.set_item("stream", stream)?;
        let capsule = obj
            .call_method("__dlpack__", (), Some(&kwargs))
            .map_err(|e| {
                ReadError::Refused(Refusal::type_error(format!(
                    "argument `{name}`: its `__dlpack__()` failed: {e}"
                )))
            })?;
        let capsule = capsule.cast_into::<PyCapsule>().map_err(|_| {
            ReadError::Refused(Refusal::type_error(format!(
                "argument `{name}`: its `__dlpack__()` returned no capsule"
            )))
        })?;
        let arg = dlpack::read(&capsule, name)?;
        return Ok((arg, Some(capsule)));
    }
    if let Ok(interface) = obj.getattr("__cuda_array_interface__") {
        let mut arg = cuda_array_interface(&interface, name)?;
        if let Some(device) = device {
            arg.device = device;
        }
        return Ok((arg, None));
    }
    let what = if obj.hasattr("__array_interface__")? {
        "a host array (it has `__array_interface__`, not `__cuda_array_interface__`)"
    } else {
        "neither a CUDA tensor nor anything with `__cuda_array_interface__` or `__dlpack__`"
    };
    Err(ReadError::Refused(Refusal::type_error(format!(
        "argument `{name}` is {what} ({}): pass a CUDA tensor (`.cuda()`)",
        type_name(obj)
    ))))
}

/// The device `__dlpack_device__()` reports, if the object has it.
fn dlpack_device(obj: &Bound<'_, PyAny>, name: &str) -> Result<Option<Device>, ReadError> {
    if !obj.hasattr("__dlpack_device__")? {
        return Ok(None);
    }
    let (kind, id): (i64, i64) =
        obj.call_method0("__dlpack_device__")?
            .extract()
            .map_err(|_| {
                Refusal::type_error(format!(
                    "argument `{name}`: `__dlpack_device__()` did not return (device type, id)"
                ))
            })?;
    Ok(Some(dlpack::device(kind, id)))
}

/// A description that only its device refuses.
fn host_arg(device: Device) -> TensorArg {
    TensorArg {
        device,
        dtype: Err("unread".into()),
        shape: Vec::new(),
        strides: None,
        address: 0,
        readonly: false,
        stream: None,
    }
}

/// `__cuda_array_interface__` (versions 2 and 3): `shape`, `typestr`, `data` (pointer,
/// read-only), `strides` (in bytes, `None` for C-contiguous), `mask` (must be `None`), and
/// version 3's `stream`.
fn cuda_array_interface(interface: &Bound<'_, PyAny>, name: &str) -> Result<TensorArg, ReadError> {
    let bad = |what: &str| {
        ReadError::Refused(Refusal::type_error(format!(
            "argument `{name}`: its `__cuda_array_interface__` {what}"
        )))
    };
    let dict = interface
        .cast::<PyDict>()
        .map_err(|_| bad("is not a dict"))?;
    let item = |key: &str| -> Result<Option<Bound<'_, PyAny>>, ReadError> {
        Ok(dict.get_item(key)?.filter(|v| !v.is_none()))
    };
    let shape: Vec<usize> = item("shape")?
        .ok_or_else(|| bad("has no `shape`"))?
        .extract()
        .map_err(|_| bad("has a `shape` that is not a tuple of sizes"))?;
    let typestr: String = item("typestr")?
        .ok_or_else(|| bad("has no `typestr`"))?
        .extract()
        .map_err(|_| bad("has a `typestr` that is not a string"))?;
    let data = item("data")?.ok_or_else(|| bad("has no `data`"))?;
    let data = data
        .cast::<PyTuple>()
        .map_err(|_| bad("has a `data` that is not a tuple"))?;
    let (address, readonly): (u64, bool) = data
        .extract()
        .map_err(|_| bad("has a `data` that is not (pointer, read-only)"))?;
    if item("mask")?.is_some() {
        return Err(ReadError::Refused(Refusal::value_error(format!(
            "argument `{name}` is a masked array; kernels take plain arrays: fill it first"
        ))));
    }
    let dtype = DType::from_typestr(&typestr);
    let strides = match item("strides")? {
        None => None,
        Some(strides) => {
            let bytes: Vec<i64> = strides
                .extract()
                .map_err(|_| bad("has `strides` that are not a tuple of integers"))?;
            let size = dtype.as_ref().map_or(1, |d| d.size() as i64);
            if bytes.len() != shape.len() || bytes.iter().any(|b| b % size != 0) {
                return Err(bad(
                    "has `strides` that do not fit its shape and element size",
                ));
            }
            Some(bytes.iter().map(|b| b / size).collect())
        }
    };
    // Version 3's `stream`: `None` (or absent) needs no synchronisation, 1 is the legacy
    // default stream, 2 the per-thread default stream, any other integer a `cudaStream_t`;
    // 0 is disallowed by the spec (it could mean either default stream).
    let stream = match item("stream")? {
        None => None,
        Some(s) => match s.extract::<usize>() {
            Ok(0) => {
                return Err(bad(
                    "has `stream` 0, which the spec disallows (1 is the legacy default \
                     stream, 2 the per-thread default stream)",
                ));
            }
            Ok(stream) => Some(stream),
            Err(_) => return Err(bad("has a `stream` that is not a handle")),
        },
    };
    Ok(TensorArg {
        device: Device::Cuda(None),
        dtype,
        shape,
        strides,
        address,
        readonly,
        stream,
    })
}

/// The object's type name, for messages (`Tensor`, `ndarray`).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}
