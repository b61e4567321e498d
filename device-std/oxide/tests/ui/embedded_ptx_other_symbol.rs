// `__embedded_ptx!` is exported for the launchers `#[kernel]` generates in kernel crates, so safe
// code can call it too: it reads the named symbol as NUL-terminated PTX text, and any symbol but
// a crate's PTX image (`__oxide_ptx_<crate>`) is refused at compile time. Found by review:
// `__embedded_ptx!("malloc")` read malloc's machine code, `"environ"` a live libc global.
#![forbid(unsafe_code)]

fn main() {
    let code = oxide::__embedded_ptx!("malloc");
    let env = oxide::__embedded_ptx!("environ");
    let _ = (code, env);
}
