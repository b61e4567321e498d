//! The host runtime against a real GPU, with hand-written PTX that follows the parameter ABI of
//! docs/contracts.md (so it needs no backend). Each test passes without doing anything on a
//! machine that has no driver or GPU.

use std::ffi::CStr;

use oxide::host::{ByValue, Error, Gpu, Launch, LaunchConfig, load_module};

// A static, so that every use is the same PTX image (modules are cached by image).
static PTX: &CStr = c"
.version 7.0
.target sm_50
.address_size 64

// vecadd(a: &[f32], b: &[f32], c: DisjointSlice<f32>)
.visible .entry vecadd(
    .param .u64 a_ptr, .param .u64 a_len,
    .param .u64 b_ptr, .param .u64 b_len,
    .param .u64 c_ptr, .param .u64 c_len)
{
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<10>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [a_ptr];
    ld.param.u64 %rd2, [b_ptr];
    ld.param.u64 %rd3, [c_ptr];
    ld.param.u64 %rd4, [c_len];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.u64 %rd5, %rd5, %rd6;
    setp.ge.u64 %p, %rd5, %rd4;
    @%p bra DONE;
    shl.b64 %rd6, %rd5, 2;
    add.u64 %rd7, %rd1, %rd6;
    add.u64 %rd8, %rd2, %rd6;
    add.u64 %rd9, %rd3, %rd6;
    ld.global.f32 %f1, [%rd7];
    ld.global.f32 %f2, [%rd8];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd9], %f3;
DONE:
    ret;
}

// params(a: f32, unit: (), s: Params, input: &[u32], out: DisjointSlice<f64>): thread 0
// writes [a, s.x, s.y, input.len, out.len, input[0]].
.visible .entry params(
    .param .f32 a,
    .param .align 8 .b8 s[16],
    .param .u64 in_ptr, .param .u64 in_len,
    .param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    .reg .f32 %f1;
    .reg .f64 %fd<7>;
    ld.param.f32 %f1, [a];
    ld.param.u32 %r1, [s];
    ld.param.f64 %fd3, [s+8];
    ld.param.u64 %rd1, [in_ptr];
    ld.param.u64 %rd2, [in_len];
    ld.param.u64 %rd3, [out_ptr];
    ld.param.u64 %rd4, [out_len];
    cvt.f64.f32 %fd1, %f1;
    cvt.rn.f64.u32 %fd2, %r1;
    cvt.rn.f64.u64 %fd4, %rd2;
    cvt.rn.f64.u64 %fd5, %rd4;
    ld.global.u32 %r2, [%rd1];
    cvt.rn.f64.u32 %fd6, %r2;
    st.global.f64 [%rd3], %fd1;
    st.global.f64 [%rd3+8], %fd2;
    st.global.f64 [%rd3+16], %fd3;
    st.global.f64 [%rd3+24], %fd4;
    st.global.f64 [%rd3+32], %fd5;
    st.global.f64 [%rd3+40], %fd6;
    ret;
}

// ptrs(a: &[f64], b: DisjointSlice<u16>, out: DisjointSlice<u64>): writes the pointers it got
// for a and b.
.visible .entry ptrs(
    .param .u64 a_ptr, .param .u64 a_len,
    .param .u64 b_ptr, .param .u64 b_len,
    .param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a_ptr];
    ld.param.u64 %rd2, [b_ptr];
    ld.param.u64 %rd3, [out_ptr];
    st.global.u64 [%rd3], %rd1;
    st.global.u64 [%rd3+8], %rd2;
    ret;
}

// static_shared(out: DisjointSlice<u32>): 16 KiB of static shared memory; thread 0 writes a
// value into its last word and the dynamic region's first word, then copies both to out[0..2].
.shared .align 4 .b8 fixed[16384];
.extern .shared .align 16 .b8 dynamic[];
.visible .entry static_shared(.param .u64 out_ptr, .param .u64 out_len)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 7;
    st.shared.u32 [fixed+16380], %r2;
    mov.u32 %r2, 11;
    st.shared.u32 [dynamic], %r2;
    bar.sync 0;
    ld.shared.u32 %r2, [fixed+16380];
    ld.shared.u32 %r3, [dynamic];
    ld.param.u64 %rd1, [out_ptr];
    st.global.u32 [%rd1], %r2;
    st.global.u32 [%rd1+4], %r3;
    ret;
}
";

