//! Links this crate against the LLVM shared library that ships with the rustc toolchain.
//!
//! The crate ends up inside a rustc codegen backend, where rustc's libLLVM is already
//! loaded; linking any other LLVM would put two LLVMs (two sets of global registries) in one
//! process. inkwell/llvm-sys are built with `no-llvm-linking`, so this script is the only
//! thing that tells the linker where LLVM comes from.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .unwrap_or_else(|e| panic!("failed to run `{rustc} --print sysroot`: {e}"));
    assert!(
        output.status.success(),
        "`{rustc} --print sysroot` failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sysroot = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    let libdir = sysroot.join("lib");
    let lib = find_libllvm(&libdir);

    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib:+verbatim={lib}");
    // Tests and tools built from this crate find the library without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
    println!("cargo:libdir={}", libdir.display());
}

/// The real shared object (`libLLVM.so.<ver>-rust-<ver>`), not the `libLLVM-*.so` linker
/// script next to it, because `+verbatim` needs an exact file name.
fn find_libllvm(libdir: &Path) -> String {
    let entries = std::fs::read_dir(libdir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", libdir.display()));
    let mut candidates: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("libLLVM.so"))
        .collect();
    candidates.sort();
    candidates.pop().unwrap_or_else(|| {
        panic!(
            "no libLLVM.so* in {}; install the toolchain's LLVM (rustc ships it in its sysroot)",
            libdir.display()
        )
    })
}
