//! The `m16n8k32` byte shapes (`i8`/`u8` into `i32`, `e4m3`/`e5m2` into `f32`, the same type or
//! mixed) on the CPU emulator: a warp's product against a plain one, the layouts written here
//! again from the PTX ISA; the `i32` accumulation wrapping; and a partial warp failing the
//! launch.

mod xorshift;

use oxide::mma::{FragC, fp8, int8, mma};
use oxide::prelude::*;

/// `(row, col)` of accumulator `i` of lane `lane` (PTX ISA, the m16n8k32 C fragment).
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

/// One warp: `c + a · b` for a 16 × 32 `i8` A and a 32 × 8 B (row-major), each lane's four
/// `i32` accumulators.
#[kernel]
pub fn int8_product(a: &[i8], b: &[i8], c: &[i32], mut out: DisjointSlice<[i32; 4]>) {
    let fa = int8::FragA::from_fn(|r, col| a[r * 32 + col]);
    let fb = int8::FragB::from_fn(|k, n| b[k * 8 + n]);
    let acc = int8::FragC::from_fn(|r, col| c[r * 8 + col]);
    let d = mma(&fa, &fb, acc);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

/// The same in `e4m3`, from small integers (exact in fp8 and in the `f32` sums).
#[kernel]
pub fn e4m3_product(a: &[f32], b: &[f32], mut out: DisjointSlice<[f32; 4]>) {
    let fa = fp8::FragA::from_fn(|r, col| e4m3::from_f32(a[r * 32 + col]));
    let fb = fp8::FragB::from_fn(|k, n| e4m3::from_f32(b[k * 8 + n]));
    let d = mma(&fa, &fb, FragC::zero());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

/// One warp: `a · b` for an `i8` A and a `u8` B (`mma.sync ... s32.s8.u8.s32`), each lane's
/// four accumulators.
#[kernel]
pub fn mixed_int8_product(a: &[i8], b: &[u8], mut out: DisjointSlice<[i32; 4]>) {
    let fa = int8::FragA::from_fn(|r, col| a[r * 32 + col]);
    let fb = int8::FragB::from_fn(|k, n| b[k * 8 + n]);
    let d = mma(&fa, &fb, int8::FragC::zero());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

/// One warp: `a · b` for an `e5m2` A and an `e4m3` B of small integers (`... f32.e5m2.e4m3.f32`).
#[kernel]
pub fn mixed_fp8_product(a: &[f32], b: &[f32], mut out: DisjointSlice<[f32; 4]>) {
    let fa = fp8::FragA::from_fn(|r, col| e5m2::from_f32(a[r * 32 + col]));
    let fb = fp8::FragB::from_fn(|k, n| e4m3::from_f32(b[k * 8 + n]));
    let d = mma(&fa, &fb, FragC::zero());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

fn warp(threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Bytes over the whole range, from a xorshift.
fn bytes(len: usize, seed: u32) -> Vec<i8> {
    xorshift::words(len, seed).map(|x| (x >> 8) as i8).collect()
}

#[test]
fn an_int8_product_is_the_plain_product_wrapping() {
    let (a, b) = (bytes(16 * 32, 1), bytes(32 * 8, 2));
    // Accumulators near i32's limits: adding the dot product wraps.
    let c: Vec<i32> = (0..128)
        .map(|i| match i % 3 {
            0 => i32::MAX - i,
            1 => i32::MIN + i,
            _ => i,
        })
        .collect();
    let mut out = vec![[0i32; 4]; 32];
    int8_product::emulate(&warp(32), &a, &b, &c, &mut out).unwrap();
    let mut wrapped = 0;
    for (lane, values) in out.iter().enumerate() {
        for (i, &got) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            let dot: i64 = (0..32)
                .map(|k| i64::from(a[r * 32 + k]) * i64::from(b[k * 8 + col]))
                .sum();
            let exact = i64::from(c[r * 8 + col]) + dot;
            wrapped += usize::from(i32::try_from(exact).is_err());
            assert_eq!(got, exact as i32, "lane {lane}, accumulator {i}");
        }
    }
    assert!(
        wrapped > 10,
        "the inputs make sums past i32's range ({wrapped})"
    );
}

/// The signed A's and the unsigned B's bytes are each read as their own type: a byte above 127
/// is negative in A and large in B.
#[test]
fn a_mixed_int8_product_reads_each_operand_as_its_type() {
    let a = bytes(16 * 32, 5);
    let b: Vec<u8> = bytes(32 * 8, 6).iter().map(|&x| x as u8).collect();
    let mut out = vec![[0i32; 4]; 32];
    mixed_int8_product::emulate(&warp(32), &a, &b, &mut out).unwrap();
    for (lane, values) in out.iter().enumerate() {
        for (i, &got) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            let dot: i32 = (0..32)
                .map(|k| i32::from(a[r * 32 + k]) * i32::from(b[k * 8 + col]))
                .sum();
            assert_eq!(got, dot, "lane {lane}, accumulator {i}");
        }
    }
}

/// An `e5m2` A times an `e4m3` B of small integers is exact, as either alone is.
#[test]
fn a_mixed_fp8_product_of_small_integers_is_exact() {
    let small = |len: usize, seed: u32| -> Vec<f32> {
        bytes(len, seed).iter().map(|&x| f32::from(x % 5)).collect()
    };
    let (a, b) = (small(16 * 32, 7), small(32 * 8, 8));
    let mut out = vec![[f32::NAN; 4]; 32];
    mixed_fp8_product::emulate(&warp(32), &a, &b, &mut out).unwrap();
    for (lane, values) in out.iter().enumerate() {
        for (i, &got) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            let exact: f32 = (0..32).map(|k| a[r * 32 + k] * b[k * 8 + col]).sum();
            assert_eq!(got, exact, "lane {lane}, accumulator {i}");
        }
    }
}

#[test]
fn an_e4m3_product_of_small_integers_is_exact() {
    let small = |len: usize, seed: u32| -> Vec<f32> {
        bytes(len, seed).iter().map(|&x| f32::from(x % 5)).collect()
    };
    let (a, b) = (small(16 * 32, 3), small(32 * 8, 4));
    let mut out = vec![[f32::NAN; 4]; 32];
    e4m3_product::emulate(&warp(32), &a, &b, &mut out).unwrap();
    for (lane, values) in out.iter().enumerate() {
        for (i, &got) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            let exact: f32 = (0..32).map(|k| a[r * 32 + k] * b[k * 8 + col]).sum();
            assert_eq!(got, exact, "lane {lane}, accumulator {i}");
        }
    }
}

#[test]
fn a_partial_warp_is_a_kernel_failure() {
    let (a, b, c) = (vec![1i8; 512], vec![1i8; 256], vec![0i32; 128]);
    let mut out = vec![[0i32; 4]; 16];
    let failure = int8_product::emulate(&warp(16), &a, &b, &c, &mut out).unwrap_err();
    assert!(failure.to_string().contains("whole warps"), "{failure}");
}
