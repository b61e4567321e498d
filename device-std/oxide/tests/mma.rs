//! Tensor-core fragments and `mma` on the CPU emulator: whole warps multiplying tiles built
//! lane by lane and loaded from shared tiles with `ldmatrix`, against a plain matrix product.
//! The fragment layouts are written here again from the PTX ISA's figures, independently of
//! the library's.

mod xorshift;

use oxide::MmaTiles;
use oxide::mma::{FragA, FragB, FragC, Pipeline, Source, Stages, Vec8, mma};
use oxide::prelude::*;

/// `(row, col)` of accumulator `i` of lane `lane` (PTX ISA, m16n8k16 C/D fragment).
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    let row = lane / 4 + if i >= 2 { 8 } else { 0 };
    (row, (lane % 4) * 2 + (i & 1))
}

/// Row-major `m × k` times row-major `k × n`, in f64, plus `c`.
fn product(a: &[bf16], b: &[bf16], c: &[f32], (m, n, k): (usize, usize, usize)) -> Vec<f64> {
    (0..m * n)
        .map(|e| {
            let (i, j) = (e / n, e % n);
            f64::from(c[e])
                + (0..k)
                    .map(|p| a[i * k + p].to_f64() * b[p * n + j].to_f64())
                    .sum::<f64>()
        })
        .collect()
}

/// Small integers (exact in bf16, in their products and in their sums) or, with `spread`,
/// values over several binades.
fn values(len: usize, seed: u32, spread: bool) -> Vec<bf16> {
    xorshift::words(len, seed)
        .map(|x| {
            let small = (x % 9) as f32 - 4.0;
            bf16::from_f32(if spread {
                small * (1.0 + (x >> 8) as f32 / 16_777_216.0) * 2f32.powi((x >> 4) as i32 % 7 - 3)
            } else {
                small
            })
        })
        .collect()
}

/// One warp: `c + a · b` for a 16 × 16 A and a 16 × 8 B (both row-major in global memory),
/// the fragments built element by element.
#[kernel(block = "32")]
pub fn mma_from_fn(a: &[bf16], b: &[bf16], c: &[f32], mut out: DisjointSlice<[f32; 4]>) {
    let fa = FragA::from_fn(|r, col| a[r * 16 + col]);
    let fb = FragB::from_fn(|k, n| b[k * 8 + n]);
    let acc = FragC::from_fn(|r, col| c[r * 8 + col]);
    let d = mma(&fa, &fb, acc);
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

fn run_from_fn(spread: bool) -> (Vec<[f32; 4]>, Vec<f64>) {
    let (a, b) = (values(256, 1, spread), values(128, 2, spread));
    let c: Vec<f32> = (0..128).map(|i| (i % 5) as f32 - 2.0).collect();
    let mut out = vec![[f32::NAN; 4]; 32];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    mma_from_fn::emulate(&cfg, &a, &b, &c, &mut out).unwrap();
    (out, product(&a, &b, &c, (16, 8, 16)))
}

#[test]
fn integer_tiles_multiply_exactly() {
    let (out, expected) = run_from_fn(false);
    for (lane, values) in out.iter().enumerate() {
        for (i, &v) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            assert_eq!(
                f64::from(v),
                expected[r * 8 + col],
                "lane {lane}, element {i}"
            );
        }
    }
}

#[test]
fn spread_tiles_round_once() {
    let (out, expected) = run_from_fn(true);
    for (lane, values) in out.iter().enumerate() {
        for (i, &v) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i);
            assert_eq!(v, expected[r * 8 + col] as f32, "lane {lane}, element {i}");
        }
    }
}

