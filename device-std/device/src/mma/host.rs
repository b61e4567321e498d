//! The CPU's tensor-core operations (plain calls and the emulator): each lane publishes its
//! registers to the warp ([`host_context::warp_exchange`]) and computes its own result from
//! everyone's, through the layouts of `layout.rs`. The `tf32` and `f64` shapes' are beside their
//! layouts, in `tf32.rs` and `fp64.rs`, which call [`exchange`] and [`registers`] here.

use super::layout;
use crate::host_context::{self, WARP_SIZE, WarpValues};

/// Every lane's `value` (the whole warp takes part: the callers checked it is whole).
pub(super) fn exchange(value: u64) -> WarpValues {
    let values = host_context::warp_exchange(u32::MAX, value)
        .expect("a tensor-core operation outside a warp of 32 (the block-size check passed)");
    assert_eq!(
        values.present(),
        u32::MAX,
        "a tensor-core operation reached by only some lanes of a warp"
    );
    values
}

/// Two 32-bit registers of lane `lane` from an exchange of `lo | hi << 32`.
pub(super) fn registers(values: &WarpValues, lane: u32) -> [u32; 2] {
    let v = values.get(lane).unwrap_or(0);
    [v as u32, (v >> 32) as u32]
}

/// `mma.sync.m16n8k16` with `f32` accumulators: the calling lane's `c + a·b`, each sum of
/// sixteen exact products taken in `f64` (in `k` order) and rounded to `f32` once.
pub(super) fn mma_m16n8k16(
    a: [u32; 4],
    b: [u32; 2],
    c: [f32; 4],
    decode: impl Fn(u16) -> f32,
) -> [f32; 4] {
    let a_low = exchange(u64::from(a[0]) | u64::from(a[1]) << 32);
    let a_high = exchange(u64::from(a[2]) | u64::from(a[3]) << 32);
    let b_all = exchange(u64::from(b[0]) | u64::from(b[1]) << 32);
    let mut a_tile = [[0f64; 16]; 16];
    let mut b_tile = [[0f64; 8]; 16];
    let half = |register: u32, i: usize| f64::from(decode((register >> (16 * (i % 2))) as u16));
    for lane in 0..WARP_SIZE {
        let [r0, r1] = registers(&a_low, lane);
        let [r2, r3] = registers(&a_high, lane);
        let a_registers = [r0, r1, r2, r3];
        for i in 0..8 {
            let (row, col) = layout::a_position(lane, i);
            a_tile[row][col] = half(a_registers[i / 2], i);
        }
        let b_registers = registers(&b_all, lane);
        for i in 0..4 {
            let (k, n) = layout::b_position(lane, i);
            b_tile[k][n] = half(b_registers[i / 2], i);
        }
    }
    let lane = crate::warp::lane_id();
    core::array::from_fn(|i| {
        let (row, col) = layout::c_position(lane, i);
        let products: f64 = (0..16).map(|k| a_tile[row][k] * b_tile[k][col]).sum();
        (f64::from(c[i]) + products) as f32
    })
}

/// The A and B tiles of an `mma.sync.m16n8k32` (byte operands), A's bytes widened by `widen_a`
/// and B's by `widen_b` (their types may differ: `s8`·`u8`, `e4m3`·`e5m2`).
fn byte_tiles<T: Copy + Default>(
    a: [u32; 4],
    b: [u32; 2],
    (widen_a, widen_b): (impl Fn(u8) -> T, impl Fn(u8) -> T),
) -> ([[T; 32]; 16], [[T; 8]; 32]) {
    let a_low = exchange(u64::from(a[0]) | u64::from(a[1]) << 32);
    let a_high = exchange(u64::from(a[2]) | u64::from(a[3]) << 32);
    let b_all = exchange(u64::from(b[0]) | u64::from(b[1]) << 32);
    let mut a_tile = [[T::default(); 32]; 16];
    let mut b_tile = [[T::default(); 8]; 32];
    let byte = |register: u32, i: usize| register.to_le_bytes()[i % 4];
    for lane in 0..WARP_SIZE {
        let [r0, r1] = registers(&a_low, lane);
        let [r2, r3] = registers(&a_high, lane);
        let a_registers = [r0, r1, r2, r3];
        for i in 0..16 {
            let (row, col) = super::bytes::a_position(lane, i);
            a_tile[row][col] = widen_a(byte(a_registers[i / 4], i));
        }
        let b_registers = registers(&b_all, lane);
        for i in 0..8 {
            let (k, n) = super::bytes::b_position(lane, i);
            b_tile[k][n] = widen_b(byte(b_registers[i / 4], i));
        }
    }
    (a_tile, b_tile)
}

/// `mma.sync.m16n8k32` with `i8` or `u8` operands (`signed`: A's and B's) and `i32`
/// accumulators: the calling lane's `c + a·b`, the dot product exact in `i32` (32 products of
/// at most 255² each) and its addition to `c` wrapping, as the instruction without `.satfinite`
/// does.
pub(super) fn mma_m16n8k32_int(
    a: [u32; 4],
    b: [u32; 2],
    c: [i32; 4],
    (a_signed, b_signed): (bool, bool),
) -> [i32; 4] {
    let widen = |signed: bool| {
        move |byte: u8| {
            if signed {
                i32::from(byte as i8)
            } else {
                i32::from(byte)
            }
        }
    };
    let (a_tile, b_tile) = byte_tiles(a, b, (widen(a_signed), widen(b_signed)));
    let lane = crate::warp::lane_id();
    core::array::from_fn(|i| {
        let (row, col) = layout::c_position(lane, i);
        let products: i32 = (0..32).map(|k| a_tile[row][k] * b_tile[k][col]).sum();
        c[i].wrapping_add(products)
    })
}

/// `mma.sync.m16n8k32` with fp8 operands (`decode_a` and `decode_b` widen A's and B's bytes)
/// and `f32` accumulators: the calling lane's `c + a·b`, the 32 exact products summed in `f64`
/// (in `k` order) and rounded to `f32` once.
pub(super) fn mma_m16n8k32_fp8(
    a: [u32; 4],
    b: [u32; 2],
    c: [f32; 4],
    decode: (impl Fn(u8) -> f64, impl Fn(u8) -> f64),
) -> [f32; 4] {
    let (a_tile, b_tile) = byte_tiles(a, b, decode);
    let lane = crate::warp::lane_id();
    core::array::from_fn(|i| {
        let (row, col) = layout::c_position(lane, i);
        let products: f64 = (0..32).map(|k| a_tile[row][k] * b_tile[k][col]).sum();
        (f64::from(c[i]) + products) as f32
    })
}
