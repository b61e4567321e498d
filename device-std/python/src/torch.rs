//! A module's kernels as torch custom ops (docs/python.md, "torch.compile and custom ops"):
//! `module.torch_schemas`, each kernel's op schema (computed without torch), and
//! `module.register_torch()`, which registers every kernel with `torch.library.custom_op` as
//! `torch.ops.<module>.<kernel>`, with a fake implementation, and returns `torch.ops.<module>`.
//!
//! Registration is explicit: importing the module never imports torch (the module is used
//! without it, and importing torch takes seconds and initialises CUDA's runtime), and claiming
//! a namespace in torch's dispatcher is a global act its caller should see. It runs once per
//! process; a second call returns the same namespace.
//!
//! The op's implementation is the kernel's checked call (`function::call`), for tensors of
//! every device (`device_types=None`): the boundary refuses a CPU tensor as it does in a direct
//! call, and every other check (dtype, layout, overlap, launch contract) is the same, because
//! it is the same call. Before it, the implementation only converts what torch's calling
//! convention changed: a tuple parameter arrives as a list (`int[]`), and a tensor is
//! detached from autograd (a tensor that requires grad cannot be exported through DLPack, and
//! the op's gradient is not the kernel's business: an autograd formula is the caller's,
//! `torch.autograd.Function` or `register_autograd`). Detaching shares the memory, so the
//! checks see the same bytes.

use std::ffi::CStr;

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCFunction, PyDict, PyList, PyTuple};

use crate::function::{self, Kernel};
use crate::schema::{OpSchema, Param, Params, op_schema};

/// A kernel and its op (or why it has none).
struct Op {
    kernel: Kernel,
    schema: Result<OpSchema, String>,
}

/// Adds `torch_schemas` and `register_torch` to `module`, for `kernels`.
pub fn add(module: &Bound<'_, PyModule>, kernels: &[Kernel]) -> PyResult<()> {
    let py = module.py();
    let namespace = module.name()?.to_string();
    let ops: Vec<Op> = kernels
        .iter()
        .map(|&kernel| Op {
            kernel,
            schema: Params::of(kernel.signature, kernel.params)
                .and_then(|params| op_schema(&namespace, kernel.signature, &params)),
        })
        .collect();
    let schemas = PyDict::new(py);
    for op in &ops {
        if let Ok(schema) = &op.schema {
            schemas.set_item(
                op.kernel.signature.name,
                format!("{}{}", schema.qualname, schema.schema),
            )?;
        }
    }
    module.add("torch_schemas", schemas)?;
    let registered = PyOnceLock::<Py<PyAny>>::new();
    let register = PyCFunction::new_closure(
        py,
        Some(c"register_torch"),
        Some(REGISTER_DOC),
        move |args, _| -> PyResult<Py<PyAny>> {
            let py = args.py();
            registered
                .get_or_try_init(py, || register(py, &namespace, &ops))
                .map(|ns| ns.clone_ref(py))
        },
    )?;
    module.add("register_torch", register)
}

const REGISTER_DOC: &CStr = c"register_torch()
--

Registers each kernel of this module as the torch custom op `torch.ops.<module>.<kernel>` \
(torch.library.custom_op, with a fake implementation, so that torch.compile traces it without \
a graph break), and returns `torch.ops.<module>`. Imports torch; registers once per process.
The op takes the kernel's arguments, then the keyword-only `grid` and `block`; it launches on \
torch's current stream, writes its outputs in place and returns None. The schemas are \
`torch_schemas`.";

/// Registers every op, or none when a kernel cannot be one.
fn register(py: Python<'_>, namespace: &str, ops: &[Op]) -> PyResult<Py<PyAny>> {
    let refused: Vec<&str> = ops
        .iter()
        .filter_map(|op| op.schema.as_ref().err().map(String::as_str))
        .collect();
    if !refused.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "{namespace}.register_torch(): no op was registered: {}",
            refused.join("; ")
        )));
    }
    let torch = py.import("torch")?;
    // An op torch already has under one of these names (another library's, or a kernel of
    // another module of this name) would make `custom_op` fail midway, the ops before it
    // registered and the rest never (a retry fails at the first): refuse before registering any.
    let existing = torch.getattr("ops")?.getattr(namespace)?;
    let mut taken = Vec::new();
    for op in ops {
        if existing.hasattr(op.kernel.signature.name)? {
            taken.push(format!("`{namespace}::{}`", op.kernel.signature.name));
        }
    }
    if !taken.is_empty() {
        return Err(PyRuntimeError::new_err(format!(
            "{namespace}.register_torch(): no op was registered: torch already has an op {}, \
             which this module's kernel of that name would replace: rename the kernel or the \
             module",
            taken.join(", ")
        )));
    }
    let custom_op = torch.getattr("library")?.getattr("custom_op")?;
    for op in ops {
        let Ok(schema) = &op.schema else {
            continue;
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("mutates_args", PyTuple::new(py, &schema.mutates)?)?;
        kwargs.set_item("device_types", py.None())?;
        kwargs.set_item("schema", &schema.schema)?;
        let def = custom_op.call(
            (&schema.qualname, implementation(py, op.kernel, schema)?),
            Some(&kwargs),
        )?;
        // The op writes its outputs in place and returns nothing: under fake tensors there is
        // nothing to compute, and every shape stays the inputs'.
        // `None` spelled out: a closure's `()` is an empty tuple to Python, which torch refuses
        // from an op that returns nothing.
        let fake = PyCFunction::new_closure(py, Some(c"fake"), None, |args, _| args.py().None())?;
        def.call_method1("register_fake", (fake,))?;
    }
    Ok(torch.getattr("ops")?.getattr(namespace)?.unbind())
}

/// The op's implementation: the kernel's checked call, after converting torch's spelling of
/// the arguments to the call's (a list for a tuple, a tensor detached from autograd).
fn implementation<'py>(
    py: Python<'py>,
    kernel: Kernel,
    schema: &OpSchema,
) -> PyResult<Bound<'py, PyCFunction>> {
    let params = schema.params.clone();
    PyCFunction::new_closure(
        py,
        Some(c"implementation"),
        None,
        move |args, kwargs| -> PyResult<Py<PyAny>> {
            let py = args.py();
            let names = kernel.signature.params.iter().map(|p| p.name);
            let args = args
                .iter()
                .zip(&params)
                .map(|(arg, &param)| as_called(arg, param))
                .collect::<PyResult<Vec<_>>>()?;
            let args = PyTuple::new(py, args)?;
            let converted = PyDict::new(py);
            for (key, value) in kwargs.into_iter().flatten() {
                let key_name: String = key.extract()?;
                let value = match names.clone().position(|n| n == key_name) {
                    Some(at) => as_called(value, params[at])?,
                    None => value,
                };
                converted.set_item(key, value)?;
            }
            function::call(kernel.signature, kernel.call, &args, Some(&converted))?;
            Ok(py.None())
        },
    )
}

/// `arg` as the kernel's call takes it for a parameter of kind `param`.
fn as_called(arg: Bound<'_, PyAny>, param: Param) -> PyResult<Bound<'_, PyAny>> {
    match param {
        Param::Tuple(_) if arg.is_instance_of::<PyList>() => {
            Ok(PyTuple::new(arg.py(), arg.cast::<PyList>()?.iter())?.into_any())
        }
        Param::Tensor(_) if arg.hasattr("detach")? => arg.call_method0("detach"),
        _ => Ok(arg),
    }
}