/// Two warps, each multiplying a 16 × 16 A by a 16 × 16 B into 16 × 16 (two `n8` tiles), all
/// from shared tiles through `ldmatrix`: A row-major, B both `k`-major (`load_k_rows_pair`) and
/// `n`-major from its transpose (`load_n_rows`); the two products must agree. Warp `w` takes
/// the A tile `w` rows down.
#[kernel(block = "64")]
pub fn mma_from_shared(
    a: &[bf16],
    b: &[bf16],
    mut out: DisjointSlice<[f32; 8]>,
    mut out_t: DisjointSlice<[f32; 8]>,
    a_tile: Shared<[[Vec8<bf16>; 3]; 32]>,
    b_tile: Shared<[[Vec8<bf16>; 3]; 16]>,
    bt_tile: Shared<[[Vec8<bf16>; 3]; 16]>,
) {
    // One padding chunk per row (column chunk 2), as a bank-conflict-free tile has.
    let chunk = |m: &[bf16], width: usize, r: usize, c: usize| {
        Vec8(core::array::from_fn(|e| {
            if c < 2 {
                m[r * width + 8 * c + e]
            } else {
                bf16::ZERO
            }
        }))
    };
    let a_tile = a_tile.init(|(r, c)| chunk(a, 16, r, c)).sync();
    let b_tile = b_tile.init(|(k, c)| chunk(b, 16, k, c)).sync();
    let bt_tile = bt_tile
        .init(|(n, c)| {
            Vec8(core::array::from_fn(|e| {
                if c < 2 {
                    b[(8 * c + e) * 16 + n]
                } else {
                    bf16::ZERO
                }
            }))
        })
        .sync();
    let warp = oxide::warp::warp_in_block() as usize;
    let fa = FragA::load(&a_tile, 16 * warp, 0);
    let [b0, b1] = FragB::load_k_rows_pair(&b_tile, 0, 0);
    let d0 = mma(&fa, &b0, FragC::zero());
    let d1 = mma(&fa, &b1, FragC::zero());
    let t0 = mma(&fa, &FragB::load_n_rows(&bt_tile, 0, 0), FragC::zero());
    let t1 = mma(&fa, &FragB::load_n_rows(&bt_tile, 8, 0), FragC::zero());
    // The pair form loads the same two fragments in one instruction.
    let [p0, p1] = FragB::load_n_rows_pair(&bt_tile, 0, 0);
    let t0 = mma(&fa, &p0, t0.map(|_, x| -x));
    let t1 = mma(&fa, &p1, t1.map(|_, x| -x));
    let t0 = mma(&fa, &FragB::load_n_rows(&bt_tile, 0, 0), t0);
    let t1 = mma(&fa, &FragB::load_n_rows(&bt_tile, 8, 0), t1);
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let (x, y) = (d0.values(), d1.values());
        *o = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
    }
    let (x, y) = (t0.values(), t1.values());
    // SAFETY: element `i` is this thread's own (the index of its `ThreadIndex`), as in
    // `get_mut`, which the first output already took.
    let o = unsafe { out_t.get_unchecked_mut(i) };
    *o = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
}

#[test]
fn ldmatrix_tiles_multiply_as_the_plain_product() {
    let (a, b) = (values(32 * 16, 3, false), values(16 * 16, 4, false));
    let mut out = vec![[f32::NAN; 8]; 64];
    let mut out_t = vec![[f32::NAN; 8]; 64];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (64, 1, 1),
        shared_mem_bytes: 0,
    };
    mma_from_shared::emulate(&cfg, &a, &b, &mut out, &mut out_t).unwrap();
    let expected = product(&a, &b, &[0.0; 32 * 16], (32, 16, 16));
    for (thread, (values, values_t)) in out.iter().zip(&out_t).enumerate() {
        let (warp, lane) = (thread / 32, thread % 32);
        for i in 0..8 {
            let (r, col) = c_at(lane, i % 4);
            let (r, col) = (16 * warp + r, col + 8 * (i / 4));
            let want = expected[r * 16 + col];
            assert_eq!(f64::from(values[i]), want, "thread {thread}, element {i}");
            assert_eq!(
                f64::from(values_t[i]),
                want,
                "Bᵀ: thread {thread}, element {i}"
            );
        }
    }
}

