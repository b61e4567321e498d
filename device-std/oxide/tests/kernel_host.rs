//! `#[kernel]` expansions compile, their launchers and emulators have the promised types, and a
//! kernel still runs on the host one simulated thread at a time (the emulator itself is tested
//! in tests/emulate.rs).

use oxide::emulate::{FailureKind, KernelFailure, ThreadContext, with_thread_context};
use oxide::host::{DeviceBuffer, Error, Gpu, LaunchConfig, Rows};
use oxide::prelude::*;

#[kernel]
pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
    let i = thread::index_1d();
    if let Some(out) = c.get_mut(ThreadIndex::linear()) {
        *out = a[i] + b[i];
    }
}

#[derive(Clone, Copy)]
pub struct Params {
    pub scale: f32,
    pub offset: [i32; 2],
}

/// Every by-value kind: scalar, struct, tuple, array, zero-sized; names that the launcher uses
/// for its own parameters must not clash.
#[kernel]
pub fn mixed(
    gpu: u32,
    cfg: Params,
    pair: (u8, f64),
    arr: [u16; 3],
    unit: (),
    launch: &[u32],
    mut out: DisjointSlice<f64>,
) {
    let _ = (unit, arr, launch);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = f64::from(gpu) + f64::from(cfg.scale) + pair.1;
    }
}

type VecaddLauncher = fn(
    &Gpu,
    LaunchConfig,
    &DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
    &mut DeviceBuffer<f32>,
) -> Result<(), Error>;

type MixedLauncher = fn(
    &Gpu,
    LaunchConfig,
    u32,
    Params,
    (u8, f64),
    [u16; 3],
    (),
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<f64>,
) -> Result<(), Error>;

type VecaddEmulator = fn(&LaunchConfig, &[f32], &[f32], &mut [f32]) -> Result<(), KernelFailure>;

type MixedEmulator = fn(
    &LaunchConfig,
    u32,
    Params,
    (u8, f64),
    [u16; 3],
    (),
    &[u32],
    &mut [f64],
) -> Result<(), KernelFailure>;

/// The launchers take, for each parameter, what its `LaunchArg` (`EmulatorArg`) impl takes: a
/// launcher is generic over them, so it becomes a function pointer of these types through a
/// closure.
#[test]
fn launchers_take_typed_arguments() {
    let _: VecaddLauncher = |gpu, cfg, a, b, c| vecadd::launch(gpu, cfg, a, b, c);
    let _: MixedLauncher =
        |gpu, cfg, a, p, t, arr, u, x, out| mixed::launch(gpu, cfg, a, p, t, arr, u, x, out);
    let _: fn(&Gpu) -> Result<(), Error> = vecadd::load;
    let _: VecaddEmulator = |cfg, a, b, c| vecadd::emulate(cfg, a, b, c);
    let _: MixedEmulator =
        |cfg, a, p, t, arr, u, x, out| mixed::emulate(cfg, a, p, t, arr, u, x, out);
}

#[test]
fn emulated_by_value_arguments_reach_every_thread() {
    let params = Params {
        scale: 0.5,
        offset: [1, 2],
    };
    let mut out = [0.0f64; 5];
    let cfg = LaunchConfig::for_num_elems(out.len(), 2).unwrap();
    mixed::emulate(&cfg, 3, params, (1, 0.25), [1, 2, 3], (), &[7], &mut out).unwrap();
    assert_eq!(out, [3.75; 5]);
}

#[test]
fn kernel_runs_on_the_host_per_simulated_thread() {
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let mut c = vec![0.0f32; n];
    let (block, grid) = (128u32, 8u32); // 1024 threads for 1000 elements
    for bx in 0..grid {
        for tx in 0..block {
            let ctx = ThreadContext {
                thread_idx: [tx, 0, 0],
                block_idx: [bx, 0, 0],
                block_dim: [block, 1, 1],
                grid_dim: [grid, 1, 1],
            };
            // SAFETY: `c` outlives the call and each simulated thread has its own index.
            let out = unsafe { DisjointSlice::from_raw_parts(c.as_mut_ptr(), c.len()) };
            with_thread_context(ctx, || vecadd(&a, &b, out));
        }
    }
    assert!(c.iter().enumerate().all(|(i, &v)| v == 3.0 * i as f32));
}

#[test]
fn disjoint_slice_accessors() {
    let mut data = [1u32, 2, 3];
    // SAFETY: `data` outlives `s`; a single thread.
    let mut s = unsafe { DisjointSlice::from_raw_parts(data.as_mut_ptr(), data.len()) };
    assert_eq!(s.len(), 3);
    assert!(!s.is_empty());
    // Host default: thread 0.
    *s.get_mut(ThreadIndex::linear()).unwrap() = 10;
    // SAFETY: in bounds, single thread.
    *unsafe { s.get_unchecked_mut(2) } = 30;
    let past_end = ThreadContext {
        thread_idx: [5, 0, 0],
        block_dim: [8, 1, 1],
        ..ThreadContext::default()
    };
    with_thread_context(past_end, || {
        assert!(s.get_mut(ThreadIndex::linear()).is_none())
    });
    assert_eq!(data, [10, 2, 30]);
    // SAFETY: empty.
    let empty = unsafe { DisjointSlice::<u8>::from_raw_parts(std::ptr::null_mut(), 0) };
    assert!(empty.is_empty());
}

