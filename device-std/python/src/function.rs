//! A kernel as a Python function of a module: its name, its docstring (whose first line is
//! its signature, which `inspect.signature` reads), and the call through the kernel's
//! `__foreign`.

use std::ffi::{CStr, CString};

use oxide_host::ForeignSignature;
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyDict, PyTuple};

use crate::call::Call;
use crate::error::{CallError, DeviceError};
use crate::schema::ParamsOf;

/// A kernel's `__foreign`, instantiated for Python's calls.
pub type Foreign = fn(&mut Call) -> Result<(), CallError>;

/// One kernel of a module, as `python_module!` lists it: its `__SIGNATURE`, and its
/// `__foreign` instantiated for Python's calls and for the walk that finds its parameters'
/// kinds (`schema::Params`).
#[derive(Clone, Copy)]
pub struct Kernel {
    pub signature: &'static ForeignSignature,
    pub call: Foreign,
    pub params: ParamsOf,
}

/// Adds the kernel `signature` describes to `module` as a function of its name, which runs
/// `foreign` on each call.
pub fn add_kernel(
    module: &Bound<'_, PyModule>,
    signature: &'static ForeignSignature,
    foreign: Foreign,
) -> PyResult<()> {
    let name = leak(signature.name)?;
    let doc = leak(&docstring(signature))?;
    let function = PyCFunction::new_closure(
        module.py(),
        Some(name),
        Some(doc),
        // `None` spelled out: a closure's `()` would be an empty tuple to Python.
        move |args, kwargs| -> PyResult<Py<PyAny>> {
            call(signature, foreign, args, kwargs)?;
            Ok(args.py().None())
        },
    )?;
    module.add(signature.name, function)
}

/// The checked call of a kernel with Python's `args` and `kwargs`: what its function runs, and
/// its torch op's implementation.
pub fn call(
    signature: &'static ForeignSignature,
    foreign: Foreign,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let mut call = Call::new(signature, args, kwargs)?;
    foreign(&mut call).map_err(|e| call.name_error(e))?;
    Ok(())
}

/// Adds `DeviceError` to `module`.
pub fn add_exceptions(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("DeviceError", module.py().get_type::<DeviceError>())
}

/// A `'static` C string of `text`: a module's functions live as long as the process (a module
/// is initialised once per process), so each kernel's name and docstring are made once.
fn leak(text: &str) -> PyResult<&'static CStr> {
    let text = CString::new(text)
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("a NUL byte in a kernel's name"))?;
    Ok(Box::leak(text.into_boxed_c_str()))
}

/// The docstring: the signature line (`__text_signature__`), then what the call does.
pub fn docstring(signature: &ForeignSignature) -> String {
    let names: Vec<&str> = signature.params.iter().map(|p| p.name).collect();
    let mut doc = format!(
        "{}({}, *, grid=None, block=None, stream=None)\n--\n\n",
        signature.name,
        names.join(", ")
    );
    doc.push_str(&format!(
        "Launches the oxide kernel `{}` on the device of its tensors, on PyTorch's current \
         stream there (or `stream`), and returns without waiting for it.\n\nArguments, as the \
         kernel declares them:\n",
        signature.name
    ));
    for p in signature.params {
        doc.push_str(&format!("    {}: {}\n", p.name, p.ty));
    }
    let options = &signature.options;
    let mut contract = Vec::new();
    if let Some([x, y, z]) = options.block {
        contract.push(format!("block = ({x}, {y}, {z}), the default `block`"));
    }
    if options.grid_1d {
        contract.push("a grid and block of one dimension".to_owned());
    }
    if let Some(n) = options.max_threads {
        contract.push(format!("at most {n} threads a block"));
    }
    for group in signature.same_len {
        contract.push(format!("one length for {}", group.join(", ")));
    }
    if !contract.is_empty() {
        doc.push_str(&format!("\nLaunch contract: {}.\n", contract.join("; ")));
    }
    doc.push_str(
        "\n`grid` and `block` are an int or a tuple of up to three; without `grid`, a \
         one-dimensional block gets one thread per element of the first tensor the kernel \
         writes; without `block`, the kernel's declared block or 256. A tensor the kernel \
         writes may share no memory with any other argument.\n",
    );
    doc
}

#[cfg(test)]
mod tests {
    use oxide_host::ForeignParam;

    use super::*;

    #[test]
    fn the_docstring_starts_with_the_signature() {
        static SIGNATURE: ForeignSignature = ForeignSignature {
            name: "vecadd",
            params: &[
                ForeignParam {
                    name: "a",
                    ty: "&[f32]",
                },
                ForeignParam {
                    name: "c",
                    ty: "DisjointSlice<f32>",
                },
            ],
            options: oxide_contract::KernelOptions {
                strict_float: false,
                grid_1d: true,
                block: None,
                max_threads: None,
                min_blocks_per_sm: None,
                min_sm: None,
            },
            same_len: &[&["a", "c"]],
        };
        let doc = docstring(&SIGNATURE);
        assert!(
            doc.starts_with("vecadd(a, c, *, grid=None, block=None, stream=None)\n--\n\n"),
            "{doc}"
        );
        assert!(doc.contains("    c: DisjointSlice<f32>\n"), "{doc}");
        assert!(doc.contains("one length for a, c"), "{doc}");
    }
}