/// A block of 48 threads has a warp of 16 lanes: the collective refuses to run there.
#[kernel]
pub fn mma_in_a_partial_warp(mut out: DisjointSlice<[f32; 4]>) {
    let one = bf16::ONE;
    let d = mma(
        &FragA::from_fn(|_, _| one),
        &FragB::from_fn(|_, _| one),
        FragC::zero(),
    );
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

#[test]
fn a_partial_warp_is_a_kernel_failure() {
    let mut out = vec![[0.0; 4]; 48];
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (48, 1, 1),
        shared_mem_bytes: 0,
    };
    let e = mma_in_a_partial_warp::emulate(&cfg, &mut out).unwrap_err();
    assert!(e.to_string().contains("whole warps"), "{e}");
}

/// A stage's slice of A (64 rows of 16 elements) and of B (16 rows of 16), each row padded by
/// one chunk.
type ATile = [[Vec8<bf16>; 3]; 64];
type BTile = [[Vec8<bf16>; 3]; 16];

/// C = A · B for row-major bf16 A (`m × k`) and B (`k × n`), through a three-stage `cp.async`
/// pipeline: a block of four warps computes a 64 × 16 tile of C, warp `w` rows `16w..`, both
/// `n8` halves; each stage holds a 64 × 16 slice of A and a 16 × 16 slice of B (rows of two
/// chunks and a padding one).
#[kernel(block = "128")]
pub fn pipelined_product(
    a: &[bf16],
    b: &[bf16],
    shape: (usize, usize, usize),
    mut out: DisjointSlice<[f32; 8]>,
    stages: Shared<Stages<(ATile, BTile), 3>>,
) {
    product_through(stages.pipeline(), (a, b), shape, &mut out);
}

/// The product of `pipelined_product` through `pipe`, whatever its stages are in: `S - 1` fills
/// ahead, each wait refilling the stage read before.
fn product_through<'s, const S: usize>(
    mut pipe: Pipeline<'_, 's, (ATile, BTile), S>,
    (a, b): (&'s [bf16], &'s [bf16]),
    (m, n, k): (usize, usize, usize),
    out: &mut DisjointSlice<[f32; 8]>,
) {
    let (m0, n0) = (
        thread::block_idx_y() as usize * 64,
        thread::block_idx_x() as usize * 16,
    );
    let tiles = k.div_ceil(16);
    let source = |t: usize, (tile, row, chunk): (usize, usize, usize)| {
        let k0 = 16 * t + 8 * chunk;
        if chunk == 2 || t >= tiles {
            Source::zeros()
        } else if tile == 0 && m0 + row < m && k0 < k {
            Source::chunk(a, (m0 + row) * k + k0)
        } else if tile == 1 && 16 * t + row < k && n0 + 8 * chunk < n {
            Source::chunk(b, (16 * t + row) * n + n0 + 8 * chunk)
        } else {
            Source::zeros()
        }
    };
    for t in 0..S - 1 {
        pipe.fill(|at| source(t, at));
    }
    let w = oxide::warp::warp_in_block() as usize;
    let mut acc = [FragC::zero(); 2];
    for t in 0..tiles {
        let ready = pipe.wait();
        let ready = ready.fill(|at| source(t + S - 1, at));
        let (a_tile, b_tile) = ready.tiles();
        let fa = FragA::load(a_tile, 16 * w, 0);
        let [b0, b1] = FragB::load_k_rows_pair(b_tile, 0, 0);
        acc[0] = mma(&fa, &b0, acc[0]);
        acc[1] = mma(&fa, &b1, acc[1]);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        let (x, y) = (acc[0].values(), acc[1].values());
        *o = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
    }
}

