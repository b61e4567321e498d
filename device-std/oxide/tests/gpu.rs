//! The host runtime against a real GPU, with hand-written PTX that follows the parameter ABI of
//! docs/contracts.md (so it needs no backend). Each test passes without doing anything on a
//! machine that has no driver or GPU.

use std::ffi::CStr;

mod common;
use common::{PTX, gpu, queue_vecadd};

use oxide::host::{
    DeviceBuffer, DeviceMemory, DeviceMemoryMut, Error, Gpu, Launch, LaunchConfig, load_module,
};

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
        // SAFETY: the parameters of the hand-written PTX entry, in order.

        unsafe {
            launch
                .push_slice(da.region(), &[])
                .push_slice(db.region(), &[])
                .push_slice(dc.region_mut(), &[])
        };
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
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe {
        launch
            .push_value(&1.5f32)
            .push_value(&())
            .push_value(&s)
            .push_slice(input.region(), &[])
            .push_slice(out.region_mut(), &[])
    };
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
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe {
        launch
            .push_slice(a.region(), &[])
            .push_slice(b.region_mut(), &[])
            .push_slice(out.region_mut(), &[])
    };
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
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe {
        launch
            .push_slice(x.region(), &[])
            .push_slice(x.region(), &[])
            .push_slice(y.region_mut(), &[])
    };
    // SAFETY: the parameters match the PTX entry.
    let e = unsafe { launch.launch(bad) }.unwrap_err();
    assert!(matches!(e, Error::LaunchShape(_)), "{e}");
    // So is more dynamic shared memory than a launch may have.
    let too_much = LaunchConfig {
        shared_mem_bytes: u32::MAX,
        ..LaunchConfig::for_num_elems(1, 32)?
    };
    let mut launch = Launch::new(&gpu, &function);
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe {
        launch
            .push_slice(x.region(), &[])
            .push_slice(x.region(), &[])
            .push_slice(y.region_mut(), &[])
    };
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
        // SAFETY: the parameters of the hand-written PTX entry, in order.

        unsafe { launch.push_slice(out.region_mut(), &[]) };
        // SAFETY: the parameters match the PTX entry.
        unsafe { launch.launch(with(bytes)) }?;
        assert_eq!(gpu.dtoh(&out)?, [7, 11], "{bytes} bytes");
    }
    let mut out = gpu.alloc_zeroed::<u32>(2)?;
    let mut launch = Launch::new(&gpu, &function);
    // SAFETY: the parameters of the hand-written PTX entry, in order.

    unsafe { launch.push_slice(out.region_mut(), &[]) };
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

/// Queues the hand-written `vecadd` (c = a + b) on `gpu`'s stream (a `Stream` derefs to one).

#[test]
fn copies_between_buffers_and_the_host() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let data: Vec<u32> = (0..1000).collect();
    let src = gpu.htod(&data)?;
    let mut dst = gpu.alloc_zeroed::<u32>(1000)?;
    gpu.memcpy_dtod(&src, &mut dst)?;
    assert_eq!(gpu.dtoh(&dst)?, data);
    let mut short = gpu.alloc_zeroed::<u32>(999)?;
    let e = gpu.memcpy_dtod(&src, &mut short).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                operation: "memcpy_dtod",
                src: 1000,
                dst: 999
            }
        ),
        "{e}"
    );
    // Into part of a buffer, from the host and from another buffer's part.
    gpu.memcpy_htod(&[7, 8, 9], &mut dst.slice_mut(200..203)?)?;
    gpu.memcpy_dtod(&src.slice(500..600)?, &mut dst.slice_mut(0..100)?)?;
    let mut back = vec![0u32; 1000];
    gpu.memcpy_dtoh(&dst, &mut back)?;
    assert_eq!(&back[..100], &data[500..600]);
    assert_eq!(&back[100..200], &data[100..200]);
    assert_eq!(&back[200..203], &[7, 8, 9]);
    assert_eq!(&back[203..], &data[203..]);
    let mut part = [0u32; 4];
    gpu.memcpy_dtoh(&src.slice(996..)?, &mut part)?;
    assert_eq!(part, [996, 997, 998, 999]);
    assert!(gpu.memcpy_dtoh(&src, &mut part).is_err());
    assert!(gpu.memcpy_htod(&[1, 2], &mut dst).is_err());
    let copy = gpu.clone_dtod(&src.slice(1..5)?)?;
    assert_eq!(gpu.dtoh(&copy)?, [1, 2, 3, 4]);
    assert_eq!(
        gpu.dtoh(&gpu.clone_dtod(&short.slice(..0)?)?)?,
        Vec::<u32>::new()
    );
    Ok(())
}

