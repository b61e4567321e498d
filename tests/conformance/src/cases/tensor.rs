//! Tensor cores and their element types: conversions to `bf16` and `f16` (the GPU's `cvt`
//! against the CPU's rounding, NaNs and ties included), and warp-level `mma` from fragments
//! built lane by lane and from shared tiles through `ldmatrix`. The MMA inputs are small
//! integers, whose products and sums every accumulation order gives exactly, so the GPU and
//! the emulator agree bit for bit.

use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, Error, Gpu};
use oxide::mma::{FragA, FragB, FragC, Source, Stages, Vec8, fp8, fp64, int8, mma, tf32};
use oxide::prelude::*;
use oxide::shared::WarpRegions;

use crate::harness::{Case, Check, KernelCase};

map_cases! {
    /// `f32` bits (any: NaNs, infinities, subnormals, ties) rounded to `bf16` (low half) and
    /// `f16` (high half).
    round_to_16_bit_floats(Check::Exact) |x| -> u32 {
        let f = f32::from_bits(x as u32);
        u32::from(bf16::from_f32(f).to_bits()) | u32::from(oxide::f16::from_f32(f).to_bits()) << 16
    }
    /// Every `f16` bit pattern widened to `f32` (NaNs compared as NaNs).
    widen_f16(Check::Ulp(0)) |x| -> f32 {
        oxide::f16::from_bits(x as u16).to_f32()
    }
    /// `f32` bits rounded to `tf32` as a fragment holds them (the library's integer rounding,
    /// on the GPU against the CPU: ties away from zero, carries into the exponent, infinities);
    /// a NaN input is replaced by 1.5 (a NaN's payload after the rounding is not specified).
    round_to_tf32(Check::Exact) |x| -> u32 {
        let f = f32::from_bits(x as u32);
        let f = if f.is_nan() { 1.5 } else { f };
        tf32::FragA::from_fn(|_, _| f).get(0).to_bits()
    }
    /// `bf16` arithmetic, each operation rounded once.
    bf16_arithmetic(Check::Exact) |x| -> u16 {
        let (a, b) = (bf16::from_bits(x as u16), bf16::from_bits((x >> 16) as u16));
        let c = bf16::from_bits((x >> 32) as u16);
        (a * b + c / bf16::from_f32(3.0) - a).to_bits()
    }
}

/// Threads per block: four whole warps.
const BLOCK: usize = 128;
const WARP: usize = 32;

fn config(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n, BLOCK as u32).expect("a valid launch shape")
}

/// A small integer in `-4..=4` from bits `salt..` of input `i` (a stand-in past the end).
fn small(input: &[u64], i: usize, salt: u32) -> f32 {
    let v = input
        .get(i)
        .copied()
        .unwrap_or(0x9e37_79b9_7f4a_7c15 ^ i as u64);
    ((v >> salt) % 9) as f32 - 4.0
}

/// Element `(r, c)` of warp `base`'s A (16 × 16) and `(k, n)` of its B (16 × 8), and its C.
fn a_of(input: &[u64], base: usize, r: usize, c: usize) -> f32 {
    small(input, base + (3 * r + c) % WARP, (r + c) as u32 % 5)
}
fn b_of(input: &[u64], base: usize, k: usize, n: usize) -> f32 {
    small(input, base + (k + 5 * n) % WARP, 8 + (k as u32) % 3)
}
fn c_of(input: &[u64], base: usize, r: usize, c: usize) -> f32 {
    small(input, base + (r + 7 * c) % WARP, 20)
}

/// The four accumulators of one lane as the bits of a `u128` (element `i` in bits `32i..`).
fn pack(values: [f32; 4]) -> u128 {
    values
        .iter()
        .enumerate()
        .fold(0, |acc, (i, v)| acc | u128::from(v.to_bits()) << (32 * i))
}

/// `(row, col)` of accumulator `i` of lane `lane`: the PTX ISA's m16n8k16 C layout, written
/// here apart from the library's.
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

/// Each warp: `C + A · B` for a bf16 A and B and an f32 C from its threads' inputs, the
/// fragments built element by element.
#[kernel]
pub fn mma_bf16_fragments(input: &[u64], mut out: DisjointSlice<u128>) {
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = FragA::from_fn(|r, c| bf16::from_f32(a_of(input, base, r, c)));
    let b = FragB::from_fn(|k, n| bf16::from_f32(b_of(input, base, k, n)));
    let c = FragC::from_fn(|r, col| c_of(input, base, r, col));
    let d = mma(&a, &b, c);
    if let Some(o) = out.get_mut(idx) {
        *o = pack(d.values());
    }
}

