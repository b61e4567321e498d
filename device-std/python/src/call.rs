//! [`Call`]: one Python call of a kernel, as the kernel's `__foreign` function drives it
//! (oxide-host's `ForeignCall` and `ForeignArg`): each argument read and checked on its own
//! (`describe`), then all together and on the GPU (`prepare`), then lent to the launch as
//! foreign views (`arg`). Nothing reaches the GPU before every argument passed its own checks
//! and the checks across them.

use std::sync::Arc;

use oxide_host::{
    ForeignCall, ForeignSignature, ForeignView, ForeignViewMut, Gpu, LaunchConfig, Stream,
};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyTuple};

use crate::config::{self, Role, Shape};
use crate::device::{self, RestoreContext};
use crate::dtype::DType;
use crate::error::{CallError, SharedMemory};
use crate::param_kind::{Number, Param, SchemaArg};
use crate::read;
use crate::refusal::{ReadError, Refusal};
use crate::tensor::{self, Checked, Expect, Layout, TensorArg};

/// One call of a kernel from Python.
pub struct Call {
    /// First, so that it is dropped first: the thread's context is put back before the
    /// arguments and capsules are released (whose release may run Python code).
    launch: Option<Launching>,
    signature: &'static ForeignSignature,
    /// The argument of each parameter, in the kernel's order.
    args: Vec<Py<PyAny>>,
    grid: Option<Shape>,
    block: Option<Shape>,
    /// `stream=`, as a raw handle.
    stream: Option<usize>,
    /// The stream the launch goes to on each device asked about so far, read once per device
    /// (`stream=`, else PyTorch's current stream): the stream a DLPack producer is told to order
    /// its work before (`__dlpack__(stream=...)`) is the stream the kernel is launched on, even
    /// if Python code run while reading the arguments changes PyTorch's current stream.
    streams: Vec<(usize, usize)>,
    described: Vec<Option<Described>>,
    /// The `DynShared` array's count parameter, once read.
    shared_len: Option<usize>,
}

/// An argument that passed its own checks.
enum Described {
    Tensor {
        arg: Box<TensorArg>,
        checked: Checked,
        role: Role,
        /// The DLPack capsule the description came from, kept until the launch is queued.
        _capsule: Option<Py<PyCapsule>>,
    },
    /// A value's bits (its type is the parameter's: `arg` reads it back as that type).
    Scalar(u64),
    /// A tuple's values' bits, in order.
    Tuple(Vec<u64>),
}

/// A call's streams while one of its tensors is read.
struct Streams<'c, 'py> {
    call: &'c mut Call,
    py: Python<'py>,
}

impl read::CallStreams for Streams<'_, '_> {
    fn launch(&mut self, ordinal: usize) -> PyResult<usize> {
        self.call.launch_stream(self.py, ordinal)
    }

    fn is_torch_current(&mut self, ordinal: usize) -> PyResult<bool> {
        self.call.launches_on_torch_current(self.py, ordinal)
    }
}

/// What `prepare` opened.
struct Launching {
    stream: Arc<Stream>,
    config: LaunchConfig,
    _restore: RestoreContext,
}

