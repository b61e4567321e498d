//! Kernels with more than one input slice: structs and enums passed by value from the host,
//! closures passed from the host, generic kernels at several types, a `strict_float` kernel
//! compared bit for bit, and a `grid = "1d"` launch contract.

use oxide::prelude::*;

use crate::harness::{
    Case,
    Check::{Exact, Ulp},
    KernelCase,
};

/// A by-value argument with padding and mixed field types (rustc's layout on both sides).
#[derive(Clone, Copy)]
pub struct Affine {
    pub scale: u32,
    pub offset: f32,
    pub flip: bool,
}

fn affine_body(p: Affine, x: u64) -> f32 {
    let v = (x % 1000) as f32 * p.scale as f32 + p.offset;
    if p.flip { -v } else { v }
}

const AFFINE: Affine = Affine {
    scale: 3,
    offset: 0.25,
    flip: true,
};

/// A struct by value.
#[kernel]
pub fn struct_by_value(p: Affine, input: &[u64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = affine_body(p, input[i]);
    }
}

/// An enum with payloads, by value.
#[derive(Clone, Copy)]
pub enum Step {
    Add(u64),
    Mul(u32),
    Rotate { by: u8 },
    Clear,
}

fn step_body(step: Step, x: u64) -> u64 {
    match step {
        Step::Add(n) => x.wrapping_add(n),
        Step::Mul(m) => x.wrapping_mul(m as u64),
        Step::Rotate { by } => x.rotate_left(by as u32),
        Step::Clear => 0,
    }
}

/// An enum by value (one launch per variant).
#[kernel]
pub fn enum_by_value(step: Step, input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = step_body(step, input[i]);
    }
}

const STEPS: [Step; 4] = [
    Step::Add(7),
    Step::Mul(0x9e37),
    Step::Rotate { by: 13 },
    Step::Clear,
];

/// A closure from the host: a generic kernel over `F`.
#[kernel]
pub fn apply_closure<F: Fn(u64) -> u64 + Copy>(f: F, input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = f(input[i]);
    }
}

fn host_closure() -> impl Fn(u64) -> u64 + Copy {
    let (mask, shift) = (0xffff_0000_ffffu64, 5u32);
    move |x| (x & mask).rotate_right(shift) ^ mask
}

/// A generic kernel instantiated at several types.
#[kernel]
pub fn scale_generic<T: Copy + core::ops::Mul<Output = T> + FromBits>(
    k: T,
    input: &[u64],
    mut out: DisjointSlice<T>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = T::from_bits(input[i]) * k;
    }
}

/// How a generic case turns the raw input into its element type.
pub trait FromBits {
    fn from_bits(x: u64) -> Self;
}

impl FromBits for u32 {
    fn from_bits(x: u64) -> Self {
        (x as u32) >> 2
    }
}

impl FromBits for i64 {
    fn from_bits(x: u64) -> Self {
        (x as i64) >> 3
    }
}

impl FromBits for f64 {
    fn from_bits(x: u64) -> Self {
        (x % 100_000) as f64 * 0.125
    }
}

fn fma_chain(x: u64) -> f32 {
    let a = f32::from_bits(x as u32 & 0x3fff_ffff);
    let b = (x >> 40) as f32 * 0.001;
    a * b + a * 0.1 - b
}

/// Without FMA contraction a float kernel rounds exactly as on the CPU.
#[kernel(strict_float)]
pub fn strict_float_chain(input: &[u64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = fma_chain(input[i]);
    }
}

/// `a * b + c` with operands of one sign: fused or not, the results are at most 1 ulp apart
/// (with cancellation no ulp bound would hold, which is why `strict_float` exists).
fn positive_fma(x: u64) -> f32 {
    let a = (x % 1000) as f32 * 0.37;
    let b = ((x >> 10) % 1000) as f32 * 1.3;
    let c = ((x >> 20) % 1000) as f32 * 0.01;
    a * b + c
}

/// The GPU may fuse `a * b + c` into one FMA, as nvcc does: within 1 ulp of the CPU.
#[kernel]
pub fn contracted_float(input: &[u64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = positive_fma(input[i]);
    }
}

/// Under the `grid = "1d"` contract the linear index is the 1-D index.
#[kernel(grid = "1d")]
pub fn grid_1d_contract(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = (i as u64) ^ input[i] ^ thread::index_1d() as u64;
    }
}

/// A parameter kind declared in device-std alone (issue 19): 128 opaque bytes, aligned to 64,
/// passed by value and read in place.
#[kernel]
pub fn descriptor_by_value(
    d: oxide::descriptor::Descriptor128,
    input: &[u64],
    mut out: DisjointSlice<u64>,
) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = descriptor_body(&d, input[i]);
    }
}