#[test]
fn memset_and_fill() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let mut f = gpu.htod(&vec![1.5f32; 4097])?;
    gpu.memset_zeros(&mut f.slice_mut(1..)?)?;
    let back = gpu.dtoh(&f)?;
    assert_eq!(back[0], 1.5);
    assert!(back[1..].iter().all(|&x| x == 0.0));
    let mut words = gpu.alloc_zeroed::<u32>(333)?;
    gpu.memset_d8(&mut words, 0xab)?;
    assert!(gpu.dtoh(&words)?.iter().all(|&w| w == 0xabab_abab));
    let mut d = gpu.alloc_zeroed::<f64>(1003)?;
    gpu.fill(&mut d.slice_mut(2..1001)?, -2.25)?;
    let back = gpu.dtoh(&d)?;
    assert_eq!(
        (back[0], back[1], back[1001], back[1002]),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert!(back[2..1001].iter().all(|&x| x == -2.25));
    // Elements of 3 bytes, a length that is no power of two.
    let mut triples = gpu.alloc_zeroed::<[u8; 3]>(7)?;
    gpu.fill(&mut triples, [1, 2, 3])?;
    assert_eq!(gpu.dtoh(&triples)?, vec![[1, 2, 3]; 7]);
    gpu.fill(&mut triples.slice_mut(3..3)?, [9, 9, 9])?;
    Ok(())
}

#[test]
fn views_are_launch_arguments() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let n = 10_000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * 2) as f32).collect();
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(n)?;
    let m = 5_000;
    // Starts at multiples of four f32s: 16-byte aligned.
    queue_vecadd(
        &gpu,
        &da.slice(4..4 + m)?,
        &db.slice(8..8 + m)?,
        &mut dc.slice_mut(16..16 + m)?,
    )?;
    let c = gpu.dtoh(&dc)?;
    for i in 0..m {
        assert_eq!(c[16 + i], a[4 + i] + b[8 + i], "element {i}");
    }
    assert!(c[..16].iter().chain(&c[16 + m..]).all(|&x| x == 0.0));
    // A view one f32 in is not aligned as kernels assume: refused, nothing launched.
    let e = queue_vecadd(
        &gpu,
        &da.slice(1..1 + m)?,
        &db.slice(..m)?,
        &mut dc.slice_mut(..m)?,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::MisalignedBuffer { align: 16, .. }),
        "{e}"
    );
    let e = da.slice(0..n + 1).err().unwrap();
    assert!(matches!(e, Error::BadRange { start: 0, end, len } if end == n + 1 && len == n));
    Ok(())
}

#[test]
fn two_streams_with_events_and_timing() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let (s1, s2) = (gpu.new_stream()?, gpu.new_stream()?);
    let n = 1 << 22;
    let a = s1.htod(&vec![1.0f32; n])?;
    let b = s2.htod(&vec![2.0f32; n])?;
    let mut c1 = s1.alloc_zeroed::<f32>(n)?;
    let mut c2 = s2.alloc_zeroed::<f32>(n)?;
    let start = s1.record_event()?;
    // Each stream reads the buffer the other made: the launches wait for those copies.
    queue_vecadd(&s1, &a, &b, &mut c1)?;
    queue_vecadd(&s2, &b, &a, &mut c2)?;
    let end1 = s1.record_event()?;
    s2.wait_event(&end1)?;
    // c1 was written on s1; the copy on s2 follows the event, and the buffer's own record.
    let mut both = s2.alloc_zeroed::<f32>(2 * n)?;
    s2.memcpy_dtod(&c1, &mut both.slice_mut(..n)?)?;
    s2.memcpy_dtod(&c2, &mut both.slice_mut(n..)?)?;
    let end2 = s2.record_event()?;
    end2.synchronize()?;
    assert!(end2.is_complete()?);
    let ms = start.elapsed_ms(&end1)?;
    assert!(ms > 0.0, "{ms} ms");
    // Read back on the device's default stream, after the work of both.
    assert!(gpu.dtoh(&both)?.iter().all(|&x| x == 3.0));
    gpu.synchronize_device()?;
    Ok(())
}

