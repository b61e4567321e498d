//! NVIDIA's libdevice (the math library of CUDA, LLVM bitcode shipped with every CUDA install
//! and the pip wheel nvidia-nvvm), linked into the module at the LLVM IR level.
//!
//! Producers call libdevice functions by their names (`__nv_sinf`), declared here as plain
//! external functions. When the module declares one, the bitcode is read, linked in, and every
//! function it brought becomes internal, so `default<O3>` inlines what the kernels use and drops
//! the rest. NVPTX's pass pipeline folds libdevice's `__nvvm_reflect("__CUDA_FTZ")` queries to 0
//! (no flush-to-zero, the module sets no `nvvm-reflect-ftz` flag), as nvcc does by default.

use std::path::Path;

use inkwell::{
    memory_buffer::MemoryBuffer,
    module::{Linkage, Module},
};

use crate::EmitError;

/// The prefix of every libdevice function: a call of `__nv_<name>` links libdevice.
pub const LIBDEVICE_PREFIX: &str = "__nv_";

/// Whether the module declares a libdevice function it does not define.
pub(crate) fn needed(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| {
        f.count_basic_blocks() == 0
            && f.get_name()
                .to_bytes()
                .starts_with(LIBDEVICE_PREFIX.as_bytes())
    })
}

/// Links the bitcode at `path` into `module` and makes every function it defines internal.
pub(crate) fn link(module: &Module<'_>, path: Option<&Path>) -> Result<(), EmitError> {
    let path = path.ok_or(EmitError::NoLibdevice)?;
    let fail = |message: String| EmitError::Libdevice {
        path: path.display().to_string(),
        message,
    };
    let buffer = MemoryBuffer::create_from_file(path).map_err(|e| fail(e.to_string()))?;
    let library = Module::parse_bitcode_from_buffer(&buffer, module.get_context())
        .map_err(|e| fail(e.to_string()))?;
    // libdevice says `nvptx64-nvidia-gpulibs`; the linker would warn about the mismatch.
    library.set_triple(&module.get_triple());
    library.set_data_layout(&module.get_data_layout());
    let defined: Vec<String> = library
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    module
        .link_in_module(library)
        .map_err(|e| fail(e.to_string()))?;
    for name in defined {
        if let Some(f) = module.get_function(&name) {
            f.set_linkage(Linkage::Internal);
        }
    }
    Ok(())
}
