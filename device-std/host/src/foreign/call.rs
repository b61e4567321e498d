//! What a kernel's `__foreign` function asks of a caller from another language (oxide-python's
//! call of a kernel from Python): each argument described and checked, then the arguments
//! checked together, then the launch through the kernel's own `launch`, with the views the
//! caller made. `#[kernel]` writes `__foreign` and `__SIGNATURE` in each kernel's host module
//! (not for generic kernels, yet); a `DynShared` array's argument is its element count, keyed
//! `fn(usize)`, as the kernel's `launch` takes it.
//!
//! ```ignore
//! pub fn __foreign<C>(call: &mut C) -> Result<(), C::Error>
//! where
//!     C: ForeignArg<[f32]> + ForeignArg<[f32]> + ForeignArg<fn(DisjointSlice<f32>)>,
//! {
//!     <C as ForeignArg<[f32]>>::describe(call, 0)?;
//!     <C as ForeignArg<[f32]>>::describe(call, 1)?;
//!     <C as ForeignArg<fn(DisjointSlice<f32>)>>::describe(call, 2)?;
//!     ForeignCall::prepare(call)?;
//!     let call = &*call;
//!     launch(
//!         ForeignCall::gpu(call)?,
//!         ForeignCall::config(call)?,
//!         <C as ForeignArg<[f32]>>::arg(call, 0)?,
//!         <C as ForeignArg<[f32]>>::arg(call, 1)?,
//!         <C as ForeignArg<fn(DisjointSlice<f32>)>>::arg(call, 2)?,
//!     )?;
//!     Ok(())
//! }
//! ```
//!
//! The function is generic over the caller, so a crate that exports no kernel to another
//! language compiles it without checking any bound: a parameter kind the caller cannot pass
//! is an error only where the kernel is exported (`oxide::python_module!`).

use oxide_contract::KernelOptions;

use crate::{Error, Gpu, LaunchArg, LaunchConfig};

/// A kernel as a caller from another language sees it: `__SIGNATURE` in the kernel's host
/// module.
#[derive(Debug, Clone, Copy)]
pub struct ForeignSignature {
    /// The kernel's name.
    pub name: &'static str,
    /// Each parameter the launch passes, in order.
    pub params: &'static [ForeignParam],
    /// What `#[kernel(...)]` states: the launch contract.
    pub options: KernelOptions,
    /// The parameters whose lengths `same_len` declares equal, group by group.
    pub same_len: &'static [&'static [&'static str]],
}

/// One parameter of a [`ForeignSignature`].
#[derive(Debug, Clone, Copy)]
pub struct ForeignParam {
    /// Its name in the kernel's signature.
    pub name: &'static str,
    /// Its type as written (`&[f32]`, `DisjointSlice<f32>`).
    pub ty: &'static str,
}

/// The caller of a kernel's `__foreign` function: it lends the launch a [`Gpu`] handle (of
/// the arguments' device, on the caller's stream) and the launch's shape.
pub trait ForeignCall {
    /// The caller's error, which a launch's [`Error`] converts into.
    type Error: From<Error>;

    /// Checks the arguments described so far together (no writable argument overlaps another;
    /// one device), and finds the device and stream to launch on. Called once, after every
    /// argument was described.
    fn prepare(&mut self) -> Result<(), Self::Error>;

    /// The handle to launch on, once [`ForeignCall::prepare`] succeeded.
    fn gpu(&self) -> Result<&Gpu, Self::Error>;

    /// The launch's shape, once [`ForeignCall::prepare`] succeeded.
    fn config(&self) -> Result<LaunchConfig, Self::Error>;

    /// Reads argument `index`, a `DynShared` array's element count, as the kernel's `launch`
    /// takes it (which sizes the launch's dynamic shared memory by it and checks that against
    /// the device's limit).
    fn describe_shared_len(&mut self, index: usize) -> Result<(), Self::Error>;

    /// Argument `index`, the element count [`ForeignCall::describe_shared_len`] read.
    fn shared_len(&self, index: usize) -> Result<usize, Self::Error>;
}

/// A [`ForeignCall`] that can pass an argument for a kernel parameter keyed `K` (the key of
/// [`LaunchArg`]: `[T]` for `&[T]`, `fn(P)` for any other `P`).
pub trait ForeignArg<K: ?Sized>: ForeignCall {
    /// What the launch takes for the parameter.
    type Arg<'c>: LaunchArg<K>
    where
        Self: 'c;

    /// Reads and checks argument `index` on its own (its kind, element type, layout and
    /// shape), before any other is made into a launch argument.
    fn describe(&mut self, index: usize) -> Result<(), Self::Error>;

    /// Argument `index` as the launch takes it; after [`ForeignCall::prepare`] succeeded.
    fn arg(&self, index: usize) -> Result<Self::Arg<'_>, Self::Error>;
}
