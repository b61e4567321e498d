//! A kernel that traps, on a real GPU (hand-written PTX): the next call that waits fails with
//! `Error::KernelFailed` naming the kernel, and `Gpu::new` is refused with `Error::DeviceLost`,
//! naming it, while handles of the lost context live and after they are all dropped: the CUDA
//! driver keeps a kernel's fault for the rest of the process (measured on the H200:
//! ci/gpu-probes/trap_recovery.cu). A long-running program recovers by running its GPU work in
//! a child process: the trap happens in a child (this binary again, with `OXIDE_TRAP_CHILD`),
//! and the parent then launches a correct kernel and checks every value (issue 18).
//! Passes without doing anything where there is no driver or GPU.

use std::ffi::CStr;
use std::process::Command;

use oxide::host::{DeviceMemoryMut, Error, Gpu, Launch, LaunchConfig, load_module};

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

/// The child's part: trap, then check what every later call says.
fn trap_and_check_the_errors(gpu: Gpu) -> Result<(), Error> {
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

    // A new handle would share the lost context (the device's primary context): refused,
    // naming the kernel, while any handle of it is alive and after.
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

    drop((nop, boom, module, buf, gpu));
    let e = Gpu::new(0)
        .err()
        .expect("the driver keeps the fault for the rest of the process");
    println!("Gpu::new after every handle was dropped: {e}");
    assert!(
        matches!(
            &e,
            Error::DeviceLost { kernel: Some(k), handles_alive: false, .. } if k == "boom"
        ),
        "{e}"
    );
    assert!(e.to_string().contains("restart the process"), "{e}");
    println!("child: every error named the kernel");
    Ok(())
}

const CHILD: &str = "OXIDE_TRAP_CHILD";

#[test]
fn a_trap_is_confined_to_its_process_which_names_the_kernel() -> Result<(), Error> {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        // Skips without a GPU, unless the GPU suite requires one (OXIDE_REQUIRE_GPU).
        Err(e) if e.is_unavailable() && std::env::var_os("OXIDE_REQUIRE_GPU").is_none() => {
            eprintln!("skipped (no GPU): {e}");
            return Ok(());
        }
        Err(e) => panic!("{e}"),
    };
    if std::env::var_os(CHILD).is_some() {
        return trap_and_check_the_errors(gpu);
    }

    // The parent: the trap happens in a child process (this test, run again by name)...
    let exe = std::env::current_exe().expect("the test binary's path");
    let child = Command::new(&exe)
        .args([
            "a_trap_is_confined_to_its_process_which_names_the_kernel",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    let child_out = String::from_utf8_lossy(&child.stdout);
    println!("{child_out}{}", String::from_utf8_lossy(&child.stderr));
    assert!(
        child.status.success() && child_out.contains("child: every error named the kernel"),
        "the child's checks failed"
    );

    // ...and the parent's own context, opened before the trap, runs a correct launch after it.
    let module = load_module(&gpu, Some(PTX), "trapping")?;
    let twice = module.function("twice")?;
    let n = 1000;
    let mut out = gpu.alloc_zeroed::<u32>(n)?;
    let mut launch = Launch::new(&gpu, &twice);
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe { launch.push_slice(out.region_mut(), &[]) };
    // SAFETY: `twice` takes one DisjointSlice<u32> (pointer, length).
    unsafe { launch.launch(LaunchConfig::for_num_elems(n, 128)?) }?;
    let got = gpu.dtoh(&out)?;
    let expected: Vec<u32> = (0..n as u32).map(|i| 2 * i).collect();
    assert_eq!(got, expected);
    println!("after the child's trap, the parent launched `twice` and read back {n} right values");
    Ok(())
}