/// Issue 18, hole 4: `with_thread_context` ran its closure as a thread outside its block, whose
/// `block::sum` wrote its warp's total 100 slots past the 32-slot scratch (a later `Vec`
/// changed; other offsets crashed). Now a context that no launch has is refused first.
#[test]
fn a_thread_outside_its_block_is_refused() {
    let outside = ThreadContext {
        thread_idx: [3200, 0, 0],
        ..ThreadContext::SINGLE
    };
    let mut ran = false;
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        with_thread_context(outside, || {
            ran = true;
            oxide::block::sum(1u32);
        })
    }));
    let message = *refused
        .expect_err("the context was accepted")
        .downcast::<String>()
        .unwrap();
    assert!(!ran, "the body ran");
    assert!(
        message.contains("thread index x = 3200 in a block of 1 along x"),
        "{message}"
    );
    // A block too large for the scratch, or of zero threads, is refused as a launch is.
    for block_dim in [[2048, 1, 1], [65536, 65536, 1], [0, 1, 1]] {
        let ctx = ThreadContext {
            block_dim,
            ..ThreadContext::SINGLE
        };
        let refused = std::panic::catch_unwind(|| with_thread_context(ctx, || {}));
        assert!(refused.is_err(), "{block_dim:?}");
    }
    // The last thread of the largest block runs: its warp is the scratch's last slot's (it
    // runs alone, so what it sums is no block's total).
    let last = ThreadContext {
        thread_idx: [1023, 0, 0],
        block_dim: [1024, 1, 1],
        ..ThreadContext::SINGLE
    };
    let mut ran = false;
    with_thread_context(last, || {
        std::hint::black_box(oxide::block::sum(5u32));
        ran = true;
    });
    assert!(ran);
}

/// Review of issue 18: a block of 2^22 · 2^21 · 2^21 threads (2^64: one more than a u64
/// holds) panicked with an overflow in debug builds in the kernel's shape-contract check, which
/// runs before the hardware limits are checked. The emulator and the GPU launcher both return a
/// launch-shape error instead (the launcher checks before it needs the kernel's PTX).
#[test]
fn a_block_of_more_threads_than_u64_counts_is_an_error() {
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (1 << 22, 1 << 21, 1 << 21),
        shared_mem_bytes: 0,
    };
    let mut c = [0.0f32; 4];
    let e = vecadd::emulate(&cfg, &[0.0; 4], &[0.0; 4], &mut c).unwrap_err();
    assert!(matches!(e.kind, FailureKind::LaunchShape(_)), "{e:?}");
    assert!(e.to_string().contains("block x = 4194304"), "{e}");
    let mut out = [0.0f64; 1];
    let e = mixed::emulate(&cfg, 0, PARAMS, (0, 0.0), [0; 3], (), &[], &mut out).unwrap_err();
    assert!(matches!(e.kind, FailureKind::LaunchShape(_)), "{e:?}");
    if let Ok(gpu) = Gpu::new(0) {
        let a = gpu.htod(&[0.0f32; 4]).unwrap();
        let mut c = gpu.alloc_zeroed::<f32>(4).unwrap();
        let e = vecadd::launch(&gpu, cfg, &a, &a, &mut c).unwrap_err();
        assert!(matches!(e, Error::LaunchShape(_)), "{e}");
    }
}

const PARAMS: Params = Params {
    scale: 0.0,
    offset: [0, 0],
};

#[test]
fn disjoint_slice_layout_is_pointer_then_length() {
    use std::mem::{align_of, size_of};
    assert_eq!(size_of::<DisjointSlice<f32>>(), 2 * size_of::<usize>());
    assert_eq!(align_of::<DisjointSlice<f64>>(), align_of::<usize>());
    let mut x = 7u8;
    // SAFETY: only the layout is inspected.
    let s = unsafe { DisjointSlice::from_raw_parts(&mut x as *mut u8, 1) };
    // SAFETY: repr(C): field 0 is the pointer, field 1 the length.
    let words: [usize; 2] = unsafe { std::mem::transmute(s) };
    assert_eq!(words, [&raw mut x as usize, 1]);
}

#[test]
fn no_driver_is_an_error_not_a_panic() {
    match Gpu::new(0) {
        Ok(gpu) => {
            // A GPU machine: a plain build has no PTX, and says so.
            let e = vecadd::load(&gpu).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::NoPtx {
                        crate_name: "kernel_host"
                    }
                ),
                "{e}"
            );
        }
        Err(e) => assert!(e.is_unavailable(), "{e}"),
    }
}

