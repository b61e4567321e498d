//! Generic kernels (closures from the host included) and kernel options: the expansions compile,
//! the launchers and emulators have the promised types, the emulator runs the kernels, and the
//! `grid = "1d"` launch contract is checked before anything runs.

use core::ops::Mul;

use oxide::emulate::{FailureKind, KernelFailure};
use oxide::host::{DeviceBuffer, Error, Gpu, LaunchConfig};
use oxide::prelude::*;

#[kernel]
pub fn scale<T: Copy + Mul<Output = T>>(k: T, x: &[T], mut y: DisjointSlice<T>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = y.get_mut(idx) {
        *out = k * x[i];
    }
}

#[kernel]
pub fn map<F: Fn(u32) -> u32 + Copy>(f: F, input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = f(input[i]);
    }
}

/// Two type parameters, a where clause, and both options.
#[kernel(strict_float, grid = "1d")]
pub fn fused<A, B>(a: A, b: B, x: &[f32], mut y: DisjointSlice<f32>)
where
    A: Copy + Into<f32>,
    B: Copy + Into<f32>,
{
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(out) = y.get_mut(idx) {
        *out = a.into() * x[i] + b.into();
    }
}

/// A non-generic kernel with an option.
#[kernel(grid = "1d")]
pub fn fill(v: u32, mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = v;
    }
}

#[kernel(strict_float)]
pub fn strict(mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
}

/// Plain device data of every shape crosses by value: a struct with an array, an enum and a
/// zero-sized marker; the output is written `DisjointSlice<'_, T>`, the launch's lifetime named.
#[derive(Clone, Copy)]
pub struct Affine<T> {
    pub coefficients: [T; 2],
    pub mode: Mode,
    pub unit: core::marker::PhantomData<fn() -> T>,
}

#[derive(Clone, Copy)]
pub enum Mode {
    Plain,
    Offset(u32),
}

#[kernel]
pub fn affine<T: Copy + Into<u64>>(a: Affine<T>, input: &[u32], mut out: DisjointSlice<'_, u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    let offset = match a.mode {
        Mode::Plain => 0,
        Mode::Offset(o) => u64::from(o),
    };
    if let Some(o) = out.get_mut(idx) {
        *o = a.coefficients[0].into() * u64::from(input[i]) + a.coefficients[1].into() + offset;
    }
}

