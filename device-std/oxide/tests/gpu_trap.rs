//! A kernel that traps, on a real GPU (hand-written PTX): the next call that waits fails with
//! `Error::KernelFailed` naming the kernel. A trap leaves the CUDA context unusable, so this
//! is its own test binary (its own process). Passes without doing anything where there is no
//! driver or GPU.

use std::ffi::CStr;

use oxide::host::{Error, Gpu, Launch, LaunchConfig, load_module};

const PTX: &CStr = c"
.version 7.0
.target sm_50
.address_size 64

.visible .entry nop()
{
    ret;
}

.visible .entry boom()
{
    trap;
}
";

#[test]
fn a_trap_fails_the_next_wait_naming_the_kernel() -> Result<(), Error> {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        // Skips without a GPU, unless the GPU suite requires one (OXIDE_REQUIRE_GPU).
        Err(e) if e.is_unavailable() && std::env::var_os("OXIDE_REQUIRE_GPU").is_none() => {
            eprintln!("skipped (no GPU): {e}");
            return Ok(());
        }
        Err(e) => panic!("{e}"),
    };
    let module = load_module(&gpu, Some(PTX), "trapping")?;
    let (nop, boom) = (module.function("nop")?, module.function("boom")?);
    assert_eq!(boom.name(), "boom");
    let cfg = LaunchConfig::for_num_elems(64, 32)?;
    let buf = gpu.htod(&[1u32, 2, 3])?;

    // A kernel that succeeds: the waits succeed.
    // SAFETY: `nop` takes no parameters.
    unsafe { Launch::new(&gpu, &nop).launch(cfg) }?;
    gpu.synchronize()?;
    assert_eq!(gpu.dtoh(&buf)?, [1, 2, 3]);

    // SAFETY: `boom` takes no parameters.
    unsafe { Launch::new(&gpu, &boom).launch(cfg) }?;
    let e = gpu.synchronize().unwrap_err();
    println!("synchronize: {e}");
    let Error::KernelFailed { kernel, message } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(kernel, "boom");
    assert!(message.starts_with("on the GPU: CUDA_ERROR_"), "{message}");
    assert!(
        e.to_string()
            .starts_with("kernel `boom` failed on the GPU: "),
        "{e}"
    );
    // The context is unusable from now on; every call that reports it names the kernel.
    let e = gpu.dtoh(&buf).unwrap_err();
    println!("dtoh: {e}");
    assert!(
        matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "boom"),
        "{e}"
    );
    let e = gpu.time(|| Ok(())).unwrap_err();
    println!("time: {e}");
    assert!(
        matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "boom"),
        "{e}"
    );
    // SAFETY: `nop` takes no parameters.
    let e = unsafe { Launch::new(&gpu, &nop).launch(cfg) }.unwrap_err();
    println!("launch: {e}");
    assert!(
        matches!(&e, Error::KernelFailed { kernel, .. } if kernel == "boom"),
        "{e}"
    );
    Ok(())
}