/// As `mma_bf16_fragments`, in `f16`, and the accumulators mapped by position afterwards.
#[kernel]
pub fn mma_f16_fragments(input: &[u64], mut out: DisjointSlice<u128>) {
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = FragA::from_fn(|r, c| oxide::f16::from_f32(a_of(input, base, r, c)));
    let b = FragB::from_fn(|k, n| oxide::f16::from_f32(b_of(input, base, k, n)));
    let d = mma(&a, &b, FragC::zero()).map(|(r, c), v| v * (r + 2 * c) as f32);
    if let Some(o) = out.get_mut(idx) {
        *o = pack(d.values());
    }
}

/// Each warp: `C + A · B` for `f32` A (16 × 8) and B (8 × 8) rounded to `tf32` and an `f32` C:
/// A's elements carry bits below `tf32`'s (a relative `2^-13`), which the rounding removes, so
/// the product is of small integers and exact.
#[kernel]
pub fn mma_tf32_fragments(input: &[u64], mut out: DisjointSlice<u128>) {
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = tf32::FragA::from_fn(|r, c| a_of(input, base, r, c) * (1.0 + 2f32.powi(-13)));
    let b = tf32::FragB::from_fn(|k, n| b_of(input, base, k, n));
    let c = FragC::from_fn(|r, col| c_of(input, base, r, col));
    let d = mma(&a, &b, c);
    if let Some(o) = out.get_mut(idx) {
        *o = pack(d.values());
    }
}

/// Each warp: `C + A · B` for an `f64` A (8 × 4), B (4 × 8) and C (8 × 8) of small integers
/// from its threads' inputs (each lane's two accumulators as the bits of a `u128`).
#[kernel]
pub fn mma_fp64_fragments(input: &[u64], mut out: DisjointSlice<u128>) {
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = fp64::FragA::from_fn(|r, c| f64::from(a_of(input, base, r, c)));
    let b = fp64::FragB::from_fn(|k, n| f64::from(b_of(input, base, k, n)));
    let c = fp64::FragC::from_fn(|r, col| f64::from(c_of(input, base, r, col)));
    let [d0, d1] = mma(&a, &b, c).values();
    if let Some(o) = out.get_mut(idx) {
        *o = u128::from(d0.to_bits()) | u128::from(d1.to_bits()) << 64;
    }
}

/// Byte `salt / 8` of input `base + (i % 32)` of a warp (a stand-in past the end).
fn byte_of(input: &[u64], base: usize, i: usize, salt: u32) -> u8 {
    let v = input
        .get(base + i % WARP)
        .copied()
        .unwrap_or(0x9e37_79b9_7f4a_7c15 ^ i as u64);
    (v >> salt) as u8
}

/// Element `(r, c)` of a warp's 16 × 32 integer A, `(k, n)` of its 32 × 8 B (any bytes), and
/// its `i32` C: one in four near `i32::MAX`, one in four near `i32::MIN` (within `2^20`, less
/// than the dot products reach, so about half of those wrap), the rest small.
fn int_a(input: &[u64], base: usize, r: usize, c: usize) -> u8 {
    byte_of(input, base, 5 * r + c, 8 * ((r + c) as u32 % 8))
}
fn int_b(input: &[u64], base: usize, k: usize, n: usize) -> u8 {
    byte_of(input, base, k + 3 * n, 8 * ((k + 3) as u32 % 8))
}
fn int_c(input: &[u64], base: usize, r: usize, c: usize) -> i32 {
    let v = input.get(base + (r + 7 * c) % WARP).copied().unwrap_or(0);
    let offset = (v >> 8) as i32 & 0xf_ffff;
    match (v >> 60) % 4 {
        0 => i32::MAX - offset,
        1 => i32::MIN + offset,
        _ => offset - 0x8_0000,
    }
}

