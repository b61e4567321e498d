//! `oxide`: what a kernel author uses to write SIMT GPU kernels in Rust, and the host runtime
//! that launches them.
//!
//! ```no_run
//! use oxide::prelude::*;
//!
//! #[kernel]
//! pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
//!     let i = thread::index_1d();
//!     if let Some(out) = c.get_mut(ThreadIndex::linear()) {
//!         *out = a[i] + b[i];
//!     }
//! }
//!
//! fn main() -> Result<(), oxide::host::Error> {
//!     let gpu = Gpu::new(0)?;
//!     let (a, b) = (gpu.htod(&[1.0f32, 2.0])?, gpu.htod(&[3.0f32, 4.0])?);
//!     let mut c = gpu.alloc_zeroed::<f32>(2)?;
//!     vecadd::launch(&gpu, LaunchConfig::for_num_elems(2, 256)?, &a, &b, &mut c)?;
//!     assert_eq!(gpu.dtoh(&c)?, [4.0, 6.0]);
//!     Ok(())
//! }
//! ```
//!
//! Kernels may be generic over types, closures from the host included
//! (`#[kernel] pub fn map<F: Fn(u32) -> u32 + Copy>(f: F, ...)`, launched as
//! `map::launch(&gpu, cfg, move |v| v * k, ...)`), and take options:
//! `#[kernel(strict_float)]`, `#[kernel(grid = "1d")]` (see [`kernel`] and docs/contracts.md).
//!
//! This crate is a facade over the crates that hold the code, under stable paths:
//!
//! - device side, crate `oxide-device`: [`thread`] (indices and the intrinsics the backend
//!   replaces), [`warp`] (lanes and shuffles), [`atomic`] (float atomics, scoped atomics and
//!   fences), [`block`] (block reductions, scans, votes),
//!   [`shared`] (block-shared memory: safe arrays declared as kernel parameters,
//!   [`shared::Shared`], over the unsafe primitive [`shared::SharedArray`]), [`soft`], [`Matrix`]
//!   (a read-only 2-D input whose shape the launch checked), [`DisjointSlice`] (the only safe way to
//!   write memory shared by the grid) and [`DeviceData`] (what a kernel may take by value: no
//!   host references, pointers or interior mutability; see docs/safety.md);
//! - host side, crate `oxide-host`: [`host`] (driver, buffers, launches), over cudarc;
//! - crate `oxide-emulator`: [`emulate`], the CPU emulator: a whole grid on host threads
//!   (`vecadd::emulate(&cfg, &a, &b, &mut c)`);
//! - crate `oxide-macros`: [`kernel`], and the derives [`DeviceRepr`](derive@DeviceRepr) and
//!   [`ValidAsZeroBits`](derive@ValidAsZeroBits), which implement cudarc's traits of the same
//!   names ([`host::DeviceRepr`], [`host::ValidAsZeroBits`]) for a `#[repr(C)]` struct or a
//!   fieldless enum after checking every field ([`repr`]), so that it can be a buffer element.
//!
//! Everything a kernel calls is plain Rust: no trait objects, formatting or allocation, and
//! `#[inline]` so its MIR crosses crates to the backend.

pub use oxide_device::{
    BlockSlots, BlockTiles, BlockWindows, CountedParam, DeviceData, DisjointChunks, DisjointPairs,
    DisjointRows, DisjointSlice, KernelParam, Matrix, MeasuredParam, MmaTiles, ParamKey,
    ThreadIndex, Unroll, WarpChunkRows, WarpRows, WarpSlots, WaveTiles, atomic, bf16, block, cache,
    debug, descriptor, e4m3, e5m2, f16, float8, float16, inputs, math, mma, outputs, param, repr,
    shared, soft, thread, unroll, warp,
};
pub use oxide_emulator as emulate;
pub use oxide_host as host;
pub use oxide_macros::{DeviceRepr, ValidAsZeroBits, device_assert, kernel, printf};

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Kernels as Python functions (feature `python`): `oxide::python_module!` and the boundary's
/// checks, crate `oxide-python` (docs/python.md).
#[cfg(feature = "python")]
pub use oxide_python as python;

