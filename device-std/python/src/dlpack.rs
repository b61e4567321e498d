//! Reading a DLPack capsule (`__dlpack__()`'s, named `dltensor`: the unversioned
//! `DLManagedTensor` every producer gives when no `max_version` is asked) as a [`TensorArg`].
//! The capsule is borrowed, not consumed: its name stays `dltensor`, so its producer's
//! destructor frees the `DLManagedTensor` when the capsule is dropped, after the launch.

use std::ffi::{CStr, c_void};

use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods};

use crate::dtype::DType;

use crate::refusal::{ReadError, Refusal};
use crate::tensor::{Device, TensorArg};

/// DLPack's `DLDevice`.
#[repr(C)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

/// DLPack's `DLDataType`.
#[repr(C)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// DLPack's `DLTensor` (the first field of a `DLManagedTensor`).
#[repr(C)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *const i64,
    pub strides: *const i64,
    pub byte_offset: u64,
}

const DLTENSOR: &CStr = c"dltensor";

/// DLPack's device types that are named here.
const DLPACK_CPU: i64 = 1;
const DLPACK_CUDA: i64 = 2;
const DLPACK_CUDA_HOST: i64 = 3;

/// The [`Device`] a DLPack `(device type, id)` names (`__dlpack_device__()`, a `DLTensor`'s
/// `device`): CUDA device memory (`kDLCUDA`), or anything else in words.
pub fn device(kind: i64, id: i64) -> Device {
    match kind {
        DLPACK_CUDA => Device::Cuda(usize::try_from(id).ok()),
        DLPACK_CPU => Device::Other("the CPU".into()),
        DLPACK_CUDA_HOST => Device::Other("pinned host memory (the CPU)".into()),
        other => Device::Other(format!("DLPack device type {other} (not CUDA)")),
    }
}

/// The tensor a `dltensor` capsule describes. `name` is the kernel parameter's, for messages.
pub fn read(capsule: &Bound<'_, PyCapsule>, name: &str) -> Result<TensorArg, ReadError> {
    let pointer = capsule.pointer_checked(Some(DLTENSOR)).map_err(|_| {
        Refusal::type_error(format!(
            "argument `{name}`: its `__dlpack__()` capsule is not an unconsumed `dltensor`"
        ))
    })?;
    // SAFETY: a capsule named `dltensor` holds a `DLManagedTensor` (the DLPack spec), whose
    // first field is the `DLTensor`, alive while the capsule is not consumed; the capsule is
    // borrowed for this call and no Python code runs while the description is read.
    let tensor = unsafe { &*pointer.as_ptr().cast::<DLTensor>() };
    // SAFETY: as above: `shape` and `strides` (when not null) hold `ndim` values each.
    Ok(unsafe { describe(tensor) }.map_err(|why| {
        Refusal::type_error(format!("argument `{name}`: its DLPack tensor is {why}"))
    })?)
}

/// The [`TensorArg`] a `DLTensor` describes.
///
/// # Safety
/// `tensor.shape` points to `tensor.ndim` values, and so does `tensor.strides` unless it is
/// null.
pub unsafe fn describe(tensor: &DLTensor) -> Result<TensorArg, String> {
    let ndim = usize::try_from(tensor.ndim).map_err(|_| "of negative rank".to_owned())?;
    let read = |values: *const i64| -> Vec<i64> {
        if ndim == 0 || values.is_null() {
            return Vec::new();
        }
        // SAFETY: `values` points to `ndim` values (this function's contract).
        unsafe { std::slice::from_raw_parts(values, ndim) }.to_vec()
    };
    let shape = read(tensor.shape)
        .into_iter()
        .map(|d| usize::try_from(d).map_err(|_| format!("of negative size {d}")))
        .collect::<Result<Vec<_>, _>>()?;
    let strides = (!tensor.strides.is_null()).then(|| read(tensor.strides));
    let device = device(
        tensor.device.device_type.into(),
        tensor.device.device_id.into(),
    );
    let address = (tensor.data as u64)
        .checked_add(tensor.byte_offset)
        .ok_or_else(|| "at an address past the end of memory".to_owned())?;
    Ok(TensorArg {
        device,
        dtype: DType::from_dlpack(tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes),
        shape,
        strides,
        address,
        readonly: false,
        stream: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(shape: &[i64], strides: Option<&[i64]>, code: u8, bits: u8) -> DLTensor {
        DLTensor {
            data: 0x7f00_0000_0000usize as *mut c_void,
            device: DLDevice {
                device_type: 2,
                device_id: 1,
            },
            ndim: shape.len() as i32,
            dtype: DLDataType {
                code,
                bits,
                lanes: 1,
            },
            shape: shape.as_ptr(),
            strides: strides.map_or(std::ptr::null(), <[i64]>::as_ptr),
            byte_offset: 64,
        }
    }

    #[test]
    fn dltensors_describe_their_tensor() {
        let shape = [4, 8];
        // SAFETY: shape and strides have ndim values.
        let arg = unsafe { describe(&tensor(&shape, None, 4, 16)) }.unwrap();
        assert_eq!(arg.device, Device::Cuda(Some(1)));
        assert_eq!(arg.dtype, Ok(DType::BF16));
        assert_eq!((arg.shape, arg.strides), (vec![4, 8], None));
        assert_eq!(arg.address, 0x7f00_0000_0040);
        let strides = [1, 4];
        // SAFETY: as above.
        let t = unsafe { describe(&tensor(&shape, Some(&strides), 2, 32)) }.unwrap();
        assert_eq!((t.dtype, t.strides), (Ok(DType::F32), Some(vec![1, 4])));
        let negative = [-1];
        // SAFETY: as above.
        assert!(unsafe { describe(&tensor(&negative, None, 2, 32)) }.is_err());
    }
}