/// Each warp: `C + A · B` for 8-bit integer A and B (each `i8` or `u8`, the same or not, from
/// the same bytes) and an `i32` C (`mma.sync.m16n8k32`), the sum wrapping past `i32`'s range.
fn int_fragments<EA, EB>(
    input: &[u64],
    mut out: DisjointSlice<u128>,
    (element_a, element_b): (impl Fn(u8) -> EA, impl Fn(u8) -> EB),
) where
    EA: int8::ByteProduct<EB, Accumulators = int8::FragC>,
    EB: int8::ByteInput,
{
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = int8::FragA::from_fn(|r, c| element_a(int_a(input, base, r, c)));
    let b = int8::FragB::from_fn(|k, n| element_b(int_b(input, base, k, n)));
    let c = int8::FragC::from_fn(|r, col| int_c(input, base, r, col));
    let d = mma(&a, &b, c).values();
    if let Some(o) = out.get_mut(idx) {
        *o = d
            .iter()
            .enumerate()
            .fold(0, |acc, (i, v)| acc | u128::from(*v as u32) << (32 * i));
    }
}

/// `int_fragments` in `i8`.
#[kernel]
pub fn mma_s8_fragments(input: &[u64], out: DisjointSlice<u128>) {
    int_fragments(input, out, (|byte| byte as i8, |byte| byte as i8));
}

/// `int_fragments` in `u8`.
#[kernel]
pub fn mma_u8_fragments(input: &[u64], out: DisjointSlice<u128>) {
    int_fragments(input, out, (|byte| byte, |byte| byte));
}

/// `int_fragments` with an `i8` A and a `u8` B (`mma.sync ... s32.s8.u8.s32`).
#[kernel]
pub fn mma_s8_u8_fragments(input: &[u64], out: DisjointSlice<u128>) {
    int_fragments(input, out, (|byte| byte as i8, |byte| byte));
}

/// Each warp: `C + A · B` for fp8 A and B of small integers (`-4..=4`, exact in both formats,
/// their products and sums too; each operand `e4m3` or `e5m2`, the same or not) and an `f32` C
/// (`mma.sync.m16n8k32`).
fn fp8_fragments<EA, EB>(
    input: &[u64],
    mut out: DisjointSlice<u128>,
    (element_a, element_b): (impl Fn(f32) -> EA, impl Fn(f32) -> EB),
) where
    EA: int8::ByteProduct<EB, Accumulators = FragC>,
    EB: int8::ByteInput,
{
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let a = fp8::FragA::from_fn(|r, c| element_a(a_of(input, base, r, c)));
    let b = fp8::FragB::from_fn(|k, n| element_b(b_of(input, base, k, n)));
    let c = FragC::from_fn(|r, col| c_of(input, base, r, col));
    let d = mma(&a, &b, c);
    if let Some(o) = out.get_mut(idx) {
        *o = pack(d.values());
    }
}

/// `fp8_fragments` in `e4m3`.
#[kernel]
pub fn mma_e4m3_fragments(input: &[u64], out: DisjointSlice<u128>) {
    fp8_fragments(input, out, (e4m3::from_f32, e4m3::from_f32));
}

/// `fp8_fragments` in `e5m2`.
#[kernel]
pub fn mma_e5m2_fragments(input: &[u64], out: DisjointSlice<u128>) {
    fp8_fragments(input, out, (e5m2::from_f32, e5m2::from_f32));
}

/// `fp8_fragments` with an `e4m3` A and an `e5m2` B (`mma.sync ... f32.e4m3.e5m2.f32`).
#[kernel]
pub fn mma_e4m3_e5m2_fragments(input: &[u64], out: DisjointSlice<u128>) {
    fp8_fragments(input, out, (e4m3::from_f32, e5m2::from_f32));
}

fn fp8_reference(input: &[u64]) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            pack(core::array::from_fn(|e| {
                let (r, col) = c_at(lane, e);
                let sum: f32 = (0..32)
                    .map(|k| a_of(input, base, r, k) * b_of(input, base, k, col))
                    .sum();
                sum + c_of(input, base, r, col)
            }))
        })
        .collect()
}

/// A byte as an `i8`'s value.
fn signed(byte: u8) -> i64 {
    i64::from(byte as i8)
}

/// A byte as a `u8`'s value.
fn unsigned(byte: u8) -> i64 {
    i64::from(byte)
}

/// How a byte of an operand is read: [`signed`] or [`unsigned`].
type Widen = fn(u8) -> i64;

/// The accumulators `int_fragments` gives, A's elements widened by `widen_a`, B's by `widen_b`.
fn int_reference(input: &[u64], (widen_a, widen_b): (Widen, Widen)) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            (0..4).fold(0, |acc, e| {
                let (r, col) = c_at(lane, e);
                let sum: i64 = (0..32)
                    .map(|k| {
                        widen_a(int_a(input, base, r, k)) * widen_b(int_b(input, base, k, col))
                    })
                    .sum();
                // Wrapping: the low 32 bits of the exact sum.
                let d = (sum + i64::from(int_c(input, base, r, col))) as u32;
                acc | u128::from(d) << (32 * e)
            })
        })
        .collect()
}