/// Checks `out` (one `[f32; 8]` per thread of `pipelined_product`'s grid) against the f64
/// product of `a` (`m × k`) and `b` (`k × n`).
fn check_pipelined(out: &[[f32; 8]], (a, b): (&[bf16], &[bf16]), (m, n, k): (usize, usize, usize)) {
    let columns = n.div_ceil(16);
    let expected = product(a, b, &vec![0.0; m * n], (m, n, k));
    for (thread, values) in out.iter().enumerate() {
        let block = thread / 128;
        let (by, bx) = (block / columns, block % columns);
        let (warp, lane) = ((thread % 128) / 32, thread % 32);
        for (i, &v) in values.iter().enumerate() {
            let (r, col) = c_at(lane, i % 4);
            let (r, col) = (64 * by + 16 * warp + r, 16 * bx + 8 * (i / 4) + col);
            if r < m && col < n {
                assert_eq!(
                    f64::from(v),
                    expected[r * n + col],
                    "{m}x{n}x{k}: ({r}, {col})"
                );
            }
        }
    }
}

/// The launch shape of `pipelined_product` for an `m × n` product.
fn pipelined_config(m: usize, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (n.div_ceil(16) as u32, m.div_ceil(64) as u32, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}

#[test]
fn a_pipelined_product_is_the_plain_product() {
    for (m, n, k) in [(128, 32, 80), (64, 16, 72), (100, 24, 40)] {
        let (a, b) = (values(m * k, 5, false), values(k * n, 6, false));
        let cfg = pipelined_config(m, n);
        let threads = (cfg.grid.0 * cfg.grid.1) as usize * 128;
        let mut out = vec![[f32::NAN; 8]; threads];
        pipelined_product::emulate(&cfg, &a, &b, (m, n, k), &mut out).unwrap();
        check_pipelined(&out, (&a, &b), (m, n, k));
    }
}

/// Pipelines used against their protocol, by `mode`: 0 fills four times ahead of three stages,
/// 1 waits with nothing filled, 2 lets only half the block fill (a condition on the thread).
/// Each must fail, never read a stage being written. (Two refills while a stage is read do not
/// compile: compile-fail `mma_stage_refilled_twice`.)
#[kernel(block = "64")]
pub fn pipeline_misuse(
    a: &[bf16],
    mode: u32,
    mut out: DisjointSlice<f32>,
    stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 3>>,
) {
    let mut pipe = stages.pipeline();
    let fills = match mode {
        0 => 4,
        1 => 0,
        _ => 2,
    };
    for _ in 0..fills {
        if mode != 2 || thread::thread_idx_x() < 32 {
            pipe.fill(|(_, row, chunk)| Source::chunk(a, 16 * row + 8 * chunk));
        }
    }
    let ready = pipe.wait();
    let fa = FragA::load(ready.tiles(), 0, 0);
    let d = mma(&fa, &FragB::from_fn(|_, _| bf16::ONE), FragC::zero());
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values()[0];
    }
}

#[test]
fn a_pipeline_used_out_of_turn_fails() {
    let a = values(256, 7, false);
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (64, 1, 1),
        shared_mem_bytes: 0,
    };
    for (mode, says) in [
        (0, "refilled while it may still be read"),
        (1, "no fill started"),
        (2, "no fill started"),
    ] {
        let mut out = vec![0.0; 64];
        let e = pipeline_misuse::emulate(&cfg, &a, mode, &mut out).unwrap_err();
        assert!(e.to_string().contains(says), "mode {mode}: {e}");
    }
}