#[test]
fn a_write_waits_for_reads_on_every_stream() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let (s1, s2) = (gpu.new_stream()?, gpu.new_stream()?);
    let n = 1 << 24;
    let x = gpu.htod(&vec![1.0f32; n])?;
    let mut x = x;
    let mut out1 = gpu.alloc_zeroed::<f32>(n)?;
    let mut out2 = gpu.alloc_zeroed::<f32>(n)?;
    for _ in 0..4 {
        // Two reads of `x` on two streams, then a write of it on a third: the write must not
        // start while either read runs (cudarc's single read event would only cover the
        // second).
        queue_vecadd(&s1, &x, &x, &mut out1)?;
        queue_vecadd(&s2, &x, &x, &mut out2)?;
        gpu.memset_zeros(&mut x)?;
        assert!(s1.dtoh(&out1)?.iter().all(|&v| v == 2.0));
        assert!(s2.dtoh(&out2)?.iter().all(|&v| v == 2.0));
        gpu.fill(&mut x, 1.0)?;
    }
    // A buffer dropped right after a launch that reads it on another stream: freed after it.
    let tmp = s1.htod(&vec![5.0f32; n])?;
    queue_vecadd(&s2, &tmp, &tmp, &mut out2)?;
    drop(tmp);
    assert!(s2.dtoh(&out2)?.iter().all(|&v| v == 10.0));
    Ok(())
}

#[test]
fn pinned_round_trip() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let stream = gpu.new_stream()?;
    let n = 1 << 20;
    let mut host = gpu.alloc_pinned::<u32>(n)?;
    assert_eq!(host.len(), n);
    assert!(host.as_slice()?.iter().all(|&x| x == 0));
    for (i, x) in host.as_mut_slice()?.iter_mut().enumerate() {
        *x = i as u32 * 3;
    }
    let mut dev: DeviceBuffer<u32> = stream.alloc_zeroed(n)?;
    stream.memcpy_htod_async(&mut host, &mut dev)?;
    let mut back = gpu.alloc_pinned::<u32>(n)?;
    // On another stream: ordered after the copy into `dev` by the buffer's record.
    gpu.memcpy_dtoh_async(&dev, &mut back)?;
    let back = back.as_slice()?;
    assert!(back.iter().enumerate().all(|(i, &x)| x == i as u32 * 3));
    let mut wrong = gpu.alloc_pinned::<u32>(n - 1)?;
    assert!(matches!(
        gpu.memcpy_dtoh_async(&dev, &mut wrong),
        Err(Error::LengthMismatch { .. })
    ));
    let mut empty = gpu.alloc_pinned::<u32>(0)?;
    assert!(empty.as_mut_slice()?.is_empty());
    // A pinned slice through the ordinary copies (which the driver reads asynchronously): they
    // return when the copy is done, so the host may rewrite the memory at once, then free it.
    let mut src = gpu.alloc_pinned::<u32>(n)?;
    src.as_mut_slice()?.fill(5);
    let copied = gpu.htod(src.as_slice()?)?;
    let mut into = gpu.alloc_zeroed::<u32>(n)?;
    gpu.memcpy_htod(src.as_slice()?, &mut into)?;
    src.as_mut_slice()?.fill(9);
    drop(src);
    assert!(gpu.dtoh(&copied)?.iter().all(|&x| x == 5));
    assert!(gpu.dtoh(&into)?.iter().all(|&x| x == 5));
    Ok(())
}

#[test]
fn device_properties_are_plausible() -> Result<(), Error> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let p = gpu.properties()?;
    println!("{p:#?}");
    assert_eq!(p.name, gpu.name()?);
    assert_eq!(p.warp_size, 32);
    assert!(p.multiprocessor_count > 0);
    assert!(p.max_threads_per_block >= 1024);
    assert_eq!(p.max_block_dim[0], 1024);
    assert_eq!(p.shared_memory_per_block, 48 * 1024);
    assert!(p.shared_memory_per_block_opt_in >= p.shared_memory_per_block);
    assert!(p.shared_memory_per_multiprocessor >= p.shared_memory_per_block_opt_in);
    assert!(p.total_global_memory > 1 << 30);
    assert!(p.l2_cache_size > 0 && p.clock_rate_khz > 0 && p.memory_bus_width_bits > 0);
    let (major, minor) = p.compute_capability;
    assert_eq!(major * 10 + minor, gpu.compute_capability()?);
    if p.name.contains("H200") {
        assert_eq!((major, minor), (9, 0));
        assert_eq!(p.multiprocessor_count, 132);
        assert_eq!(p.shared_memory_per_block_opt_in, 232_448);
        assert!(
            p.total_global_memory > 130 << 30,
            "{}",
            p.total_global_memory
        );
    }
    Ok(())
}