fn descriptor_body(d: &oxide::descriptor::Descriptor128, x: u64) -> u64 {
    let word = d.word((x % 16) as usize).unwrap_or(0);
    word ^ u64::from(d.bytes()[(x % 128) as usize]) ^ x
}

/// Bytes 0, 3, 6, ... (mod 256), so that every word differs.
static DESCRIPTOR: oxide::descriptor::Descriptor128 = {
    let mut bytes = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        bytes[i] = (i * 3 + 1) as u8;
        i += 1;
    }
    oxide::descriptor::Descriptor128::from_bytes(bytes)
};

fn map_all<R>(input: &[u64], f: impl Fn(u64) -> R) -> Vec<R> {
    input.iter().map(|&x| f(x)).collect()
}

pub fn cases() -> Vec<Box<dyn Case>> {
    let mut cases: Vec<Box<dyn Case>> = vec![
        Box::new(KernelCase::<f32> {
            name: "struct_by_value",
            check: Ulp(2),
            reference: |input| map_all(input, |x| affine_body(AFFINE, x)),
            launch: |gpu, cfg, input, out| struct_by_value::launch(gpu, cfg, AFFINE, input, out),
            emulate: |cfg, input, out| struct_by_value::emulate(cfg, AFFINE, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "descriptor_by_value",
            check: Exact,
            reference: |input| map_all(input, |x| descriptor_body(&DESCRIPTOR, x)),
            launch: |gpu, cfg, input, out| {
                descriptor_by_value::launch(gpu, cfg, &DESCRIPTOR, input, out)
            },
            emulate: |cfg, input, out| descriptor_by_value::emulate(cfg, &DESCRIPTOR, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "closure_from_host",
            check: Exact,
            reference: |input| map_all(input, host_closure()),
            launch: |gpu, cfg, input, out| {
                apply_closure::launch(gpu, cfg, host_closure(), input, out)
            },
            emulate: |cfg, input, out| apply_closure::emulate(cfg, host_closure(), input, out),
        }),
        Box::new(KernelCase::<u32> {
            name: "generic_kernel_u32",
            check: Exact,
            reference: |input| map_all(input, |x| <u32 as FromBits>::from_bits(x) * 3),
            launch: |gpu, cfg, input, out| scale_generic::launch(gpu, cfg, 3u32, input, out),
            emulate: |cfg, input, out| scale_generic::emulate(cfg, 3u32, input, out),
        }),
        Box::new(KernelCase::<i64> {
            name: "generic_kernel_i64",
            check: Exact,
            reference: |input| map_all(input, |x| <i64 as FromBits>::from_bits(x) * -5),
            launch: |gpu, cfg, input, out| scale_generic::launch(gpu, cfg, -5i64, input, out),
            emulate: |cfg, input, out| scale_generic::emulate(cfg, -5i64, input, out),
        }),
        Box::new(KernelCase::<f64> {
            name: "generic_kernel_f64",
            check: Exact,
            reference: |input| map_all(input, |x| <f64 as FromBits>::from_bits(x) * 2.5),
            launch: |gpu, cfg, input, out| scale_generic::launch(gpu, cfg, 2.5f64, input, out),
            emulate: |cfg, input, out| scale_generic::emulate(cfg, 2.5f64, input, out),
        }),
        Box::new(KernelCase::<f32> {
            name: "strict_float_bit_exact",
            check: Exact,
            reference: |input| map_all(input, fma_chain),
            launch: |gpu, cfg, input, out| strict_float_chain::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| strict_float_chain::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<f32> {
            name: "contracted_float_within_1ulp",
            check: Ulp(1),
            reference: |input| map_all(input, positive_fma),
            launch: |gpu, cfg, input, out| contracted_float::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| contracted_float::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "grid_1d_contract",
            check: Exact,
            reference: |input| {
                input
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| x ^ i as u64 ^ i as u64)
                    .collect()
            },
            launch: |gpu, cfg, input, out| grid_1d_contract::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| grid_1d_contract::emulate(cfg, input, out),
        }),
    ];
    // One case per enum variant, so each variant's layout crosses to the GPU.
    macro_rules! enum_case {
        ($name:literal, $i:literal) => {
            Box::new(KernelCase::<u64> {
                name: $name,
                check: Exact,
                reference: |input| map_all(input, |x| step_body(STEPS[$i], x)),
                launch: |gpu, cfg, input, out| {
                    enum_by_value::launch(gpu, cfg, STEPS[$i], input, out)
                },
                emulate: |cfg, input, out| enum_by_value::emulate(cfg, STEPS[$i], input, out),
            })
        };
    }
    cases.push(enum_case!("enum_by_value_add", 0));
    cases.push(enum_case!("enum_by_value_mul", 1));
    cases.push(enum_case!("enum_by_value_rotate", 2));
    cases.push(enum_case!("enum_by_value_unit", 3));
    cases
}