/// Element `(r, c)` of a warp's 16 × 16 tile for the collective stores: small integers times
/// 1.37, so that the rounding to `bf16` shows.
fn stored_of(input: &[u64], base: usize, r: usize, c: usize) -> f32 {
    small(input, base + (r + 3 * c) % WARP, (r + c) as u32 % 7) * 1.37 + r as f32
}

/// Each warp stores a 16 × 16 tile of accumulators (`stmatrix.x4`, rounded to `bf16`) into its
/// shared region (rows of two chunks and a padding chunk), and each lane reads back the chunk
/// at row `lane % 16`, chunk `lane / 16` (its 8 elements' bits as a `u128`).
#[kernel]
pub fn mma_stmatrix_tiles(
    input: &[u64],
    mut out: DisjointSlice<u128>,
    regions: Shared<WarpRegions<Vec8<bf16>, 48, 4>>,
) {
    let idx = ThreadIndex::linear();
    let base = idx.get() - oxide::warp::lane_id() as usize;
    let Some(region) = regions.warp_region() else {
        return;
    };
    let left = FragC::from_fn(|r, c| stored_of(input, base, r, c));
    let right = FragC::from_fn(|r, c| stored_of(input, base, r, c + 8));
    let mut stores = region
        .fill(Vec8([bf16::from_f32(0.0); 8]))
        .collective_stores();
    stores.store_accumulators::<3>(0, 0, &left, &right);
    let read = stores.sync();
    let lane = oxide::warp::lane_id() as usize;
    let chunk = read[(lane % 16) * 3 + lane / 16];
    if let Some(o) = out.get_mut(idx) {
        *o = chunk
            .0
            .iter()
            .enumerate()
            .fold(0, |acc, (e, v)| acc | u128::from(v.to_bits()) << (16 * e));
    }
}

fn stmatrix_reference(input: &[u64]) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            let (r, c0) = (lane % 16, 8 * (lane / 16));
            (0..8).fold(0, |acc, e| {
                let bits = bf16::from_f32(stored_of(input, base, r, c0 + e)).to_bits();
                acc | u128::from(bits) << (16 * e)
            })
        })
        .collect()
}

fn fp64_reference(input: &[u64]) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            let [d0, d1]: [f64; 2] = core::array::from_fn(|e| {
                let (r, col) = (lane / 4, 2 * (lane % 4) + e);
                let sum: f64 = (0..4)
                    .map(|k| f64::from(a_of(input, base, r, k) * b_of(input, base, k, col)))
                    .sum();
                sum + f64::from(c_of(input, base, r, col))
            });
            u128::from(d0.to_bits()) | u128::from(d1.to_bits()) << 64
        })
        .collect()
}

fn tf32_reference(input: &[u64]) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            pack(core::array::from_fn(|e| {
                let (r, col) = c_at(lane, e);
                let sum: f32 = (0..8)
                    .map(|k| a_of(input, base, r, k) * b_of(input, base, k, col))
                    .sum();
                sum + c_of(input, base, r, col)
            }))
        })
        .collect()
}

fn fragments_reference(input: &[u64], with_c: bool) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let (base, lane) = (i - i % WARP, i % WARP);
            pack(core::array::from_fn(|e| {
                let (r, col) = c_at(lane, e);
                let sum: f32 = (0..16)
                    .map(|k| a_of(input, base, r, k) * b_of(input, base, k, col))
                    .sum();
                if with_c {
                    sum + c_of(input, base, r, col)
                } else {
                    sum * (r + 2 * col) as f32
                }
            }))
        })
        .collect()
}

