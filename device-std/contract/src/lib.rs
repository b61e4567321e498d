//! The single source of truth for what the two sides of oxide's kernel ABI must agree on
//! (docs/contracts.md): the `#[kernel]` macros and the host runtime on one side, the codegen
//! backend, llvm-emit and `cargo oxide` on the other. Each agreement is written once here, so the
//! sides cannot drift apart:
//!
//! - [`kernel_marker`] / [`parse_kernel_marker`]: how a kernel and its [`KernelOptions`] are marked;
//! - [`kernel_entry`], [`generic_entry`]: the PTX entry of a kernel, of one instance of a
//!   generic kernel;
//! - [`ptx_image_symbol`]: the symbol holding a crate's embedded PTX;
//! - [`cfg`]: the `--cfg` names `cargo oxide` passes to the backend;
//! - [`GpuArch`], [`DEFAULT_ARCH`], [`PtxIsa`]: the supported architectures and the PTX ISA
//!   each one is compiled with;
//! - [`ParamAbi`]: how each kernel parameter crosses a launch, declared by its type;
//! - [`SLICE_ALIGN`]: the alignment of every slice's data pointer;
//! - [`rows_fit`], [`rect_within`], [`pairs_distance_fits`], [`matrix_fits`],
//!   [`KernelOptions::check_launch_shape`]: what a launch's shaped outputs and inputs and its
//!   shape must satisfy;
//! - [`DEVICE_RUNTIME_FUNCTIONS`]: the functions of CUDA's device runtime kernels may call;
//! - [`UNROLL_HINT_SYMBOL`]: what `oxide::unroll`'s hint is called between the backend's stages;
//! - [`printf`]: the C format of `printf!` and the layout of vprintf's arguments;
//! - [`panic_message`], [`panic_str`]: the text of a caught panic, which every side reports.
//!
//! std only, no dependencies: a proc-macro crate, the rustc backend and the host runtime all link it.

mod arch;
mod marker;
mod panic;
mod param;
pub mod printf;
mod shape;

pub use arch::{ArchError, DEFAULT_ARCH, GpuArch, PtxIsa};
pub use marker::{
    KERNEL_MARKER_PREFIX, KernelOptions, PTX_IMAGE_PREFIX, UnknownKernelOption, generic_entry,
    is_ptx_identifier, is_ptx_image_symbol, kernel_entry, kernel_marker, parse_kernel_marker,
    ptx_image_symbol,
};
pub use panic::{NON_STRING_PANIC, panic_message, panic_str};
pub use param::{MAX_SLICE_WORDS, ParamAbi, SliceAccess};
pub use shape::{matrix_fits, pairs_distance_fits, rect_within, rows_fit};

/// The alignment, in bytes, of the data pointer of every slice a launch passes to a kernel
/// (docs/contracts.md, "Kernel parameter ABI"): device buffers are whole allocations of the
/// driver, which aligns them to 256 bytes, and an empty buffer's stand-in pointer is this
/// value. The backend marks the pointer parameters `align` this (or the element's alignment,
/// when larger), so that 16-byte chunks of a slice load and store as one vector instruction
/// (`ld.global.nc.v4.f32`); the launcher checks it before every launch.
pub const SLICE_ALIGN: u64 = 16;

/// The functions of CUDA's device runtime that device code may call by name
/// (`#[oxide_gpu::device_runtime("vprintf")]`): the backend declares them external, llvm-emit
/// lets the declarations through to the PTX (`.extern .func`), and the driver links them when
/// it loads the module. `vprintf(format, args)` prints from the GPU (docs/contracts.md, "Device
/// intrinsics").
pub const DEVICE_RUNTIME_FUNCTIONS: &[&str] = &["vprintf"];

/// The function a call of `oxide::unroll`'s hint becomes in the LLVM IR: the backend's LLVM
/// stage marks the loop around each call to be unrolled fully and removes the calls, so the
/// symbol never reaches the PTX (docs/features.md, "Control flow").
pub const UNROLL_HINT_SYMBOL: &str = "__oxide_unroll_hint";

/// The name of the function `#[kernel]` makes of a kernel's body when it wraps the body in an
/// entry of its own (a kernel with shared parameters). The backend gives that function the LLVM
/// string attribute [`KERNEL_BODY_ATTRIBUTE`], and llvm-emit inlines a body that O3 left a call
/// (unrolling inside it can grow it past O3's inliner; its values then go through local memory).
pub const KERNEL_BODY_FN: &str = "__oxide_kernel_body";

/// The LLVM function attribute that marks a kernel's body ([`KERNEL_BODY_FN`]) for llvm-emit.
pub const KERNEL_BODY_ATTRIBUTE: &str = "oxide-kernel-body";

/// The `--cfg` names `cargo oxide` passes to rustc and the backend reads (docs/contracts.md,
/// "Backend configuration"). Configuration travels as cfgs, not environment variables, so that
/// cargo rebuilds when it changes.
pub mod cfg {
    /// Set on every crate built by `cargo oxide`: the launchers then reference the embedded PTX.
    pub const BACKEND: &str = "oxide_backend";
    /// `oxide_arch="sm_90"`: the architecture to compile kernels for ([`crate::GpuArch`]).
    pub const ARCH: &str = "oxide_arch";
    /// Also write every pipeline stage next to the PTX.
    pub const DUMP: &str = "oxide_dump";
    /// `oxide_libdevice="/path/libdevice.10.bc"`: NVIDIA's math library, linked when a kernel
    /// calls `f32::sin` and the like.
    pub const LIBDEVICE: &str = "oxide_libdevice";

    /// The value of `--cfg` that selects `arch`: `oxide_arch="sm_90"`.
    pub fn arch_flag(arch: crate::GpuArch) -> String {
        format!("{ARCH}=\"{arch}\"")
    }

    /// The value of `--cfg` that names libdevice: a Rust string literal, so any path survives.
    pub fn libdevice_flag(path: &std::path::Path) -> String {
        format!("{LIBDEVICE}={:?}", path.to_string_lossy())
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn libdevice_flag_is_a_string_literal() {
            assert_eq!(
                super::libdevice_flag(std::path::Path::new("/a \"b\"/libdevice.10.bc")),
                r#"oxide_libdevice="/a \"b\"/libdevice.10.bc""#
            );
        }

        #[test]
        fn arch_flag_quotes_the_name() {
            assert_eq!(
                super::arch_flag(crate::DEFAULT_ARCH),
                "oxide_arch=\"sm_90\""
            );
        }
    }
}