/// Other PTX, defining an entry the real one lacks.
static SPOOF: &CStr = c"
.version 7.0
.target sm_50
.address_size 64

.visible .entry spoofed()
{
    ret;
}
";

/// Host layout: u32 at 0, padding, f64 at 8 (16 bytes, align 8), as the PTX reads it.
#[derive(Clone, Copy)]
#[repr(C)]
struct Params {
    x: u32,
    y: f64,
}

fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        // Without a GPU these tests skip, saying so; the GPU suite sets OXIDE_REQUIRE_GPU so that
        // there a missing GPU fails them instead.
        Err(e) if e.is_unavailable() && std::env::var_os("OXIDE_REQUIRE_GPU").is_none() => {
            eprintln!("skipped (no GPU): {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn vecadd_by_the_contract() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    println!("device: {}", gpu.name()?);
    let n = 1_048_579;
    let a: Vec<f32> = (0..n).map(|i| (i % 4096) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 333) as f32 * 0.5).collect();
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(n)?;
    assert_eq!(dc.len(), n);
    let module = load_module(&gpu, Some(PTX), "handwritten")?;
    let function = module.function("vecadd")?;
    let cfg = LaunchConfig::for_num_elems(n, 256)?;
    let ms = gpu.time(|| {
        let mut launch = Launch::new(&gpu, &function);
        launch.push(&da).push(&db).push(&mut dc);
        // SAFETY: the parameters match the PTX entry above.
        unsafe { launch.launch(cfg) }
    })?;
    assert!(ms > 0.0);
    let c = gpu.dtoh(&dc)?;
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    Ok(())
}

#[test]
fn by_value_parameters_and_lengths() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let input = gpu.htod(&[42u32, 1, 2])?;
    let mut out = gpu.alloc_zeroed::<f64>(6)?;
    let module = load_module(&gpu, Some(PTX), "handwritten")?;
    let function = module.function("params")?;
    let s = Params { x: 7, y: -2.25 };
    let mut launch = Launch::new(&gpu, &function);
    launch
        .push(ByValue(&1.5f32))
        .push(ByValue(&()))
        .push(ByValue(&s))
        .push(&input)
        .push(&mut out);
    let cfg = LaunchConfig::for_num_elems(1, 32)?;
    // SAFETY: the parameters match the PTX entry above (the unit value takes none).
    unsafe { launch.launch(cfg) }?;
    assert_eq!(gpu.dtoh(&out)?, [1.5, 7.0, -2.25, 3.0, 6.0, 42.0]);
    Ok(())
}

/// Empty buffers have a null device pointer; kernels get a dangling pointer instead, aligned
/// to the element and to `oxide_contract::SLICE_ALIGN` (16), never null (docs/contracts.md).
#[test]
fn empty_buffers_pass_a_non_null_pointer() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let module = load_module(&gpu, Some(PTX), "handwritten")?;
    let function = module.function("ptrs")?;
    let (a, mut b) = (gpu.htod::<f64>(&[])?, gpu.alloc_zeroed::<u16>(0)?);
    let mut out = gpu.alloc_zeroed::<u64>(2)?;
    let mut launch = Launch::new(&gpu, &function);
    launch.push(&a).push(&mut b).push(&mut out);
    // SAFETY: the parameters match the PTX entry above.
    unsafe { launch.launch(LaunchConfig::for_num_elems(1, 32)?) }?;
    let got = gpu.dtoh(&out)?;
    println!("pointers of empty buffers: {got:?}");
    assert_eq!(got, [16, 16]);
    Ok(())
}

/// Issue 7, hole 5: safe code that loads other PTX under a crate's name first does not change
/// what that crate's launcher (which passes its own PTX image) gets.
#[test]
fn a_module_loaded_under_another_crates_name_is_not_that_crates() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let spoof = load_module(&gpu, Some(SPOOF), "handwritten")?;
    assert!(spoof.function("spoofed").is_ok());
    let real = load_module(&gpu, Some(PTX), "handwritten")?;
    assert!(real.function("vecadd").is_ok());
    let e = real.function("spoofed").err().unwrap();
    assert!(matches!(e, Error::KernelNotFound { .. }), "{e}");
    Ok(())
}

