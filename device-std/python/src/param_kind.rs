//! Each kernel parameter's kind as a torch op takes it ([`Param`]), and [`SchemaArg`], which
//! gives the kind of each key a Python call can pass: implemented in call.rs beside each
//! `ForeignArg` impl, read by schema.rs. A leaf of both, so that neither imports the other's
//! half of the pair.

use crate::config::Role;

/// A number parameter (or a tuple's item) as torch's schema types it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    /// `int` (torch's are 64-bit: an unsigned 64-bit parameter takes at most `i64::MAX` there).
    Int,
    /// `float` (a Python float, a double).
    Float,
}

impl Number {
    pub(crate) fn text(self) -> &'static str {
        match self {
            Number::Int => "int",
            Number::Float => "float",
        }
    }
}

/// A kernel parameter as a torch op takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A tensor, read or written as the role says.
    Tensor(Role),
    /// A number (a `DynShared` array's element count too).
    Number(Number),
    /// A tuple of numbers, one item each.
    Tuple(&'static [Number]),
}

/// What a torch op takes for a kernel parameter keyed `K` (the key of `ForeignArg`):
/// implemented for [`Call`] beside each of its `ForeignArg` impls.
pub trait SchemaArg<K: ?Sized> {
    const PARAM: Param;
}