impl Call {
    /// The call of `signature`'s kernel with Python's `args` and `kwargs`: each parameter by
    /// position or by name, then the keyword-only `grid`, `block` and `stream`.
    pub fn new(
        signature: &'static ForeignSignature,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> Result<Call, CallError> {
        let params = signature.params;
        let kernel = signature.name;
        if args.len() > params.len() {
            return Err(Refusal::type_error(format!(
                "{kernel}() takes {} arguments ({}) and was given {} positionally; `grid`, \
                 `block` and `stream` are keyword arguments",
                params.len(),
                names(signature),
                args.len()
            ))
            .into());
        }
        let mut given: Vec<Option<Py<PyAny>>> = args.iter().map(|a| Some(a.unbind())).collect();
        given.resize_with(params.len(), || None);
        let (mut grid, mut block, mut stream) = (None, None, None);
        for (key, value) in kwargs.into_iter().flatten() {
            let key: String = key.extract()?;
            match key.as_str() {
                "grid" => grid = config::shape(&value, "grid")?,
                "block" => block = config::shape(&value, "block")?,
                "stream" => stream = config::stream(&value)?,
                name => {
                    let Some(at) = params.iter().position(|p| p.name == name) else {
                        return Err(Refusal::type_error(format!(
                            "{kernel}() has no argument `{name}`; its arguments are {}, and \
                             the keyword arguments `grid`, `block` and `stream`",
                            names(signature)
                        ))
                        .into());
                    };
                    if given[at].is_some() {
                        return Err(Refusal::type_error(format!(
                            "{kernel}() was given argument `{name}` twice"
                        ))
                        .into());
                    }
                    given[at] = Some(value.unbind());
                }
            }
        }
        let args = given
            .into_iter()
            .zip(params)
            .map(|(arg, p)| {
                arg.ok_or_else(|| {
                    Refusal::type_error(format!("{kernel}() is missing argument `{}`", p.name))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Call {
            signature,
            described: args.iter().map(|_| None).collect(),
            args,
            grid,
            block,
            stream,
            streams: Vec::new(),
            launch: None,
            shared_len: None,
        })
    }

    /// `e` as the call raises it: a launch that refused the dynamic shared memory the
    /// `DynShared` array's count asked for names that argument.
    pub fn name_error(&self, e: CallError) -> CallError {
        match (&e.1, self.shared_len) {
            (Some(SharedMemory(why)), Some(index)) => {
                let param = self.signature.params[index];
                let (name, ty) = (param.name, param.ty);
                let count = match &self.described[index] {
                    Some(Described::Scalar(bits)) => *bits,
                    _ => 0,
                };
                CallError::from(Refusal::value_error(format!(
                    "argument `{name}` asks for {count} elements of the kernel's `{name}: {ty}`, \
                     and the GPU refused it: {why}: pass a smaller `{name}`"
                )))
            }
            _ => e,
        }
    }

    /// Reads and checks tensor argument `index` against what its parameter takes.
    fn describe_tensor(
        &mut self,
        index: usize,
        dtype: DType,
        role: Role,
        layout: Layout,
    ) -> Result<(), CallError> {
        let param = self.signature.params[index];
        let expect = Expect {
            name: param.name,
            ty: param.ty,
            dtype,
            writes: role.writes(),
            layout,
        };
        let described = Python::attach(|py| {
            let obj = self.args[index].clone_ref(py);
            let mut streams = Streams { call: self, py };
            let (arg, capsule) =
                read::read(obj.bind(py), param.name, &mut streams).map_err(|e| match e {
                    ReadError::Refused(r) => CallError::from(r),
                    ReadError::Python(e) => CallError::from(e),
                })?;
            let checked = arg.check(&expect)?;
            Ok::<_, CallError>(Described::Tensor {
                arg: Box::new(arg),
                checked,
                role,
                _capsule: capsule.map(Bound::unbind),
            })
        })?;
        self.described[index] = Some(described);
        Ok(())
    }

    /// The tensor arguments described so far: `(name, checked, role)`, in the kernel's order.
    fn tensors(&self) -> Vec<(&'static str, &Checked, Role)> {
        self.described
            .iter()
            .zip(self.signature.params)
            .filter_map(|(d, p)| match d {
                Some(Described::Tensor { checked, role, .. }) => Some((p.name, checked, *role)),
                _ => None,
            })
            .collect()
    }

    /// The stream the launch goes to on device `ordinal`: `stream=`, else PyTorch's current
    /// stream there, read the first time it is asked for and the same for the rest of the call.
    fn launch_stream(&mut self, py: Python<'_>, ordinal: usize) -> PyResult<usize> {
        if let Some(stream) = self.stream {
            return Ok(stream);
        }
        if let Some(&(_, stream)) = self.streams.iter().find(|(o, _)| *o == ordinal) {
            return Ok(stream);
        }
        let stream = device::default_stream(py, ordinal)?;
        self.streams.push((ordinal, stream));
        Ok(stream)
    }

    /// Whether the launch on device `ordinal` goes to PyTorch's current stream there: always
    /// without `stream=`, else where `stream=` names that stream. Without `stream=` the launch
    /// stream is read (and kept) here, at the first tensor read without DLPack's ordering, as
    /// it is for a producer: Python code run while later arguments are read (a property, a
    /// `__dlpack__`) may change torch's current stream, and the launch must go to the one this
    /// tensor was read as ordered on.
    fn launches_on_torch_current(&mut self, py: Python<'_>, ordinal: usize) -> PyResult<bool> {
        match self.stream {
            None => self.launch_stream(py, ordinal).map(|_| true),
            Some(stream) => Ok(stream == device::default_stream(py, ordinal)?),
        }
    }

    /// Reads scalar argument `index` as a `T`.
    fn describe_scalar<T: Scalar>(&mut self, index: usize) -> Result<(), CallError> {
        let param = self.signature.params[index];
        let bits =
            Python::attach(|py| T::from_py(self.args[index].bind(py), param.name, param.ty))?;
        self.described[index] = Some(Described::Scalar(bits.to_bits()));
        Ok(())
    }

    /// Tensor argument `index`'s address and element count, once prepared.
    fn tensor(&self, index: usize) -> Result<(&Gpu, &Checked), CallError> {
        match (&self.launch, &self.described[index]) {
            (Some(launching), Some(Described::Tensor { checked, .. })) => {
                Ok((&launching.stream, checked))
            }
            _ => Err(not_prepared(self.signature.name)),
        }
    }

    /// Reads tuple argument `index`: a Python tuple of `N` numbers, each read as its element's
    /// [`Scalar`] type by `read(position, item)` (which range-checks it).
    fn describe_tuple<const N: usize>(
        &mut self,
        index: usize,
        read: impl Fn(usize, &Bound<'_, PyAny>, &str) -> Result<u64, Refusal>,
    ) -> Result<(), CallError> {
        let param = self.signature.params[index];
        let (name, ty) = (param.name, param.ty);
        let bits = Python::attach(|py| {
            let obj = self.args[index].bind(py);
            let Ok(tuple) = obj.cast::<PyTuple>() else {
                return Err(Refusal::type_error(format!(
                    "argument `{name}` is a {}, and the kernel's parameter `{name}: {ty}` takes \
                     a tuple of {N} numbers",
                    read::type_name(obj)
                )));
            };
            if tuple.len() != N {
                return Err(Refusal::type_error(format!(
                    "argument `{name}` is a tuple of {} items, and the kernel's parameter \
                     `{name}: {ty}` takes a tuple of {N} numbers",
                    tuple.len()
                )));
            }
            tuple
                .iter()
                .enumerate()
                .map(|(i, item)| read(i, &item, &format!("{name}[{i}]")))
                .collect::<Result<Vec<u64>, Refusal>>()
        })?;
        self.described[index] = Some(Described::Tuple(bits));
        Ok(())
    }

    fn tuple(&self, index: usize) -> Result<&[u64], CallError> {
        match &self.described[index] {
            Some(Described::Tuple(bits)) => Ok(bits),
            _ => Err(not_prepared(self.signature.name)),
        }
    }

    fn scalar<T: Scalar>(&self, index: usize) -> Result<T, CallError> {
        match &self.described[index] {
            Some(Described::Scalar(bits)) => Ok(T::from_bits(*bits)),
            _ => Err(not_prepared(self.signature.name)),
        }
    }
}

/// A launch argument asked for out of order: a bug of the generated `__foreign`, never the
/// caller's.
fn not_prepared(kernel: &str) -> CallError {
    CallError::from(Refusal::type_error(format!(
        "internal error: {kernel}'s arguments were asked for before they were checked"
    )))
}

fn names(signature: &ForeignSignature) -> String {
    let names: Vec<String> = signature
        .params
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect();
    names.join(", ")
}

impl ForeignCall for Call {
    type Error = CallError;

    fn prepare(&mut self) -> Result<(), CallError> {
        let tensors = self.tensors();
        let written: Vec<_> = tensors
            .iter()
            .map(|&(n, c, r)| (n, c, r.writes()))
            .collect();
        let named = tensor::check_together(&written)?;
        drop(written);
        let config = config::launch_config(self.signature, self.grid, self.block, &tensors)?;
        drop(tensors);
        let (ordinal, stream) = Python::attach(|py| -> PyResult<_> {
            let ordinal = match named {
                Some(ordinal) => ordinal,
                None => device::default_device(py)?,
            };
            Ok((ordinal, self.launch_stream(py, ordinal)?))
        })?;
        // Before anything below makes the device's context current (opening it, borrowing the
        // stream): the context to put back when the call ends, on every path.
        let restore = RestoreContext::save();
        let ranges: Vec<_> = self
            .tensors()
            .into_iter()
            .map(|(name, checked, _)| (name, checked.bytes.clone()))
            .collect();
        device::check_memory(ordinal, &ranges)?;
        let handle = device::stream_handle(ordinal, stream)?;
        // The streams the producers (`__cuda_array_interface__` v3) last queued work on,
        // which the launch waits for.
        for described in self.described.iter().flatten() {
            if let Described::Tensor { arg, .. } = described
                && let Some(producer) = arg.stream
                && producer != stream
            {
                let producer = device::stream_handle(ordinal, producer)?;
                let event = producer.record_event()?;
                handle.wait_event(&event)?;
            }
        }
        self.launch = Some(Launching {
            stream: handle,
            config,
            _restore: restore,
        });
        Ok(())
    }

    fn gpu(&self) -> Result<&Gpu, CallError> {
        match &self.launch {
            Some(launching) => Ok(&launching.stream),
            None => Err(not_prepared(self.signature.name)),
        }
    }

    fn config(&self) -> Result<LaunchConfig, CallError> {
        match &self.launch {
            Some(launching) => Ok(launching.config),
            None => Err(not_prepared(self.signature.name)),
        }
    }

    /// A Python `int`, range-checked as a `usize`; its bytes are checked against the device's
    /// limit by the kernel's `launch`, as from Rust.
    fn describe_shared_len(&mut self, index: usize) -> Result<(), CallError> {
        self.shared_len = Some(index);
        self.describe_scalar::<usize>(index)
    }

    fn shared_len(&self, index: usize) -> Result<usize, CallError> {
        self.scalar(index)
    }
}

/// What a `&[E]` parameter takes: a read-only view of plain elements, or a writable one of an
/// atomic's plain values.
///
/// Sealed (as [`crate::dtype::Element`]): the overlap check trusts `WRITES`, and `arg` sizes
/// the view by `DTYPE`, so only the impls below, whose atomics write and whose views are one
/// element of `DTYPE` each, may exist.
pub trait SliceElement: Sized + crate::dtype::sealed::Sealed {
    const DTYPE: DType;
    const WRITES: bool;
    type View<'c>: oxide_host::LaunchArg<[Self]>;

    /// # Safety
    /// As `ForeignView::new` (`ForeignViewMut::new` for an atomic).
    unsafe fn view<'c>(
        gpu: &Gpu,
        address: u64,
        len: usize,
    ) -> Result<Self::View<'c>, oxide_host::Error>;
}

/// `SliceElement` for element types `$e` viewed as `$t`s through `$view` (made by
/// `$view::new`): plain elements read-only, atomics writable over their plain values (of the
/// same size, asserted).
macro_rules! slice_element {
    ($writes:literal, $view:ident: $($e:ty => $t:ty),*) => {$(
        const _: () = assert!(size_of::<$e>() == size_of::<$t>());
        impl SliceElement for $e {
            const DTYPE: DType = <$t as crate::dtype::Element>::DTYPE;
            const WRITES: bool = $writes;
            type View<'c> = $view<'c, $t>;
            unsafe fn view<'c>(gpu: &Gpu, address: u64, len: usize) -> Result<Self::View<'c>, oxide_host::Error> {
                // SAFETY: the caller's contract is the view's constructor's (`ForeignView::new`,
                // or `ForeignViewMut::new` for an atomic).
                unsafe { $view::new(gpu, address, len) }
            }
        }
    )*};
}

slice_element!(false, ForeignView:
    i8 => i8,
    u8 => u8,
    i16 => i16,
    u16 => u16,
    i32 => i32,
    u32 => u32,
    i64 => i64,
    u64 => u64,
    oxide_device::f16 => oxide_device::f16,
    oxide_device::bf16 => oxide_device::bf16,
    f32 => f32,
    f64 => f64
);

// The atomics are sealed here (the plain elements are, as `Element`s, in dtype.rs).
impl crate::dtype::sealed::Sealed for std::sync::atomic::AtomicU32 {}
impl crate::dtype::sealed::Sealed for std::sync::atomic::AtomicI32 {}
impl crate::dtype::sealed::Sealed for std::sync::atomic::AtomicU64 {}
impl crate::dtype::sealed::Sealed for std::sync::atomic::AtomicI64 {}
impl crate::dtype::sealed::Sealed for oxide_device::atomic::AtomicF32 {}
impl crate::dtype::sealed::Sealed for oxide_device::atomic::AtomicF64 {}

slice_element!(true, ForeignViewMut:
    std::sync::atomic::AtomicU32 => u32,
    std::sync::atomic::AtomicI32 => i32,
    std::sync::atomic::AtomicU64 => u64,
    std::sync::atomic::AtomicI64 => i64,
    oxide_device::atomic::AtomicF32 => f32,
    oxide_device::atomic::AtomicF64 => f64
);

/// The safety argument of every view `arg` makes, in one place.
///
/// SAFETY (of the `unsafe` calls of `arg` below): the address and length come from a tensor
/// that `prepare` checked: its producer's protocol (`__cuda_array_interface__`, DLPack) lends
/// the memory for as long as the object is alive, which it is for the call, and describes it
/// in its device's memory; `Gpu::check_device_memory` found the range inside one allocation of
/// the launch's device; every argument the kernel writes overlaps no other argument's bytes
/// (`tensor::check_together`), so no other view of this launch reads or writes it; and the
/// launch goes to the stream the caller's framework orders that memory's work on (PyTorch's
/// current stream, or the stream the caller named), so work queued there before the call is
/// ordered before the kernel, and the allocator reuses the memory only in that stream's order
/// after it (docs/python.md, "What the boundary trusts").
impl<E: SliceElement> oxide_host::ForeignArg<[E]> for Call {
    type Arg<'c> = E::View<'c>;

    fn describe(&mut self, index: usize) -> Result<(), CallError> {
        let role = if E::WRITES { Role::Atomic } else { Role::Read };
        self.describe_tensor(index, E::DTYPE, role, Layout::Flat)
    }

    fn arg(&self, index: usize) -> Result<Self::Arg<'_>, CallError> {
        let (gpu, checked) = self.tensor(index)?;
        // SAFETY: see the comment of this impl.
        Ok(unsafe { E::view(gpu, checked.bytes.start, checked.elements) }?)
    }
}

impl<E: SliceElement> SchemaArg<[E]> for Call {
    const PARAM: Param = Param::Tensor(if E::WRITES { Role::Atomic } else { Role::Read });
}

macro_rules! output_param {
    ($($output:ident<T $(, const $c:ident)*>),*) => {$(
        impl<T: crate::dtype::Element $(, const $c: usize)*>
            oxide_host::ForeignArg<fn(oxide_device::$output<'_, T $(, $c)*>)> for Call
        {
            type Arg<'c> = ForeignViewMut<'c, T>;

            fn describe(&mut self, index: usize) -> Result<(), CallError> {
                self.describe_tensor(index, T::DTYPE, Role::Elements, Layout::Flat)
            }

            fn arg(&self, index: usize) -> Result<Self::Arg<'_>, CallError> {
                let (gpu, checked) = self.tensor(index)?;
                // SAFETY: as for `&[E]` above: the memory was checked, and this writable
                // argument overlaps no other argument.
                Ok(unsafe { ForeignViewMut::new(gpu, checked.bytes.start, checked.elements) }?)
            }
        }

        impl<T: crate::dtype::Element $(, const $c: usize)*>
            SchemaArg<fn(oxide_device::$output<'_, T $(, $c)*>)> for Call
        {
            const PARAM: Param = Param::Tensor(Role::Elements);
        }
    )*};
}

output_param!(
    DisjointSlice<T>,
    DisjointChunks<T, const C>,
    BlockWindows<T, const W>,
    BlockSlots<T>,
    WarpSlots<T>
);

/// The 2-D outputs: a 2-D C-contiguous tensor of `rows × cols`, lent writable as the host's
/// `Rows::new(view, cols)`, as a Rust launch passes `Rows::new(&mut buf, width)?`.
macro_rules! rows_output_param {
    ($($output:ident<T $(, const $c:ident)* $(, type $o:ident)?>),*) => {$(
        impl<T: crate::dtype::Element $(, const $c: usize)* $(, $o: oxide_device::outputs::TileOrder)?>
            oxide_host::ForeignArg<fn(oxide_device::$output<'_, T $(, $c)* $(, $o)?>)> for Call
        {
            type Arg<'c> = oxide_host::Rows<ForeignViewMut<'c, T>>;

            fn describe(&mut self, index: usize) -> Result<(), CallError> {
                self.describe_tensor(index, T::DTYPE, Role::Tiles, Layout::Rows)
            }

            fn arg(&self, index: usize) -> Result<Self::Arg<'_>, CallError> {
                let (gpu, checked) = self.tensor(index)?;
                let (_, cols, _) = checked
                    .matrix
                    .ok_or_else(|| not_prepared(self.signature.name))?;
                // SAFETY: as for `&[E]` above: the memory was checked, and this writable
                // argument overlaps no other argument.
                let view = unsafe { ForeignViewMut::new(gpu, checked.bytes.start, checked.elements) }?;
                Ok(oxide_host::Rows::new(view, cols).map_err(oxide_host::Error::from)?)
            }
        }

        impl<T: crate::dtype::Element $(, const $c: usize)* $(, $o: oxide_device::outputs::TileOrder)?>
            SchemaArg<fn(oxide_device::$output<'_, T $(, $c)* $(, $o)?>)> for Call
        {
            const PARAM: Param = Param::Tensor(Role::Tiles);
        }
    )*};
}

rows_output_param!(
    DisjointRows<T>,
    WarpRows<T>,
    WarpChunkRows<T, const C>,
    BlockTiles<T, const R, const C, type O>,
    MmaTiles<T, const R, const C, const WR, const WC, type O>
);

impl<T: crate::dtype::Element> oxide_host::ForeignArg<fn(oxide_device::Matrix<'_, T>)> for Call {
    type Arg<'c> = oxide_host::MatrixShape<ForeignView<'c, T>>;

    fn describe(&mut self, index: usize) -> Result<(), CallError> {
        self.describe_tensor(index, T::DTYPE, Role::Read, Layout::Matrix)
    }

    fn arg(&self, index: usize) -> Result<Self::Arg<'_>, CallError> {
        let (gpu, checked) = self.tensor(index)?;
        let (rows, cols, pitch) = checked
            .matrix
            .ok_or_else(|| not_prepared(self.signature.name))?;
        // SAFETY: as for `&[E]` above: the matrix's span was checked, read-only.
        let view = unsafe { ForeignView::new(gpu, checked.bytes.start, checked.elements) }?;
        Ok(oxide_host::MatrixShape::with_pitch(view, rows, cols, pitch)
            .map_err(oxide_host::Error::from)?)
    }
}

impl<T: crate::dtype::Element> SchemaArg<fn(oxide_device::Matrix<'_, T>)> for Call {
    const PARAM: Param = Param::Tensor(Role::Read);
}

/// A kernel's by-value parameter of a number type, from a Python `int` or `float`.
pub trait Scalar: Copy {
    /// What a torch op's schema calls it.
    const NUMBER: Number;
    fn from_py(obj: &Bound<'_, PyAny>, name: &str, ty: &str) -> Result<Self, Refusal>;
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const NUMBER: Number = Number::Int;
            fn from_py(obj: &Bound<'_, PyAny>, name: &str, ty: &str) -> Result<Self, Refusal> {
                if obj.is_instance_of::<pyo3::types::PyBool>() || !obj.is_instance_of::<pyo3::types::PyInt>() {
                    return Err(Refusal::type_error(format!(
                        "argument `{name}` is a {}, and the kernel's parameter `{name}: {ty}` \
                         takes an int", read::type_name(obj)
                    )));
                }
                obj.extract::<$t>().map_err(|_| Refusal::value_error(format!(
                    "argument `{name}` does not fit the kernel's parameter `{name}: {ty}` \
                     ({} ..= {})", <$t>::MIN, <$t>::MAX
                )))
            }
            fn to_bits(self) -> u64 {
                self as u64
            }
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}

int_scalar!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);

/// A scalar parameter's `ForeignArg`: described and passed as its [`Scalar`] value.
macro_rules! scalar_arg {
    ($($t:ty),*) => {$(
        impl oxide_host::ForeignArg<fn($t)> for Call {
            type Arg<'c> = $t;
            fn describe(&mut self, index: usize) -> Result<(), CallError> {
                self.describe_scalar::<$t>(index)
            }
            fn arg(&self, index: usize) -> Result<$t, CallError> {
                self.scalar(index)
            }
        }

        impl SchemaArg<fn($t)> for Call {
            const PARAM: Param = Param::Number(<$t as Scalar>::NUMBER);
        }
    )*};
}

scalar_arg!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize, f32, f64);

macro_rules! float_scalar {
    ($($t:ty => $from:expr, $to:expr, $back:expr);*) => {$(
        impl Scalar for $t {
            const NUMBER: Number = Number::Float;
            fn from_py(obj: &Bound<'_, PyAny>, name: &str, ty: &str) -> Result<Self, Refusal> {
                let number = obj.is_instance_of::<pyo3::types::PyFloat>()
                    || (obj.is_instance_of::<pyo3::types::PyInt>()
                        && !obj.is_instance_of::<pyo3::types::PyBool>());
                match obj.extract::<f64>() {
                    Ok(v) if number => Ok(($from)(v)),
                    _ => Err(Refusal::type_error(format!(
                        "argument `{name}` is a {}, and the kernel's parameter `{name}: {ty}` \
                         takes a float", read::type_name(obj)
                    ))),
                }
            }
            fn to_bits(self) -> u64 {
                ($to)(self)
            }
            fn from_bits(bits: u64) -> Self {
                ($back)(bits)
            }
        }
    )*};
}

float_scalar!(
    f32 => |v: f64| v as f32, |v: f32| u64::from(v.to_bits()), |b: u64| f32::from_bits(b as u32);
    f64 => |v: f64| v, f64::to_bits, f64::from_bits
);

/// A by-value tuple of numbers (`shape: (usize, usize, usize, usize)`), from a Python tuple of
/// as many `int`s (or `float`s, where the element is one), each checked as a scalar parameter
/// of its type is.
macro_rules! tuple_arg {
    ($($n:literal: ($($t:ident $i:tt),+);)*) => {$(
        impl<$($t: Scalar),+> oxide_host::ForeignArg<fn(($($t,)+))> for Call
        where
            ($($t,)+): oxide_device::DeviceData,
        {
            type Arg<'c> = ($($t,)+);

            fn describe(&mut self, index: usize) -> Result<(), CallError> {
                self.describe_tuple::<$n>(index, |i, item, name| match i {
                    $($i => <$t as Scalar>::from_py(item, name, std::any::type_name::<$t>())
                        .map(Scalar::to_bits),)+
                    _ => unreachable!("a tuple of {} items has no item {i}", $n),
                })
            }

            fn arg(&self, index: usize) -> Result<Self::Arg<'_>, CallError> {
                let bits = self.tuple(index)?;
                Ok(($(<$t as Scalar>::from_bits(bits[$i]),)+))
            }
        }

        impl<$($t: Scalar),+> SchemaArg<fn(($($t,)+))> for Call
        where
            ($($t,)+): oxide_device::DeviceData,
        {
            const PARAM: Param = Param::Tuple(&[$(<$t as Scalar>::NUMBER),+]);
        }
    )*};
}

tuple_arg! {
    1: (A 0);
    2: (A 0, B 1);
    3: (A 0, B 1, C 2);
    4: (A 0, B 1, C 2, D 3);
    5: (A 0, B 1, C 2, D 3, E 4);
    6: (A 0, B 1, C 2, D 3, E 4, F 5);
}

#[cfg(test)]
mod tests {
    use oxide_device::bf16;
    use oxide_device::outputs::{BlockTiles, DisjointRows, MmaTiles};
    use oxide_host::ForeignArg;

    use super::Call;

    /// Compiles only where Python's caller can pass an argument for a parameter keyed `K`.
    fn passes<K: ?Sized>()
    where
        Call: ForeignArg<K>,
    {
    }

    /// What kernels/flash_attn's kernels take (issue 22), and the other 2-D outputs: each has a
    /// `ForeignArg` (the `DynShared` count goes through `ForeignCall::describe_shared_len`).
    #[test]
    fn flash_attention_parameters_are_exportable() {
        passes::<fn(oxide_device::Matrix<'_, bf16>)>();
        passes::<fn((usize, usize, usize, usize))>();
        passes::<fn(f32)>();
        passes::<fn(MmaTiles<'_, bf16, 128, 64, 32, 64>)>();
        passes::<fn(MmaTiles<'_, bf16, 128, 128, 32, 128>)>();
        passes::<fn(BlockTiles<'_, f32, 32, 32>)>();
        passes::<fn(DisjointRows<'_, f32>)>();
        passes::<fn((u32, f32, i64))>();
    }
}
