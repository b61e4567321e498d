//! `f64` tensor-core fragments (`mma.sync.m8n8k4`) on the CPU emulator: a warp multiplying an
//! 8 × 4 by a 4 × 8 tile, against a plain product. The layouts are written here again from
//! the PTX ISA, independently of the library's.

use oxide::mma::{fp64, mma};
use oxide::prelude::*;

/// One warp: `c + a · b` for an 8 × 4 A and a 4 × 8 B (row-major `f64`), the fragments built
/// element by element; each lane returns its two accumulators. Any block size (a partial warp
/// must fail, not run).
#[kernel]
pub fn fp64_from_fn(a: &[f64], b: &[f64], c: &[f64], mut out: DisjointSlice<[f64; 2]>) {
    let fa = fp64::FragA::from_fn(|r, col| a[r * 4 + col]);
    let fb = fp64::FragB::from_fn(|k, n| b[k * 8 + n]);
    let acc = fp64::FragC::from_fn(|r, col| c[r * 8 + col]);
    let d = mma(&fa, &fb, acc).map(|(r, col), v| v + (r * 100 + col) as f64 * 1e-3);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

fn launch(
    threads: u32,
    (a, b, c): (&[f64], &[f64], &[f64]),
    out: &mut [[f64; 2]],
) -> Result<(), oxide::emulate::KernelFailure> {
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    fp64_from_fn::emulate(&cfg, a, b, c, out)
}

/// Values with every bit of an `f64` in use (`fine`) or small integers.
fn values(len: usize, seed: u64, fine: bool) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).max(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let small = (x % 9) as f64 - 4.0;
            if fine {
                small * (1.0 + (x >> 11) as f64 / 9_007_199_254_740_992.0)
            } else {
                small
            }
        })
        .collect()
}

fn check(fine: bool) {
    let (a, b) = (values(32, 5, fine), values(32, 6, fine));
    let c: Vec<f64> = (0..64).map(|i| (i % 5) as f64 - 2.0).collect();
    let mut out = vec![[f64::NAN; 2]; 32];
    launch(32, (&a, &b, &c), &mut out).unwrap();
    for (lane, values) in out.iter().enumerate() {
        for (i, &v) in values.iter().enumerate() {
            // Accumulator i of lane l: row l / 4, column 2 (l % 4) + i.
            let (r, col) = (lane / 4, 2 * (lane % 4) + i);
            let want = (0..4).fold(c[r * 8 + col], |s, k| {
                a[r * 4 + k].mul_add(b[k * 8 + col], s)
            }) + (r * 100 + col) as f64 * 1e-3;
            assert_eq!(v, want, "lane {lane}, element {i}");
        }
    }
}

#[test]
fn integer_tiles_multiply_exactly() {
    check(false);
}

#[test]
fn full_precision_tiles_add_in_k_order_with_fused_steps() {
    check(true);
}

#[test]
fn a_partial_warp_is_a_kernel_failure() {
    let (a, b, c) = (vec![1.0; 32], vec![1.0; 32], vec![0.0; 64]);
    let mut out = vec![[0.0; 2]; 8];
    let failure = launch(8, (&a, &b, &c), &mut out).unwrap_err();
    assert!(failure.to_string().contains("whole warps"), "{failure}");
}
