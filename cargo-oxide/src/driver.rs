//! Is there an NVIDIA driver here? `run` and `doctor` ask; the answer is never an error.

use std::process::Command;

use crate::cargo;

/// Whether the CUDA driver library `libcuda.so.1` can be loaded, which is what the host binaries
/// (cudarc with dynamic loading) need before they touch the GPU.
pub fn libcuda_loadable() -> bool {
    #[cfg(unix)]
    {
        use std::ffi::{c_char, c_int, c_void};
        // glibc >= 2.34 has these in libc itself, which std already links.
        unsafe extern "C" {
            fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
            fn dlclose(handle: *mut c_void) -> c_int;
        }
        const RTLD_LAZY: c_int = 1;
        // SAFETY: a NUL-terminated name and a valid flag; loading libcuda runs no driver
        // initialisation (that happens in cuInit), and the handle is closed right away.
        unsafe {
            let handle = dlopen(c"libcuda.so.1".as_ptr(), RTLD_LAZY);
            if handle.is_null() {
                return false;
            }
            dlclose(handle);
        }
        true
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The GPUs `nvidia-smi` lists, one `name, driver_version` line each, if it runs.
pub fn gpus() -> Option<String> {
    let out = cargo::output(
        Command::new("nvidia-smi")
            .args(["--query-gpu=name,driver_version", "--format=csv,noheader"]),
    )
    .ok()?;
    let gpus: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    (!gpus.is_empty()).then(|| gpus.join("; "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn probing_never_panics() {
        // Whatever the machine has, both answers are plain values.
        let _ = super::libcuda_loadable();
        let _ = super::gpus();
    }
}