/// `requires`: conditions on the by-value arguments and the buffers' lengths (`name.len()`),
/// each checked as written before anything runs.
#[kernel(
    grid = "1d",
    requires = "scale.is_finite() && scale > 0.0",
    requires = "shift < 4",
    requires = "a.len().is_multiple_of(32) && a.len().is_multiple_of(out.len()) && out.len() >= a.len() && a.len() > shift as usize"
)]
pub fn scaled(a: &[f32], scale: f32, shift: u32, mut out: DisjointSlice<f32>) {
    let i = thread::index_1d();
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = a[i] * scale + shift as f32;
    }
}

#[test]
fn requires_is_checked_before_running() {
    let a = vec![1.0f32; 64];
    let mut out = vec![0.0f32; 64];
    let cfg = LaunchConfig {
        grid: (2, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    scaled::emulate(&cfg, &a, 2.0, 1, &mut out).unwrap();
    assert!(out.iter().all(|&v| v == 3.0));
    for (scale, shift, broken) in [
        (f32::NAN, 1, "scale.is_finite() && scale > 0.0"),
        (-1.0, 1, "scale.is_finite() && scale > 0.0"),
        (2.0, 4, "shift < 4"),
    ] {
        out.fill(0.0);
        let e = scaled::emulate(&cfg, &a, scale, shift, &mut out).unwrap_err();
        assert_refused(e, broken);
        assert!(out.iter().all(|&v| v == 0.0), "nothing ran");
    }
    let lengths = "a.len().is_multiple_of(32) && a.len().is_multiple_of(out.len()) && out.len() >= a.len() && a.len() > shift as usize";
    for (a_len, out_len) in [(48, 48), (64, 32), (0, 0)] {
        let a = vec![1.0f32; a_len];
        let mut out = vec![0.0f32; out_len];
        let e = scaled::emulate(&cfg, &a, 2.0, 1, &mut out).unwrap_err();
        // The refusal names the lengths the condition read.
        let read = format!("(`a.len()` = {a_len}, `out.len()` = {out_len})");
        assert!(e.to_string().ends_with(&read), "{e}");
        assert_refused(e, lengths);
        assert!(out.iter().all(|&v| v == 0.0), "nothing ran");
    }
}

/// `requires` over a row output's shape: whole rows of 4, the whole buffer.
#[kernel(
    requires = "out.width() == 4 && out.pitch() == 4 && out.origin() == (0, 0) && out.rows() * 4 == out.len()"
)]
pub fn whole_rows_of_four(mut out: DisjointRows<u32>) {
    if let Some(((row, col), o)) = out.at_thread() {
        *o = (row * 4 + col) as u32;
    }
}

#[test]
fn requires_reads_a_row_outputs_shape() {
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (4, 8, 1),
        shared_mem_bytes: 0,
    };
    let mut out = [u32::MAX; 32];
    whole_rows_of_four::emulate(&cfg, Rows::new(&mut out[..], 4).unwrap()).unwrap();
    assert!(out.iter().enumerate().all(|(i, &v)| v == i as u32));
    let condition = "out.width() == 4 && out.pitch() == 4 && out.origin() == (0, 0) && out.rows() * 4 == out.len()";
    // (width, pitch, rectangle's rows): the shape the refusal names.
    let refusals = [
        (8, 8, 0..4, "4 × 8 (rows × width), pitch 8, origin (0, 0)"),
        (4, 4, 1..8, "7 × 4 (rows × width), pitch 4, origin (1, 0)"),
        (4, 8, 0..4, "4 × 4 (rows × width), pitch 8, origin (0, 0)"),
    ];
    for (width, pitch, rows, shape) in refusals {
        let shaped = Rows::with_pitch(&mut out[..], width, pitch)
            .and_then(|r| r.rect(rows, 0..width))
            .unwrap();
        let e = whole_rows_of_four::emulate(&cfg, shaped).unwrap_err();
        assert!(matches!(e.kind, FailureKind::Requires(_)), "{e}");
        let want = format!("requires `{condition}`");
        assert!(e.to_string().contains(&want), "{e}");
        assert!(e.to_string().contains(&format!("`out` {shape}")), "{e}");
        assert!(e.to_string().contains("`out.len()` = 32"), "{e}");
    }
    assert!(
        out.iter().enumerate().all(|(i, &v)| v == i as u32),
        "nothing ran"
    );
}

/// `e` is the refusal of the `requires` condition `broken` of `scaled`, as the emulator and
/// the GPU launcher give it.
fn assert_refused(e: KernelFailure, broken: &str) {
    assert!(matches!(e.kind, FailureKind::Requires(_)), "{e}");
    let want = format!("kernel `scaled` requires `{broken}`");
    assert!(e.to_string().contains(&want), "{e}");
    assert!(matches!(Error::from(e), Error::Requires(_)));
}