fn shape(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

#[test]
fn emulates_a_generic_kernel_at_two_types() {
    let x: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
    let mut y = vec![0.0f32; 100];
    let cfg = LaunchConfig::for_num_elems(100, 32).unwrap();
    scale::emulate(&cfg, 3.0f32, &x, &mut y).unwrap();
    assert!(y.iter().enumerate().all(|(i, &v)| v == i as f32 * 1.5));

    let x: Vec<u32> = (0..100).collect();
    let mut y = vec![0u32; 100];
    scale::emulate::<u32>(&cfg, 7, &x, &mut y).unwrap();
    assert_eq!(y, (0..100).map(|i| 7 * i).collect::<Vec<u32>>());
}

#[test]
fn emulates_a_kernel_taking_a_closure() {
    let input: Vec<u32> = (0..50).collect();
    let mut out = vec![0u32; 50];
    let cfg = LaunchConfig::for_num_elems(50, 16).unwrap();
    // Captured by value: the closure is `Copy`, and crosses as its bytes.
    let (k, offset) = (3u32, 10u32);
    map::emulate(&cfg, move |v| v * k + offset, &input, &mut out).unwrap();
    assert_eq!(out, (0..50).map(|v| v * 3 + 10).collect::<Vec<u32>>());
    // A capture-free closure, and a function item, are zero-sized.
    map::emulate(&cfg, |v| v ^ 1, &input, &mut out).unwrap();
    assert_eq!(out, (0..50).map(|v| v ^ 1).collect::<Vec<u32>>());
    fn double(v: u32) -> u32 {
        v * 2
    }
    map::emulate(&cfg, double, &input, &mut out).unwrap();
    assert_eq!(out, (0..50).map(double).collect::<Vec<u32>>());
}

#[test]
fn plain_device_data_crosses_by_value() {
    let input: Vec<u32> = (0..40).collect();
    let mut out = vec![0u64; 40];
    let cfg = LaunchConfig::for_num_elems(40, 16).unwrap();
    let a = Affine {
        coefficients: [3u16, 5],
        mode: Mode::Offset(100),
        unit: core::marker::PhantomData,
    };
    affine::emulate(&cfg, a, &input, &mut out).unwrap();
    assert_eq!(out, (0..40).map(|x| 3 * x + 105).collect::<Vec<u64>>());
    let a = Affine {
        mode: Mode::Plain,
        ..a
    };
    affine::emulate(&cfg, a, &input, &mut out).unwrap();
    assert_eq!(out, (0..40).map(|x| 3 * x + 5).collect::<Vec<u64>>());
}

#[test]
fn emulated_generic_failures_name_the_kernel() {
    let mut out = vec![0u32; 4];
    let cfg = LaunchConfig::for_num_elems(4, 4).unwrap();
    let e = map::emulate(&cfg, |v: u32| v, &[1, 2], &mut out).unwrap_err();
    assert_eq!(e.kernel, "map");
    assert!(matches!(e.kind, FailureKind::Panicked { .. }), "{e}");
    assert_eq!(e.thread(), Some([2, 0, 0]));
}

#[test]
fn launchers_and_emulators_are_generic_over_the_type_parameters() {
    type ScaleLauncher<T> =
        fn(&Gpu, LaunchConfig, T, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<(), Error>;
    type ScaleEmulator<T> = fn(&LaunchConfig, T, &[T], &mut [T]) -> Result<(), KernelFailure>;
    // Each argument is generic too (its `LaunchArg`/`EmulatorArg`): a closure names them.
    let _: ScaleLauncher<f32> = |gpu, cfg, k, x, y| scale::launch::<f32>(gpu, cfg, k, x, y);
    let _: ScaleLauncher<u64> = |gpu, cfg, k, x, y| scale::launch::<u64>(gpu, cfg, k, x, y);
    let _: ScaleEmulator<f64> = |cfg, k, x, y| scale::emulate::<f64>(cfg, k, x, y);
    let _: fn(&Gpu) -> Result<(), Error> = scale::load;
    let _: fn(&Gpu, LaunchConfig, u8, u16, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> _ =
        |gpu, cfg, a, b, x, y| fused::launch::<u8, u16>(gpu, cfg, a, b, x, y);
    // The hidden wrappers the backend compiles, named after the options.
    let _: fn(f32, &[f32], DisjointSlice<f32>) = __oxide_kernel__scale::<f32>;
    let _: fn(u8, u16, &[f32], DisjointSlice<f32>) = __oxide_kernel_grid1d_strict__fused::<u8, u16>;
    // The user's functions are unchanged.
    let _: fn(f32, &[f32], DisjointSlice<f32>) = scale::<f32>;
}

#[test]
fn grid_1d_emulation_checks_the_contract() {
    let x = [1.0f32, 2.0, 3.0];
    let mut y = [0.0f32; 3];
    fused::emulate(
        &LaunchConfig::for_num_elems(3, 2).unwrap(),
        2u8,
        1u16,
        &x,
        &mut y,
    )
    .unwrap();
    assert_eq!(y, [3.0, 5.0, 7.0]);

    let mut out = [0u32; 8];
    fill::emulate(&shape((2, 1, 1), (4, 1, 1)), 9, &mut out).unwrap();
    assert_eq!(out, [9; 8]);
    for (grid, block) in [
        ((1, 2, 1), (4, 1, 1)),
        ((1, 1, 2), (4, 1, 1)),
        ((1, 1, 1), (4, 2, 1)),
        ((1, 1, 1), (4, 1, 2)),
    ] {
        let mut out = [0u32; 8];
        let e = fill::emulate(&shape(grid, block), 9, &mut out).unwrap_err();
        let FailureKind::LaunchShape(reason) = &e.kind else {
            panic!("{e}");
        };
        assert!(reason.contains("grid = \"1d\""), "{reason}");
        assert_eq!(e.kernel, "fill");
        // Nothing ran.
        assert_eq!(out, [0; 8]);
        assert!(matches!(Error::from(e), Error::LaunchShape(_)));
        let e = fused::emulate(&shape(grid, block), 1u8, 1u8, &x, &mut y).unwrap_err();
        assert!(matches!(e.kind, FailureKind::LaunchShape(_)), "{e}");
    }
}

/// On a machine with a GPU: the contract is checked before anything else (this build has no
/// PTX, which would otherwise be the error).
#[test]
fn grid_1d_launch_checks_the_contract() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            assert!(e.is_unavailable(), "{e}");
            return;
        }
    };
    let mut out = gpu.alloc_zeroed::<u32>(8).unwrap();
    let e = fill::launch(&gpu, shape((1, 1, 1), (4, 2, 1)), 9, &mut out).unwrap_err();
    assert!(
        matches!(&e, Error::LaunchShape(r) if r.contains("`fill`")),
        "{e}"
    );
    let x = gpu.htod(&[1.0f32]).unwrap();
    let mut y = gpu.alloc_zeroed::<f32>(1).unwrap();
    let e = fused::launch(&gpu, shape((1, 1, 2), (1, 1, 1)), 1u8, 1u8, &x, &mut y).unwrap_err();
    assert!(matches!(e, Error::LaunchShape(_)), "{e}");
    // A 1-D shape gets as far as the missing PTX.
    let e = fill::launch(&gpu, shape((2, 1, 1), (4, 1, 1)), 9, &mut out).unwrap_err();
    assert!(matches!(e, Error::NoPtx { .. }), "{e}");
    let e = scale::launch(&gpu, shape((1, 1, 1), (1, 1, 1)), 1.0f32, &x, &mut y).unwrap_err();
    assert!(matches!(e, Error::NoPtx { .. }), "{e}");
}
