//! [`Refusal`]: why a call is refused before anything reaches the GPU, as the Python exception
//! it becomes: `TypeError` for an argument of the wrong kind or dtype, `ValueError` for its
//! shape, layout or overlap, `DeviceError` (a `ValueError`) for memory on the wrong device.

use std::fmt;

use pyo3::PyErr;

/// Which Python exception a refusal raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `TypeError`: not a tensor, the wrong dtype, a scalar of the wrong type.
    Type,
    /// `ValueError`: shape, contiguity, alignment, overlap, read-only memory, launch shape.
    Value,
    /// `DeviceError` (a subclass of `ValueError`): host memory, another device.
    Device,
}

/// A refused call: the exception's kind and its message, which names the argument and says
/// what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: Kind,
    pub message: String,
}

impl Refusal {
    pub fn type_error(message: impl Into<String>) -> Self {
        Refusal {
            kind: Kind::Type,
            message: message.into(),
        }
    }

    pub fn value_error(message: impl Into<String>) -> Self {
        Refusal {
            kind: Kind::Value,
            message: message.into(),
        }
    }

    pub fn device_error(message: impl Into<String>) -> Self {
        Refusal {
            kind: Kind::Device,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why an argument could not be read: a refusal, or a Python error raised by its producer.
pub enum ReadError {
    Refused(Refusal),
    Python(PyErr),
}

impl From<PyErr> for ReadError {
    fn from(e: PyErr) -> Self {
        ReadError::Python(e)
    }
}

impl From<Refusal> for ReadError {
    fn from(r: Refusal) -> Self {
        ReadError::Refused(r)
    }
}
