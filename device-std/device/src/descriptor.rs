//! [`Descriptor128`]: an opaque 128-byte value, aligned to 64 bytes, that a launch passes to a
//! kernel by value and the kernel reads in place: the shape of the descriptors the Hopper
//! issues pass (a TMA tensor map, CUDA's `CUtensorMap`, is 128 bytes aligned to 64).
//!
//! It is a parameter kind of its own, declared here alone (its `KernelParam` and `ParamKey`
//! impls) with its host side in oxide-host (`device-std/host/src/descriptor.rs`): neither the
//! `#[kernel]` macro nor the backend names it (docs/architecture.md, "A new parameter kind").

use oxide_contract::ParamAbi;

use crate::param::{KernelParam, ParamKey, sealed};

/// 128 opaque bytes, aligned to 64, made on the host and passed by value to a kernel, which
/// reads them ([`bytes`](Self::bytes), [`word`](Self::word)). Not `Copy`: a kernel has the one
/// value the launch passed, as CUDA's `const __grid_constant__` parameters.
#[repr(C, align(64))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor128 {
    bytes: [u8; 128],
}

impl Descriptor128 {
    /// The descriptor's size in bytes.
    pub const SIZE: usize = 128;

    /// A descriptor holding `bytes`.
    #[inline]
    pub const fn from_bytes(bytes: [u8; 128]) -> Self {
        Descriptor128 { bytes }
    }

    /// Its bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8; 128] {
        &self.bytes
    }

    /// Its `i`-th little-endian 64-bit word (`i < 16`), or `None` past the end.
    #[inline]
    pub fn word(&self, i: usize) -> Option<u64> {
        let chunk = self
            .bytes
            .get(i.checked_mul(8)?..i.checked_mul(8)?.checked_add(8)?)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        Some(u64::from_le_bytes(word))
    }
}

impl sealed::Sealed for Descriptor128 {}

/// Passed by value: its 128 bytes.
impl KernelParam for Descriptor128 {
    const ABI: ParamAbi = ParamAbi::Value;
}

/// Each emulated thread gets its own copy of the launch's descriptor.
impl<'a> ParamKey<'a> for fn(Descriptor128) {
    type Param = Descriptor128;
}
