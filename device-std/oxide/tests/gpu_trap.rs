//! A kernel that traps, on a real GPU (hand-written PTX): the next call that waits fails with
//! `Error::KernelFailed` naming the kernel, a new `Gpu` is refused while handles of the lost
//! context live, and once they are all dropped a new `Gpu` gets a fresh context whose launch
//! computes the right values (issue 18: a long-running program recovers without restarting).
//! A trap leaves the CUDA context unusable, so this is its own test binary (its own process),
//! with one test doing each step in order. Passes without doing anything where there is no
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

// twice(out: DisjointSlice<u32>): out[i] = 2 * i.
.visible .entry twice(.param .u64 out_ptr, .param .u64 out_len)
{
    .reg .pred %p;
    .reg .b32 %r<5>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out_ptr];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out_len];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    cvt.u64.u32 %rd3, %r4;
    setp.ge.u64 %p, %rd3, %rd2;
    @%p bra DONE;
    shl.b64 %rd4, %rd3, 2;
    add.u64 %rd5, %rd1, %rd4;
    shl.b32 %r4, %r4, 1;
    st.global.u32 [%rd5], %r4;
DONE:
    ret;
}
";

#[test]
fn a_trap_fails_the_next_wait_naming_the_kernel_then_a_new_gpu_recovers() -> Result<(), Error> {
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

    // A new handle would share the lost context (the device's primary context): refused while
    // any handle of it is alive, naming the kernel.
    let e = Gpu::new(0)
        .err()
        .expect("no new Gpu while the lost context has handles");
    println!("Gpu::new with handles alive: {e}");
    assert!(
        matches!(
            &e,
            Error::DeviceLost { kernel: Some(k), handles_alive: true, .. } if k == "boom"
        ),
        "{e}"
    );

    // Every handle dropped: a new Gpu gets a fresh context, and a launch on it is right.
    drop((nop, boom, module, buf, gpu));
    let gpu = Gpu::new(0)?;
    let module = load_module(&gpu, Some(PTX), "trapping")?;
    let twice = module.function("twice")?;
    let n = 1000;
    let mut out = gpu.alloc_zeroed::<u32>(n)?;
    let mut launch = Launch::new(&gpu, &twice);
    launch.push(&mut out);
    // SAFETY: `twice` takes one DisjointSlice<u32> (pointer, length).
    unsafe { launch.launch(LaunchConfig::for_num_elems(n, 128)?) }?;
    let got = gpu.dtoh(&out)?;
    let expected: Vec<u32> = (0..n as u32).map(|i| 2 * i).collect();
    assert_eq!(got, expected);
    println!("after the trap, a new Gpu launched `twice` and read back {n} right values");
    Ok(())
}