/// A block's four warps share a 64 × 16 A tile and a 16 × 16 B tile in shared memory (rows of
/// two chunks and a padding chunk), from the block's inputs: warp `w` multiplies rows
/// `16w..16w + 16` by both `n8` halves of B (`ldmatrix.x4` for A, `.x4.trans` for B) and adds
/// the product by Bᵀ's rows (`ldmatrix.x2`), which must be the same.
#[kernel]
pub fn mma_ldmatrix_tiles(
    input: &[u64],
    mut out: DisjointSlice<u128>,
    a_tile: Shared<[[Vec8<bf16>; 3]; 64]>,
    b_tile: Shared<[[Vec8<bf16>; 3]; 16]>,
) {
    let idx = ThreadIndex::linear();
    let first = idx.get() - thread::thread_idx_x() as usize;
    let a_value = |r: usize, c: usize| small(input, first + (5 * r + c) % BLOCK, (r % 4) as u32);
    let b_value = |k: usize, n: usize| small(input, first + (k + 9 * n) % BLOCK, 12);
    let a_tile = a_tile.init(|(r, c)| chunk(a_value, r, c)).sync();
    let b_tile = b_tile.init(|(k, c)| chunk(b_value, k, c)).sync();
    let w = oxide::warp::warp_in_block() as usize;
    let a = FragA::load(&a_tile, 16 * w, 0);
    let [b0, b1] = FragB::load_k_rows_pair(&b_tile, 0, 0);
    let half = if w.is_multiple_of(2) { b0 } else { b1 };
    let d = mma(&a, &half, FragC::zero());
    let bt = FragB::from_fn(|k, n| bf16::from_f32(b_value(k, n + 8 * (w % 2))));
    let d = mma(&a, &bt, d);
    if let Some(o) = out.get_mut(idx) {
        *o = pack(d.values());
    }
}

/// Chunk `c` of row `r` of a tile of two chunks a row (`value(row, col)`) and a padding one.
fn chunk(value: impl Fn(usize, usize) -> f32, r: usize, c: usize) -> Vec8<bf16> {
    Vec8(core::array::from_fn(|e| {
        bf16::from_f32(if c < 2 { value(r, 8 * c + e) } else { 0.0 })
    }))
}

fn ldmatrix_reference(input: &[u64]) -> Vec<u128> {
    (0..input.len())
        .map(|i| {
            let first = i / BLOCK * BLOCK;
            let (w, lane) = ((i - first) / WARP, i % WARP);
            let a_value =
                |r: usize, c: usize| small(input, first + (5 * r + c) % BLOCK, (r % 4) as u32);
            let b_value = |k: usize, n: usize| small(input, first + (k + 9 * n) % BLOCK, 12);
            pack(core::array::from_fn(|e| {
                let (r, col) = c_at(lane, e);
                let (r, col) = (16 * w + r, col + 8 * (w % 2));
                2.0 * (0..16)
                    .map(|k| a_value(r, k) * b_value(k, col))
                    .sum::<f32>()
            }))
        })
        .collect()
}

/// The bf16 matrices of the pipelined cases, from the inputs: `A` is `rows × 64` (each block's
/// 64 rows, its threads' inputs), `B` is `64 × 16`, both small integers.
fn pipelined_matrices(input: &[u64]) -> (Vec<bf16>, Vec<bf16>) {
    let rows = input.len().div_ceil(BLOCK) * 64;
    let a = (0..rows * 64)
        .map(|i| bf16::from_f32(small(input, (i / 64) * 2 + i % 5, (i % 7) as u32)))
        .collect();
    let b = (0..64 * 16)
        .map(|i| bf16::from_f32(small(input, i % 97, 9 + (i % 4) as u32)))
        .collect();
    (a, b)
}

/// A stage: 64 rows of A and 16 rows of B, 16 elements each and a padding chunk.
type PipedA = [[Vec8<bf16>; 3]; 64];
type PipedB = [[Vec8<bf16>; 3]; 16];

/// Each block's 64 × 16 slice of `A·B` (`k` = 64 in four steps through a two-stage `cp.async`
/// pipeline, so every stage is refilled), warp `w` rows `16w..`; each thread packs its
/// accumulators of the first `n8` tile plus twice the second's. Then `C`'s first tile goes back
/// through the tensor cores as an A operand (`FragA::from_accumulators`, exact for small
/// integers) against the identity's left half, which must give it back.
#[kernel(block = "128")]
pub fn mma_pipelined(
    a: &[bf16],
    b: &[bf16],
    mut out: DisjointSlice<u128>,
    stages: Shared<Stages<(PipedA, PipedB), 2>>,
) {
    let m0 = thread::block_idx_x() as usize * 64;
    let source = |t: usize, (tile, row, chunk): (usize, usize, usize)| {
        if chunk == 2 || t >= 4 {
            Source::zeros()
        } else if tile == 0 {
            Source::chunk(a, (m0 + row) * 64 + 16 * t + 8 * chunk)
        } else {
            Source::chunk(b, (16 * t + row) * 16 + 8 * chunk)
        }
    };
    let mut pipe = stages.pipeline();
    pipe.fill(|at| source(0, at));
    let w = oxide::warp::warp_in_block() as usize;
    let mut acc = [FragC::zero(); 2];
    for t in 0..4 {
        let ready = pipe.wait();
        let ready = ready.fill(|at| source(t + 1, at));
        let (a_tile, b_tile) = ready.tiles();
        let fa = FragA::load(a_tile, 16 * w, 0);
        let [b0, b1] = FragB::load_k_rows_pair(b_tile, 0, 0);
        acc[0] = mma(&fa, &b0, acc[0]);
        acc[1] = mma(&fa, &b1, acc[1]);
    }
    let identity = FragB::from_fn(|k, n| if k == n { bf16::ONE } else { bf16::ZERO });
    let back = mma(
        &FragA::<bf16>::from_accumulators(&acc[0], &acc[1]),
        &identity,
        FragC::zero(),
    );
    let (x, y, z) = (acc[0].values(), acc[1].values(), back.values());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = pack(core::array::from_fn(|e| x[e] + 2.0 * y[e] + 3.0 * z[e]));
    }
}

