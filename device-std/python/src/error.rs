//! [`CallError`]: what a refused or failed call raises in Python, and the exception type
//! `DeviceError`.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::refusal::{Kind, Refusal};

pyo3::create_exception!(
    oxide,
    DeviceError,
    PyValueError,
    "A tensor is not where the kernel runs: host memory, or another device."
);

/// A call's error, raised in Python as the exception it holds.
pub struct CallError(pub PyErr, pub Option<SharedMemory>);

/// The launch refused the dynamic shared memory a `DynShared` array's count asked for: the
/// host's message, which the call completes with the parameter's name (`Call::name_error`).
pub struct SharedMemory(pub String);

impl From<PyErr> for CallError {
    fn from(e: PyErr) -> Self {
        CallError(e, None)
    }
}

impl From<Refusal> for CallError {
    fn from(r: Refusal) -> Self {
        CallError(
            match r.kind {
                Kind::Type => PyTypeError::new_err(r.message),
                Kind::Value => PyValueError::new_err(r.message),
                Kind::Device => DeviceError::new_err(r.message),
            },
            None,
        )
    }
}

/// The host runtime's errors: a launch refused by the kernel's contract (its shape, its
/// arguments' lengths) or by its memory is a `ValueError` (`DeviceError` for memory of
/// another device); a GPU that cannot run it (no driver, no device, a crate without PTX) or a
/// driver failure a `RuntimeError`.
impl From<oxide_host::Error> for CallError {
    fn from(e: oxide_host::Error) -> Self {
        use oxide_host::Error as E;
        let message = e.to_string();
        let shared = matches!(e, E::SharedMemory { .. }).then(|| SharedMemory(message.clone()));
        let err = match e {
            E::LaunchShape(_)
            | E::ArgumentLengths(_)
            | E::Requires(_)
            | E::SharedMemory { .. }
            | E::MisalignedBuffer { .. }
            | E::Shape(_) => PyValueError::new_err(message),
            E::WrongDevice { .. } | E::NotDeviceMemory { .. } | E::ForeignStream { .. } => {
                DeviceError::new_err(message)
            }
            _ => PyRuntimeError::new_err(message),
        };
        CallError(err, shared)
    }
}

impl From<CallError> for PyErr {
    fn from(e: CallError) -> Self {
        e.0
    }
}
