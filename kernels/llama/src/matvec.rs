//! Matrix-vector products for a decode step at batch 1, where the weights are the whole cost
//! (a step streams every projection once: 218M bf16 parameters, 436 MB, against 16 KB of
//! activations): `y[n] = Σ_k x[k]·W[n][k]` with `W` `[N, K]` row-major bf16 (`nn.Linear`'s
//! weight as it stands) and `x` `[K]`, a warp a row of `W`, accumulated in f32.
//!
//! Each lane streams the row's 16-byte chunks `lane, lane + 32, ...` (a warp's load of one
//! step is 512 consecutive bytes of the row), [`UNROLL`] of them a step, all issued before the
//! first is used, with the matching chunks of `x` (which every warp reads: L1 and L2 serve it,
//! not DRAM); the lane's sum then goes through `warp::sum`. A step's chunks are one slice,
//! checked once, so no load waits behind a bounds test of its own.
//!
//! The fused forms fold the next element-wise step into the store, where a separate kernel
//! would read the vector back: [`gemv_add()`] adds a residual (the o and down projections,
//! `h = x + o`), [`gemv_swiglu()`] takes a gate row and its up row and stores `silu(g)·u`. Each
//! rounds the product to bf16 first, as eager's GEMM output is, then the element-wise step in
//! f32, rounded once.

use oxide::prelude::*;
use oxide::warp::{self, WARP_SIZE};

use crate::{CHUNK, Chunk, RowShape, whole_rows};

/// Lanes of a warp.
const LANES: usize = WARP_SIZE as usize;
/// Chunks of a row each lane loads in one step: 128 bytes of `W` (and as many of `x`) in flight
/// a lane. `K` must be a multiple of `LANES · UNROLL · CHUNK` = 2048: 4096 and 14336 are.
pub const UNROLL: usize = 8;
/// Elements of a row one step of a warp covers.
pub const STEP: usize = LANES * UNROLL * CHUNK;

/// A warp's step of a row: `[u][lane]` is the row's chunk `(step · UNROLL + u) · 32 + lane`.
type Step = [[Chunk; LANES]; UNROLL];

/// The steps of row `row` of `w` (rows of `k` elements; `k` a multiple of [`STEP`]), checked
/// once: a row past `w`'s end traps. The row is found in chunks, not elements, so that its
/// start is a multiple of 16 bytes LLVM can see: from an element offset `row · k` (with `k`
/// unknown) its chunk loads were eight 2-byte loads each.
#[inline(always)]
fn row_steps(w: &[bf16], row: usize, k: usize) -> &[Step] {
    let per_row = k / CHUNK;
    w.as_chunks::<CHUNK>().0[row * per_row..(row + 1) * per_row]
        .as_chunks::<LANES>()
        .0
        .as_chunks::<UNROLL>()
        .0
}

/// The dot product of a lane's chunk of the row and of `x`, in f32.
#[inline(always)]
fn dot(w: &Chunk, x: &Chunk) -> f32 {
    let mut sum = 0.0f32;
    for i in 0..CHUNK {
        sum += w[i].to_f32() * x[i].to_f32();
    }
    sum
}

/// `y` is one whole column, `[N, 1]` over its whole buffer ([`whole_rows`] of width 1): its
/// `len()`, which the kernels' other `requires` conditions read as `N`, is then its rows. Each
/// GEMV states it as its first `requires`; this device-side copy cannot fail after that, and
/// gives the compiler the facts the host checked (as `assert_whole_rows`).
#[inline(always)]
fn assert_column(y: &WarpRows<'_, bf16>) {
    let (top, left) = y.origin();
    let shape = RowShape::from_words(&[y.width(), y.pitch(), y.rows(), top, left]);
    assert!(whole_rows(shape, y.len(), 1), "a column, the whole buffer");
}

/// `y = W·x`: `w` `[N, K]`, `x` `[K]`, `y` `[N, 1]` (a one-column row a warp; grid: `N / 8`
/// blocks of 256, rounded up), `K` a multiple of [`STEP`]. `requires`: shapes that break these
/// are refused by the launch (from Python, a `ValueError`), not by a trap, which would poison
/// the calling process's CUDA context; `y.len()` is `N` because `y` is one whole column
/// (`whole_rows` of width 1, the first `requires`).
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(y.shape(), y.len(), 1)",
    requires = "x.len() > 0 && x.len().is_multiple_of(STEP)",
    requires = "w.len() == y.len() * x.len()"
)]
pub fn gemv(w: &[bf16], x: &[bf16], mut y: WarpRows<bf16>) {
    assert_column(&y);
    let k = x.len();
    let Some(mut out) = y.row_mut() else {
        return;
    };
    let lane = warp::lane_id() as usize;
    let (w_steps, x_steps) = (row_steps(w, out.row(), k), row_steps(x, 0, k));
    let mut sum = 0.0f32;
    for (ws, xs) in w_steps.iter().zip(x_steps) {
        // The step's loads first, then their products: UNROLL loads of each in flight.
        let wc: [Chunk; UNROLL] = core::array::from_fn(|u| ws[u][lane]);
        let xc: [Chunk; UNROLL] = core::array::from_fn(|u| xs[u][lane]);
        for u in unroll(0..UNROLL) {
            sum += dot(&wc[u], &xc[u]);
        }
    }
    let total = warp::sum(sum);
    if let Some((_, y)) = out.own_mut(0) {
        *y = bf16::from_f32(total);
    }
}