fn pipelined_reference(input: &[u64]) -> Vec<u128> {
    let (a, b) = pipelined_matrices(input);
    (0..input.len())
        .map(|i| {
            let (block, w, lane) = (i / BLOCK, (i % BLOCK) / WARP, i % WARP);
            pack(core::array::from_fn(|e| {
                let (r, c) = c_at(lane, e);
                let row = 64 * block + 16 * w + r;
                let dot = |col: usize| -> f32 {
                    (0..64)
                        .map(|p| a[row * 64 + p].to_f32() * b[p * 16 + col].to_f32())
                        .sum()
                };
                // `back` is `C`'s first n8 tile again (the identity's left half).
                dot(c) + 2.0 * dot(c + 8) + 3.0 * dot(c)
            }))
        })
        .collect()
}

macro_rules! tile_case {
    ($name:ident, $reference:expr) => {
        Box::new(KernelCase::<u128> {
            name: stringify!($name),
            check: Check::Exact,
            reference: $reference,
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u128>|
             -> Result<(), Error> {
                $name::launch(gpu, config(input.len()), input, out)
            },
            emulate: |_, input: &[u64], out: &mut [u128]| -> Result<(), KernelFailure> {
                $name::emulate(&config(input.len()), input, out)
            },
        }) as Box<dyn Case>
    };
}

/// The map cases and the tile cases.
pub fn all_cases() -> Vec<Box<dyn Case>> {
    let mut all = cases();
    all.push(tile_case!(mma_bf16_fragments, |input| fragments_reference(
        input, true
    )));
    all.push(tile_case!(mma_f16_fragments, |input| fragments_reference(
        input, false
    )));
    all.push(tile_case!(mma_ldmatrix_tiles, ldmatrix_reference));
    all.push(tile_case!(mma_tf32_fragments, tf32_reference));
    all.push(tile_case!(mma_fp64_fragments, fp64_reference));
    all.push(tile_case!(mma_stmatrix_tiles, stmatrix_reference));
    all.push(tile_case!(mma_e4m3_fragments, fp8_reference));
    all.push(tile_case!(mma_e5m2_fragments, fp8_reference));
    all.push(tile_case!(mma_e4m3_e5m2_fragments, fp8_reference));
    all.push(tile_case!(mma_s8_fragments, |input| int_reference(
        input,
        (signed, signed)
    )));
    all.push(tile_case!(mma_u8_fragments, |input| int_reference(
        input,
        (unsigned, unsigned)
    )));
    all.push(tile_case!(mma_s8_u8_fragments, |input| int_reference(
        input,
        (signed, unsigned)
    )));
    all.push(Box::new(KernelCase::<u128> {
        name: "mma_pipelined",
        check: Check::Exact,
        reference: pipelined_reference,
        launch: |gpu: &Gpu,
                 _,
                 input: &DeviceBuffer<u64>,
                 out: &mut DeviceBuffer<u128>|
         -> Result<(), Error> {
            let (a, b) = pipelined_matrices(&gpu.dtoh(input)?);
            let (a, b) = (gpu.htod(&a)?, gpu.htod(&b)?);
            mma_pipelined::launch(gpu, config(input.len()), &a, &b, out)
        },
        emulate: |_, input: &[u64], out: &mut [u128]| -> Result<(), KernelFailure> {
            let (a, b) = pipelined_matrices(input);
            mma_pipelined::emulate(&config(input.len()), &a, &b, out)
        },
    }));
    all
}