/// A one-stage pipeline (a tile loaded once, asynchronously) read through every step of a
/// two-stage one, as flash_attn's `Q` beside its `K` and `V`: each lane sums, over three steps,
/// row `lane / 4` of the step's tile and of the one-stage tile (products with ones, small
/// integers: exact). `refill` fills the one stage again while it is read: a panic.
#[kernel(block = "64")]
pub fn one_stage_beside_two(
    a: &[bf16],
    refill: u32,
    mut out: DisjointSlice<f32>,
    once: Shared<Stages<[[Vec8<bf16>; 2]; 16], 1>>,
    stages: Shared<Stages<[[Vec8<bf16>; 2]; 16], 2>>,
) {
    let tile = |t: usize, (_, row, chunk): (usize, usize, usize)| {
        Source::chunk(a, 256 * t + 16 * row + 8 * chunk)
    };
    let mut q_pipe = once.pipeline();
    q_pipe.fill(|at| tile(0, at));
    let mut pipe = stages.pipeline();
    pipe.fill(|at| tile(1, at));
    let q_ready = q_pipe.wait();
    let ones = FragB::from_fn(|_, _| bf16::ONE);
    let mut d = FragC::zero();
    for t in 0..3 {
        let ready = pipe.wait().fill(|at| tile(t + 2, at));
        d = mma(&FragA::load(ready.tiles(), 0, 0), &ones, d);
        d = mma(&FragA::load(q_ready.tiles(), 0, 0), &ones, d);
    }
    if refill != 0 {
        q_ready.fill(|at| tile(0, at));
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values()[0];
    }
}