/// `y = residual + W·x`, the product rounded to bf16 first (eager's `o`), then the sum
/// (eager's `h = x + o`): `w` `[N, K]`, `x` `[K]`, `residual` `[N]`, `y` `[N, 1]`; grid as
/// [`gemv()`], and its `requires`.
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(y.shape(), y.len(), 1)",
    requires = "x.len() > 0 && x.len().is_multiple_of(STEP)",
    requires = "w.len() == y.len() * x.len() && residual.len() == y.len()"
)]
pub fn gemv_add(w: &[bf16], x: &[bf16], residual: &[bf16], mut y: WarpRows<bf16>) {
    assert_column(&y);
    let k = x.len();
    let Some(mut out) = y.row_mut() else {
        return;
    };
    let lane = warp::lane_id() as usize;
    let n = out.row();
    let (w_steps, x_steps) = (row_steps(w, n, k), row_steps(x, 0, k));
    let mut sum = 0.0f32;
    for (ws, xs) in w_steps.iter().zip(x_steps) {
        let wc: [Chunk; UNROLL] = core::array::from_fn(|u| ws[u][lane]);
        let xc: [Chunk; UNROLL] = core::array::from_fn(|u| xs[u][lane]);
        for u in unroll(0..UNROLL) {
            sum += dot(&wc[u], &xc[u]);
        }
    }
    let product = bf16::from_f32(warp::sum(sum)).to_f32();
    if let Some((_, y)) = out.own_mut(0) {
        *y = bf16::from_f32(residual[n].to_f32() + product);
    }
}

/// `m[n] = silu(g)·u` with `g = W[n]·x` and `u = W[N + n]·x` (the gate and up projections,
/// `W` = `cat([W_gate, W_up])` `[2N, K]`, `N` = `INTERMEDIATE` in the model), each rounded to
/// bf16 as eager's GEMM output, then `silu(g)·u` in f32, rounded once: `m` `[N, 1]`; a warp
/// streams both rows, `UNROLL` chunks of each a step; grid as [`gemv()`], and its `requires`.
#[kernel(
    grid = "1d",
    block = "256",
    requires = "whole_rows(m.shape(), m.len(), 1)",
    requires = "x.len() > 0 && x.len().is_multiple_of(STEP)",
    requires = "w.len() == 2 * m.len() * x.len()"
)]
pub fn gemv_swiglu(w: &[bf16], x: &[bf16], mut m: WarpRows<bf16>) {
    assert_column(&m);
    let (half, k) = (m.rows(), x.len());
    let Some(mut out) = m.row_mut() else {
        return;
    };
    let lane = warp::lane_id() as usize;
    let n = out.row();
    let (gate, up, x_steps) = (
        row_steps(w, n, k),
        row_steps(w, half + n, k),
        row_steps(x, 0, k),
    );
    let (mut g, mut u) = (0.0f32, 0.0f32);
    // Indexed, not a zip of three iterators: that zip's loop kept every chunk as eight 2-byte
    // loads without `.nc`. The three slices have one length, so the indices are not tested.
    for (s, xs) in x_steps.iter().enumerate() {
        let (gs, us) = (&gate[s], &up[s]);
        let gc: [Chunk; UNROLL] = core::array::from_fn(|j| gs[j][lane]);
        let uc: [Chunk; UNROLL] = core::array::from_fn(|j| us[j][lane]);
        let xc: [Chunk; UNROLL] = core::array::from_fn(|j| xs[j][lane]);
        for j in unroll(0..UNROLL) {
            g += dot(&gc[j], &xc[j]);
            u += dot(&uc[j], &xc[j]);
        }
    }
    let (g, u) = (
        bf16::from_f32(warp::sum(g)).to_f32(),
        bf16::from_f32(warp::sum(u)).to_f32(),
    );
    if let Some((_, m)) = out.own_mut(0) {
        *m = bf16::from_f32(crate::mlp::silu(g) * u);
    }
}