#[test]
fn errors_are_results() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let e = load_module(&gpu, None, "vecadd").err().unwrap();
    assert!(
        matches!(
            e,
            Error::NoPtx {
                crate_name: "vecadd"
            }
        ),
        "{e}"
    );
    let module = load_module(&gpu, Some(PTX), "handwritten")?;
    let e = module.function("missing").err().unwrap();
    assert!(matches!(e, Error::KernelNotFound { .. }), "{e}");
    let e = load_module(&gpu, Some(c"not ptx at all"), "garbage")
        .err()
        .unwrap();
    assert!(matches!(e, Error::ModuleLoad { .. }), "{e}");
    println!("{e}");

    // A shape the hardware cannot run is refused before it reaches the driver.
    let function = module.function("vecadd")?;
    let bad = LaunchConfig {
        grid: (1, 1, 1),
        block: (2048, 1, 1),
        shared_mem_bytes: 0,
    };
    let (x, mut y) = (gpu.htod(&[1.0f32])?, gpu.alloc_zeroed::<f32>(1)?);
    let mut launch = Launch::new(&gpu, &function);
    launch.push(&x).push(&x).push(&mut y);
    // SAFETY: the parameters match the PTX entry.
    let e = unsafe { launch.launch(bad) }.unwrap_err();
    assert!(matches!(e, Error::LaunchShape(_)), "{e}");
    // So is more dynamic shared memory than a launch may have.
    let too_much = LaunchConfig {
        shared_mem_bytes: u32::MAX,
        ..LaunchConfig::for_num_elems(1, 32)?
    };
    let mut launch = Launch::new(&gpu, &function);
    launch.push(&x).push(&x).push(&mut y);
    // SAFETY: the parameters match the PTX entry.
    let e = unsafe { launch.launch(too_much) }.unwrap_err();
    assert!(matches!(e, Error::SharedMemory { .. }), "{e}");

    // Empty buffers round-trip.
    let empty = gpu.htod::<f32>(&[])?;
    assert!(empty.is_empty());
    assert!(gpu.dtoh(&empty)?.is_empty());
    assert!(gpu.alloc_zeroed::<u8>(0)?.is_empty());
    gpu.synchronize()?;

    let e = Gpu::new(1000).err().unwrap();
    assert!(matches!(e, Error::NoDevice { ordinal: 1000, .. }), "{e}");
    Ok(())
}

/// The device's compute capability, which `#[kernel(sm = ...)]` is checked against: an H200
/// says 90, and every GPU oxide compiles for says at least 75.
/// Above 48 KiB of shared memory, static (16 KiB here) and dynamic together, the launcher opts
/// the kernel in, up to what the device gives a block, and refuses more before the launch.
#[test]
fn dynamic_shared_memory_above_48_kib_is_opted_into() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let device_limit = gpu.max_shared_memory_per_block_opt_in()?;
    if gpu.name()?.contains("H200") {
        assert_eq!(device_limit, 227 * 1024);
    }
    let module = load_module(&gpu, Some(PTX), "handwritten")?;
    let function = module.function("static_shared")?;
    let with = |bytes| LaunchConfig {
        grid: (2, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: bytes,
    };
    let fits = device_limit - 16384;
    for bytes in [16, 32 * 1024, 32 * 1024 + 16, 48 * 1024, fits] {
        let mut out = gpu.alloc_zeroed::<u32>(2)?;
        let mut launch = Launch::new(&gpu, &function);
        launch.push(&mut out);
        // SAFETY: the parameters match the PTX entry.
        unsafe { launch.launch(with(bytes)) }?;
        assert_eq!(gpu.dtoh(&out)?, [7, 11], "{bytes} bytes");
    }
    let mut out = gpu.alloc_zeroed::<u32>(2)?;
    let mut launch = Launch::new(&gpu, &function);
    launch.push(&mut out);
    // SAFETY: the parameters match the PTX entry.
    let e = unsafe { launch.launch(with(fits + 4)) }.unwrap_err();
    assert!(
        matches!(e, Error::SharedMemory { requested, limit } if requested == fits + 4 && limit == fits),
        "{e}"
    );
    Ok(())
}

#[test]
fn the_compute_capability_is_read_once_and_plausible() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let cc = gpu.compute_capability()?;
    assert!((75..200).contains(&cc), "compute capability {cc}");
    assert_eq!(gpu.compute_capability()?, cc);
    if gpu.name()?.contains("H200") {
        assert_eq!(cc, 90);
    }
    Ok(())
}