/// `python_module!(name: kernel, other_kernel)`: the Python extension module `name` (the
/// crate's library name, built as a `cdylib` by `cargo oxide python`), whose functions are
/// these kernels, each called as `name.kernel(a, b, c, grid=..., block=..., stream=...)` with
/// tensors for its slices and outputs, numbers for its values and a `DynShared` array's element
/// count, tuples of numbers for its tuples (docs/python.md). The module also has
/// `register_torch()`, which registers the kernels as torch custom ops
/// (`torch.ops.name.kernel`, for `torch.compile`), and their schemas, `torch_schemas`. Generic
/// kernels cannot be exported yet.
#[cfg(feature = "python")]
#[macro_export]
macro_rules! python_module {
    ($module:ident: $($($kernel:ident)::+),+ $(,)?) => {
        #[$crate::python::pyo3::pymodule(crate = "::oxide::python::pyo3")]
        fn $module(
            module: &$crate::python::pyo3::Bound<'_, $crate::python::pyo3::types::PyModule>,
        ) -> $crate::python::pyo3::PyResult<()> {
            $crate::python::add_kernels(module, &[$(
                $crate::python::Kernel {
                    signature: &$($kernel)::+::__SIGNATURE,
                    call: $($kernel)::+::__foreign::<$crate::python::Call>,
                    params: $($kernel)::+::__foreign::<$crate::python::Params>,
                },
            )+])
        }
    };
}

/// What a kernel file needs: `use oxide::prelude::*;`.
pub mod prelude {
    pub use crate::host::{DeviceBuffer, Gpu, LaunchConfig, MatrixShape, Pairs, Rows, Wave};
    pub use crate::math::FastMath;
    pub use crate::shared::{DynShared, PerWarp, Shared, SharedArray};
    pub use crate::thread::{self, ThreadIndex};
    pub use crate::{
        BlockSlots, BlockTiles, BlockWindows, DeviceRepr, DisjointChunks, DisjointPairs,
        DisjointRows, DisjointSlice, Matrix, ValidAsZeroBits, WarpChunkRows, WarpRows, WarpSlots,
        WaveTiles, kernel, unroll,
    };
    pub use crate::{bf16, e4m3, e5m2};
}

/// `__embedded_ptx!("__oxide_ptx_<crate>")`: the PTX the backend embedded in the crate that
/// expands it, as `Option<&'static CStr>`. Used by the `#[kernel]` launcher only.
///
/// This build has `--cfg oxide_backend`, so the symbol is a strong reference, defined by the
/// object file the backend adds to the crate (the PTX text and a NUL byte).
///
/// The macro is exported (the launchers expand in kernel crates), so safe code can call it:
/// any symbol but a PTX image is refused at compile time, or `__embedded_ptx!("malloc")` would
/// read a function's code as a string (docs/safety.md, "Modules cannot be spoofed").
#[cfg(oxide_backend)]
#[doc(hidden)]
#[macro_export]
macro_rules! __embedded_ptx {
    ($sym:literal) => {{
        const _: () = ::core::assert!(
            $crate::__private::is_ptx_image_symbol($sym),
            "`__embedded_ptx!` reads only a crate's embedded PTX (`__oxide_ptx_<crate>`)"
        );
        unsafe extern "C" {
            #[link_name = $sym]
            static PTX: [u8; 0];
        }
        // SAFETY: the backend defines the symbol as NUL-terminated, immutable PTX text.
        ::core::option::Option::Some(unsafe {
            ::core::ffi::CStr::from_ptr(::core::ptr::addr_of!(PTX).cast())
        })
    }};
}

/// `__embedded_ptx!("__oxide_ptx_<crate>")`: the PTX the backend embedded in the crate that
/// expands it, as `Option<&'static CStr>`. Used by the `#[kernel]` launcher only.
///
/// This build lacks `--cfg oxide_backend` (a plain `cargo build`): there is no PTX, so this is
/// `None`, nothing refers to the symbol, the crate links, and the launch returns
/// [`host::Error::NoPtx`].
#[cfg(not(oxide_backend))]
#[doc(hidden)]
#[macro_export]
macro_rules! __embedded_ptx {
    ($sym:literal) => {{
        // Refused as in a backend build, so that a plain build does not accept what the
        // backend's build rejects.
        const _: () = ::core::assert!(
            $crate::__private::is_ptx_image_symbol($sym),
            "`__embedded_ptx!` reads only a crate's embedded PTX (`__oxide_ptx_<crate>`)"
        );
        ::core::option::Option::<&'static ::core::ffi::CStr>::None
    }};
}
