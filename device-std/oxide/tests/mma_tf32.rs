//! `tf32` tensor-core fragments (`mma.sync.m16n8k8`) on the CPU emulator: a warp multiplying
//! `f32` tiles rounded to `tf32`, against a plain product of the rounded values. The layouts
//! and the rounding are written here again from the PTX ISA, independently of the library's.

mod xorshift;

use oxide::mma::{FragC, mma, tf32};
use oxide::prelude::*;

/// `(row, col)` of accumulator `i` of lane `lane` (PTX ISA, m16n8k8 C/D fragment).
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

/// `x` rounded to 10 mantissa bits, to nearest, ties away from zero (`cvt.rna.tf32.f32`), for
/// finite `x` below the largest `tf32`.
fn tf32_of(x: f32) -> f32 {
    let (m, e) = (x.abs(), x.abs().log2().floor());
    if m == 0.0 {
        return x;
    }
    let ulp = 2f64.powf(f64::from(e) - 10.0);
    let units = f64::from(m) / ulp;
    // Ties away from zero: round half up on the magnitude.
    let rounded = (units + 0.5).floor() * ulp;
    (rounded as f32).copysign(x)
}

/// One warp: `c + a · b` for a 16 × 8 A and an 8 × 8 B (row-major `f32`), the fragments built
/// element by element (each rounded to `tf32`); each lane returns its accumulators and its A
/// fragment's values. Any block size (a partial warp must fail, not run).
#[kernel]
pub fn tf32_from_fn(a: &[f32], b: &[f32], c: &[f32], mut out: DisjointSlice<[[f32; 4]; 2]>) {
    let fa = tf32::FragA::from_fn(|r, col| a[r * 8 + col]);
    let fb = tf32::FragB::from_fn(|k, n| b[k * 8 + n]);
    let acc = FragC::from_fn(|r, col| c[r * 8 + col]);
    let d = mma(&fa, &fb, acc);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = [d.values(), [fa.get(0), fa.get(1), fa.get(2), fa.get(3)]];
    }
}

/// `f32` values with bits below `tf32`'s when `fine` (so that rounding shows), else multiples
/// of 1/4 in `-4..=4` (exact in `tf32`, in their products and sums).
fn values(len: usize, seed: u32, fine: bool) -> Vec<f32> {
    xorshift::words(len, seed)
        .map(|x| {
            let coarse = (x % 33) as f32 / 4.0 - 4.0;
            if fine {
                coarse * (1.0 + (x >> 9) as f32 / 8_388_608.0)
            } else {
                coarse
            }
        })
        .collect()
}

/// What a run gives: each lane's accumulators and A values, the expected 16 × 8 result, and
/// A rounded to `tf32` on the CPU.
struct Run {
    out: Vec<[f32; 4]>,
    a_values: Vec<[f32; 4]>,
    expected: Vec<f32>,
    rounded_a: Vec<f32>,
}

fn run(fine: bool) -> Run {
    let (a, b) = (values(128, 3, fine), values(64, 4, fine));
    let c: Vec<f32> = (0..128).map(|i| (i % 7) as f32 - 3.0).collect();
    let mut both = vec![[[f32::NAN; 4]; 2]; 32];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    tf32_from_fn::emulate(&cfg, &a, &b, &c, &mut both).unwrap();
    let (out, a_values) = both.iter().map(|[d, fa]| (*d, *fa)).unzip();
    // The product of the rounded operands, in f64, plus c, rounded once.
    let (ra, rb): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&x| tf32_of(x)).collect(),
        b.iter().map(|&x| tf32_of(x)).collect(),
    );
    let expected = (0..128)
        .map(|e| {
            let (i, j) = (e / 8, e % 8);
            let sum: f64 = (0..8)
                .map(|p| f64::from(ra[i * 8 + p]) * f64::from(rb[p * 8 + j]))
                .sum();
            (f64::from(c[e]) + sum) as f32
        })
        .collect();
    Run {
        out,
        a_values,
        expected,
        rounded_a: ra,
    }
}

fn check(fine: bool) {
    let Run {
        out,
        a_values,
        expected,
        rounded_a: ra,
    } = run(fine);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        // A's registers: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4).
        let at = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)];
        for (i, &(r, col)) in at.iter().enumerate() {
            assert_eq!(
                a_values[lane][i],
                ra[r * 8 + col],
                "lane {lane}, A element {i}"
            );
        }
        for (i, &value) in out[lane].iter().enumerate() {
            let (r, col) = c_at(lane, i);
            assert_eq!(value, expected[r * 8 + col], "lane {lane}, element {i}");
        }
    }
}

#[test]
fn exact_tf32_tiles_multiply_exactly() {
    check(false);
}

#[test]
fn f32_tiles_are_rounded_to_tf32_then_multiplied() {
    let (a, ra) = (values(128, 3, true), run(true).rounded_a);
    assert!(
        a.iter().zip(&ra).any(|(x, r)| x != r),
        "the inputs exercise rounding"
    );
    check(true);
}

#[test]
fn a_partial_warp_is_a_kernel_failure() {
    let (a, b, c) = (vec![1.0; 128], vec![1.0; 64], vec![0.0; 128]);
    let mut both = vec![[[0.0; 4]; 2]; 16];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (16, 1, 1),
        shared_mem_bytes: 0,
    };
    let failure = tf32_from_fn::emulate(&cfg, &a, &b, &c, &mut both).unwrap_err();
    assert!(failure.to_string().contains("whole warps"), "{failure}");
}