#[test]
fn a_one_stage_pipeline_is_read_beside_another() {
    let a = values(256 * 5, 11, false);
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (64, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut out = vec![0.0; 64];
    one_stage_beside_two::emulate(&cfg, &a, 0, &mut out).unwrap();
    let row_sum = |t: usize, g: usize| {
        (0..16)
            .map(|k| a[256 * t + 16 * g + k].to_f32())
            .sum::<f32>()
    };
    for (i, &o) in out.iter().enumerate() {
        let g = i % 32 / 4;
        let want: f32 = (1..4).map(|t| row_sum(t, g) + row_sum(0, g)).sum();
        assert_eq!(o, want, "thread {i}");
    }
    let e = one_stage_beside_two::emulate(&cfg, &a, 1, &mut out).unwrap_err();
    assert!(
        e.to_string()
            .contains("refilled while it may still be read"),
        "{e}"
    );
}

/// Every lane stores, into each 16 × 8 tile of its warp's region, accumulators that say where
/// they are (`1 + row · 1000 + col` of the region's element): the output must hold each
/// element's own position exactly once (the emulator's race detector fails a second write),
/// also in a rectangle lent from inside a bigger buffer.
#[kernel(block = "128")]
pub fn mark_regions(mut out: MmaTiles<f32, 64, 32, 32, 16>) {
    if let Some(mut region) = out.warp_region() {
        let (r0, c0) = region.origin();
        for i in 0..2 {
            for j in 0..2 {
                let acc =
                    FragC::from_fn(|r, c| (1 + (r0 + 16 * i + r) * 1000 + c0 + 8 * j + c) as f32);
                region.store(&acc, i, j);
            }
        }
    }
}

/// An output rectangle `(h, w)` at `(top, left)` of a `pitch × rows` buffer of zeros, written
/// by `launch` with a grid of its 64 × 32 block tiles; then every element of the buffer
/// checked: `mark(row, col)` of the rectangle inside it, zero outside.
fn check_marks<T: Copy>(
    (pitch, rows, (top, left), (h, w)): (usize, usize, (usize, usize), (usize, usize)),
    zero: T,
    launch: impl FnOnce(&LaunchConfig, oxide::host::Rows<&mut [T]>),
    (value, mark): (impl Fn(T) -> f32, impl Fn(usize, usize) -> f32),
) {
    let mut buf = vec![zero; pitch * rows];
    let cfg = LaunchConfig {
        grid: (w.div_ceil(32) as u32, h.div_ceil(64) as u32, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    let rect = oxide::host::Rows::new(&mut buf[..], pitch)
        .unwrap()
        .rect(top..top + h, left..left + w)
        .unwrap();
    launch(&cfg, rect);
    for (i, &v) in buf.iter().enumerate() {
        let (row, col) = (i / pitch, i % pitch);
        let inside = (top..top + h).contains(&row) && (left..left + w).contains(&col);
        let want = if inside {
            mark(row - top, col - left)
        } else {
            0.0
        };
        assert_eq!(
            value(v),
            want,
            "element ({row}, {col}) of {pitch} x {rows}, rect {top},{left} {h}x{w}"
        );
    }
}

#[test]
fn mma_tiles_give_each_element_to_the_lane_that_holds_it() {
    for case in [
        (70usize, 100usize, (0usize, 0usize), (100usize, 70usize)),
        (70, 100, (3, 5), (90, 61)),
        (32, 64, (0, 0), (64, 32)),
    ] {
        check_marks(
            case,
            0.0f32,
            |cfg, rect| mark_regions::emulate(cfg, rect).unwrap(),
            (|v| v, |row, col| (1 + row * 1000 + col) as f32),
        );
    }
}

/// `mark_regions` in bf16, each accumulator a small integer of its position (exact in bf16):
/// the pairs of neighbours a lane stores as one word where the output's pairs are aligned, and
/// element by element where they are not (an odd pitch or left edge) or where a pair's second
/// is past the rectangle's last column.
#[kernel(block = "128")]
pub fn mark_regions_bf16(mut out: MmaTiles<bf16, 64, 32, 32, 16>) {
    if let Some(mut region) = out.warp_region() {
        let (r0, c0) = region.origin();
        for i in 0..2 {
            for j in 0..2 {
                let acc = FragC::from_fn(|r, c| mark(r0 + 16 * i + r, c0 + 8 * j + c));
                region.store(&acc, i, j);
            }
        }
    }
}

/// A small integer of `(row, col)`, 1 to 251: exact in bf16, and neighbours differ.
fn mark(row: usize, col: usize) -> f32 {
    (1 + (row * 37 + col) % 251) as f32
}

#[test]
fn mma_tiles_store_pairs_of_bf16_aligned_or_not() {
    for case in [
        (70usize, 100usize, (0usize, 0usize), (100usize, 70usize)),
        (70, 100, (3, 5), (90, 61)),
        (71, 100, (0, 0), (100, 71)),
        (64, 64, (1, 2), (63, 62)),
    ] {
        check_marks(
            case,
            bf16::ZERO,
            |cfg, rect| mark_regions_bf16::emulate(cfg, rect).unwrap(),
            (bf16::to_f32, mark),
        );
    }
}

/// `pipelined_product` with three stages in the launch's dynamic shared memory (the form for
/// pipelines past 48 KB).
#[kernel(block = "128")]
pub fn pipelined_product_dynamic(
    a: &[bf16],
    b: &[bf16],
    shape: (usize, usize, usize),
    mut out: DisjointSlice<[f32; 8]>,
    chunks: DynShared<Vec8<bf16>>,
) {
    product_through(
        chunks.pipeline::<(ATile, BTile), 3>(),
        (a, b),
        shape,
        &mut out,
    );
}

#[test]
fn a_pipeline_in_dynamic_shared_memory_multiplies_too() {
    let stage_chunks = 64 * 3 + 16 * 3;
    for (m, n, k, chunks) in [
        (128, 32, 80, 3 * stage_chunks),
        (64, 16, 72, 3 * stage_chunks + 5),
    ] {
        let (a, b) = (values(m * k, 9, false), values(k * n, 10, false));
        let cfg = pipelined_config(m, n);
        let threads = (cfg.grid.0 * cfg.grid.1) as usize * 128;
        let mut out = vec![[f32::NAN; 8]; threads];
        pipelined_product_dynamic::emulate(&cfg, &a, &b, (m, n, k), &mut out, chunks).unwrap();
        check_pipelined(&out, (&a, &b), (m, n, k));
    }
    // Too few chunks for three stages: refused before anything is copied.
    let (a, b) = (values(64 * 16, 9, false), values(16 * 16, 10, false));
    let mut out = vec![[0.0; 8]; 128];
    let e = pipelined_product_dynamic::emulate(
        &pipelined_config(64, 16),
        &a,
        &b,
        (64, 16, 16),
        &mut out,
        stage_chunks,
    )
    .unwrap_err();
    assert!(e.to_string().contains("more dynamic shared memory"), "{e}");
}
