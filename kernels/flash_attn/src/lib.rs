//! flash_attn: the FlashAttention-2 forward pass on the tensor cores, bf16 `Q`, `K`, `V` and
//! output, head dimension 64 and 128, causal or not, grouped-query (several query heads per K/V
//! head). Layout `[batch, heads, seq, d]` for each tensor (`K` and `V` with `kv_heads`), each a
//! `Matrix` of `batch · heads · seq` rows of `d`. Each block of four warps takes 128 query rows
//! of one head (their `Q` in a shared tile, padded a chunk a row, copied by `cp.async` with the
//! first `K` and `V` tiles), each warp 32 of them as two 16-row MMA tiles, and walks the keys
//! (128 a step at head dimension 64, 64 at 128) through a two-stage `cp.async` pipeline of XOR-swizzled `K` and `V` tiles: `S = Q·Kᵀ` (`ldmatrix.x4` of
//! `Q` and of `K`'s rows, each pair of K fragments feeding both tiles), the online softmax on the
//! accumulators (row maxima over the four lanes of a row with `shuffle_xor`, then one FFMA and
//! one `fast_exp2` a score as FlashAttention-2 does, each lane summing its own scores until the
//! end; the running maxima move, and `O` is rescaled, only where a row's grows by more than
//! 2^8, by a warp vote, as FlashAttention-4 does),
//! `P` rounded to bf16 into A fragments as it lies, `O += P·V` (`ldmatrix.x4.trans` of `V`);
//! at the end `O / l` stored by each lane where its accumulators are (`MmaTiles`). All safe Rust.

use oxide::MmaTiles;
use oxide::host::{Error, MatrixShape, Rows};
use oxide::mma::{FragA, FragB, FragC, Source, Stages, Swizzled, TileSource, Vec8, mma};
use oxide::prelude::*;
use oxide::warp;

/// The keys of a step: 128 at head dimension 64 and 64 at 128, FlashAttention-2's. At 64, 128
/// keys halve the per-key cost of a step's barrier, wait, fill addresses and row maxima, and
/// double each accumulator's distance to its next `mma`: +6.6% at seq 2k, +7.8% at 16k on an
/// H100 (2026-12-07, perf-notes), where 64 had measured even before the strided fills.
const fn keys_per_step(d: usize) -> usize {
    if d <= 64 { 128 } else { 64 }
}

/// The pipeline's stages.
const STAGES: usize = 2;

/// How far (in base-2 units of the scores) a row's maximum may grow before the running maximum
/// moves and `O` is rescaled: 8, so the exponentials stay below 256 (FlashAttention-4's value).
const RESCALE: f32 = 8.0;

/// `m`, or 0 for a row with no maximum yet (-inf): what its scores' exponentials subtract.
#[inline(always)]
fn finite_or_zero(m: f32) -> f32 {
    if m == f32::NEG_INFINITY { 0.0 } else { m }
}

/// `(heads, kv_heads, seq, causal)`, `causal` 0 or 1.
pub type Shape = (usize, usize, usize, usize);

/// The dynamic shared memory a kernel of head dimension `d` takes, in 16-byte chunks: `STAGES`
/// stages of a `K` and a `V` tile, `keys_per_step(d)` rows of `d / 8` chunks.
const fn chunks(d: usize) -> usize {
    STAGES * 2 * keys_per_step(d) * (d / 8)
}

/// The query rows of a block: four warps of [`WARP_ROWS`].
pub const BQ: usize = 4 * WARP_ROWS;

/// The query rows of a warp: two 16-row MMA tiles, so that each `K` and `V` fragment loaded
/// from shared memory feeds two `mma`s (half the shared-memory reads per `mma` of one tile).
/// Their `Q` stays in shared memory, loaded by `ldmatrix` where it is used: in registers, two
/// tiles' `Q`, scores and output accumulators (64 + 64 + 128 registers at head dimension 128)
/// would not fit a thread's 255.
const WARP_ROWS: usize = 32;

/// The attention kernel of head dimension `$d`, one body for every head dimension. `scale`
/// (usually `1/√d`) must be finite and positive: the kernels take the row maximum of the
/// unscaled scores and mask with -inf before scaling (FlashAttention-2's softmax, which assumes
/// it of `softmax_scale`), so 0 would give NaN (-inf · 0) and a negative scale the wrong
/// maximum. The kernel's `requires` states it, and the shape's rules (query heads a multiple of
/// the K/V heads, the sequence whole blocks of [`BQ`] rows), whose breach would divide by zero
/// on the GPU (a trap) or leave rows unwritten: every launch, emulated, from Rust or from
/// Python, refuses them before anything runs.
macro_rules! attention {
    ($(#[$doc:meta])* $name:ident, $d:literal) => {
        $(#[$doc])*
        // `#[kernel]` gives the entry its `# Safety` section, which clippy does not see through
        // `macro_rules!`; a kernel's shared tiles are parameters too (the launch passes none of
        // them), so its list is longer than a host function's would be.
        #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
        #[kernel(
            block = "128",
            requires = "scale.is_finite() && scale > 0.0",
            requires = "shape.0 > 0 && shape.1 > 0 && shape.0 % shape.1 == 0",
            requires = "shape.2 > 0 && shape.2 % BQ == 0"
        )]
        pub fn $name(
            q: Matrix<bf16>,
            k: Matrix<bf16>,
            v: Matrix<bf16>,
            shape: Shape,
            scale: f32,
            mut out: MmaTiles<bf16, BQ, $d, WARP_ROWS, $d>,
            chunks: DynShared<Vec8<bf16>>,
            q_stage: Shared<Stages<[[Vec8<bf16>; $d / 8 + 1]; BQ], 1>>,
        ) {
            const D: usize = $d;
            /// Each warp's 16-row MMA tiles.
            const MT: usize = WARP_ROWS / 16;
            /// A stage's `BKV` rows of `K` or `V`: a key's `D` elements a row.
            type KvTile = Swizzled<[[Vec8<bf16>; $d / 8]; keys_per_step($d)]>;
            const BKV: usize = keys_per_step(D);
            let (heads, kv_heads, seq, causal) = shape;
            let q_tiles = seq / BQ;
            let y = thread::block_idx_y() as usize;
            let (head, q_block) = (y / q_tiles, y % q_tiles);
            let (b, h) = (head / heads, head % heads);
            let kv_head = b * kv_heads + h / (heads / kv_heads);
            let (q_rows, kv_rows) = (head * seq, kv_head * seq);
            // Causal: the keys up to the block's last row.
            let steps = if causal != 0 { (q_block + 1) * BQ / BKV } else { seq / BKV };
            let w = warp::warp_in_block() as usize;
            // The warp's first row in the block and in the head; its tile `i` is rows
            // `row0 + 16·i ..`.
            let warp_row = WARP_ROWS * w;
            let row0 = q_block * BQ + warp_row;

            // The stage of step `t`: keys `t·BKV ..` of `K` (tile 0) or `V` (tile 1), all their
            // elements; zeros past the last step.
            let source = |t: usize, tile: usize| {
                if t < steps {
                    let kv = if tile == 0 { &k } else { &v };
                    TileSource::matrix(kv, kv_rows + t * BKV, 0)
                } else {
                    TileSource::zeros()
                }
            };
            // The block's rows of Q, a padding chunk a row (conflict-free `ldmatrix`, each
            // load's address a constant from the tile's), copied asynchronously with the first
            // K and V tiles (one stage, read after its wait): every thread's copies in flight
            // at once, as FlashAttention-2 loads Q.
            let mut q_pipe = q_stage.pipeline();
            q_pipe.fill(|(_, r, c)| {
                if c < D / 8 {
                    Source::matrix(&q, q_rows + q_block * BQ + r, 8 * c)
                } else {
                    Source::zeros()
                }
            });
            let mut pipe = chunks.pipeline::<(KvTile, KvTile), STAGES>();
            pipe.fill_tiles(|tile| source(0, tile));
            let q_ready = q_pipe.wait();
            let q_tile = q_ready.tiles();
            // Each lane holds rows `g` and `g + 8` of each of its warp's tiles: their running
            // maximum (of the scores in base 2) and the lane's part of their sum.
            let mut m = [[f32::NEG_INFINITY; 2]; MT];
            let mut l = [[0.0f32; 2]; MT];
            let mut o = [[FragC::zero(); D / 8]; MT];
            let scale2 = scale * core::f32::consts::LOG2_E;
            for t in 0..steps {
                let ready = pipe.wait();
                let ready = ready.fill_tiles(|tile| source(t + 1, tile));
                let (k_tile, v_tile) = ready.tiles();
                // S = Q·Kᵀ, unscaled, masked above the diagonal: each pair of K fragments
                // loaded once for the warp's tiles.
                let mut s = [[FragC::zero(); BKV / 8]; MT];
                for kk in unroll(0..D / 16) {
                    let mut qf = [FragA::default(); MT];
                    for i in unroll(0..MT) {
                        qf[i] = FragA::load(q_tile, warp_row + 16 * i, 2 * kk);
                    }
                    for jp in unroll(0..BKV / 16) {
                        let [b0, b1] = FragB::load_n_rows_pair(k_tile, 16 * jp, 2 * kk);
                        for i in unroll(0..MT) {
                            s[i][2 * jp] = mma(&qf[i], &b0, s[i][2 * jp]);
                            s[i][2 * jp + 1] = mma(&qf[i], &b1, s[i][2 * jp + 1]);
                        }
                    }
                }
                // The tiles whose keys reach past the block's first row.
                let diagonal = causal != 0 && (t + 1) * BKV > q_block * BQ;
                for i in unroll(0..MT) {
                    let rows = row0 + 16 * i;
                    // Only the steps on the diagonal test positions (FlashAttention-2's masked
                    // blocks); the others keep every score.
                    if diagonal {
                        for (j, s) in s[i].iter_mut().enumerate() {
                            *s = s.map(|(r, c), x| {
                                let key = t * BKV + 8 * j + c;
                                if key > rows + r { f32::NEG_INFINITY } else { x }
                            });
                        }
                    }
                    // The rows' new maxima, of the scores before scaling (the scale is
                    // positive): over the lane's values, then over the four lanes of the row.
                    let mut top = [f32::NEG_INFINITY; 2];
                    for s in &s[i] {
                        let x = s.values();
                        top[0] = top[0].max(x[0]).max(x[1]);
                        top[1] = top[1].max(x[2]).max(x[3]);
                    }
                    for half in unroll(0..2) {
                        top[half] = top[half].max(warp::shuffle_xor(top[half], 1));
                        top[half] = top[half].max(warp::shuffle_xor(top[half], 2));
                    }
                    // The running maxima, in base-2 units, move lazily (FlashAttention-4's
                    // rescaling): only where a row's grows by more than `RESCALE` does the warp
                    // (one vote, a uniform branch) take the new maxima and rescale `O` and `l`;
                    // otherwise each row keeps its maximum, its exponentials stay below
                    // 2^RESCALE (as exact in f32 and bf16 as below 1), and the step skips the
                    // rescale's multiplies. The first step always moves (from -inf).
                    let grown = [top[0] * scale2, top[1] * scale2];
                    if warp::any(grown[0] > m[i][0] + RESCALE || grown[1] > m[i][1] + RESCALE) {
                        let new_m = [m[i][0].max(grown[0]), m[i][1].max(grown[1])];
                        let correction = [
                            (m[i][0] - finite_or_zero(new_m[0])).fast_exp2(),
                            (m[i][1] - finite_or_zero(new_m[1])).fast_exp2(),
                        ];
                        m[i] = new_m;
                        for half in unroll(0..2) {
                            l[i][half] *= correction[half];
                        }
                        for o in o[i].iter_mut() {
                            *o = o.map(|(r, _), x| x * correction[r / 8]);
                        }
                    }
                    // A row that has seen no key yet (all masked) subtracts 0, so its scores'
                    // exponentials are 0, not NaN.
                    let base = m[i].map(finite_or_zero);
                    // exp2(x·scale2 - m): one FFMA and one MUFU.EX2 a score. Each lane sums
                    // its own scores of a row; the four lanes' sums are added at the end.
                    let mut sums = [0.0f32; 2];
                    for s in s[i].iter_mut() {
                        *s = s.map(|(r, _), x| {
                            let p = x.mul_add(scale2, -base[r / 8]).fast_exp2();
                            sums[r / 8] += p;
                            p
                        });
                    }
                    for half in unroll(0..2) {
                        l[i][half] += sums[half];
                    }
                }
                // O += P·V, P as bf16 A fragments straight from the accumulators; each pair of
                // V fragments loaded once for the warp's tiles.
                for kk in unroll(0..BKV / 16) {
                    let mut p = [FragA::<bf16>::default(); MT];
                    for i in unroll(0..MT) {
                        p[i] = FragA::from_accumulators(&s[i][2 * kk], &s[i][2 * kk + 1]);
                    }
                    for jp in unroll(0..D / 16) {
                        let [b0, b1] = FragB::load_k_rows_pair(v_tile, 16 * kk, 2 * jp);
                        for i in unroll(0..MT) {
                            o[i][2 * jp] = mma(&p[i], &b0, o[i][2 * jp]);
                            o[i][2 * jp + 1] = mma(&p[i], &b1, o[i][2 * jp + 1]);
                        }
                    }
                }
            }
            // Each row's sum over its four lanes, and its reciprocal.
            let mut inv = [[0.0f32; 2]; MT];
            for i in unroll(0..MT) {
                for half in unroll(0..2) {
                    let mut sum = l[i][half];
                    sum += warp::shuffle_xor(sum, 1);
                    sum += warp::shuffle_xor(sum, 2);
                    inv[i][half] = 1.0 / sum;
                }
            }
            if let Some(mut region) = out.warp_region() {
                for i in unroll(0..MT) {
                    for j in unroll(0..D / 8) {
                        region.store(&o[i][j].map(|(r, _), x| x * inv[i][r / 8]), i, j);
                    }
                }
            }
        }
    };
}

attention! {
    /// Head dimension 64 (64 KB of stages, 18 KB of Q).
    flash_attn, 64
}

attention! {
    /// Head dimension 128 (64 KB of stages, 34 KB of Q).
    flash_attn_128, 128
}

/// A head dimension the kernels are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadDim {
    /// 64: kernel `flash_attn`.
    D64,
    /// 128: kernel `flash_attn_128`.
    D128,
}

impl HeadDim {
    /// The elements of a row of `Q`, `K`, `V` and the output.
    pub const fn elements(self) -> usize {
        match self {
            HeadDim::D64 => 64,
            HeadDim::D128 => 128,
        }
    }

    /// `d` as a head dimension, if it is one the kernels are built for.
    pub const fn new(d: usize) -> Option<Self> {
        match d {
            64 => Some(HeadDim::D64),
            128 => Some(HeadDim::D128),
            _ => None,
        }
    }
}

/// The launch of `batch · heads · seq` query rows: a block for each [`BQ`] of them (`seq` a
/// multiple of `BQ`).
pub fn config(batch: usize, heads: usize, seq: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (1, (batch * heads * seq / BQ) as u32, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}
/// Loads the kernels' module on `gpu` (a launch loads it otherwise on first use).
pub fn load(gpu: &Gpu) -> Result<(), Error> {
    flash_attn::load(gpu)
}

/// The attention of head dimension `d` on the GPU: `q`, `k`, `v` and `out` in rows of
/// `d.elements()` (`[batch, heads, seq, d]`, `K` and `V` with `kv_heads`), `cfg` from [`config`].
/// A `scale` that is not finite and positive is refused (`Error::Requires`).
pub fn launch(
    gpu: &Gpu,
    (d, cfg): (HeadDim, LaunchConfig),
    (q, k, v): (
        &DeviceBuffer<bf16>,
        &DeviceBuffer<bf16>,
        &DeviceBuffer<bf16>,
    ),
    (shape, scale): (Shape, f32),
    out: &mut DeviceBuffer<bf16>,
) -> Result<(), Error> {
    let e = d.elements();
    let rows = Rows::new(out, e)?;
    let (q, k, v) = (
        MatrixShape::new(q, q.len() / e, e)?,
        MatrixShape::new(k, k.len() / e, e)?,
        MatrixShape::new(v, v.len() / e, e)?,
    );
    match d {
        HeadDim::D64 => flash_attn::launch(gpu, cfg, q, k, v, shape, scale, rows, chunks(64)),
        HeadDim::D128 => flash_attn_128::launch(gpu, cfg, q, k, v, shape, scale, rows, chunks(128)),
    }
}

/// [`launch`] on the CPU emulator, over host slices.
///
/// # Panics
/// Where `q`, `k`, `v` or `out` are not whole rows of `d`.
pub fn emulate(
    (d, cfg): (HeadDim, LaunchConfig),
    (q, k, v): (&[bf16], &[bf16], &[bf16]),
    (shape, scale): (Shape, f32),
    out: &mut [bf16],
) -> Result<(), oxide::emulate::KernelFailure> {
    let e = d.elements();
    fn matrix(x: &[bf16], e: usize) -> Result<MatrixShape<&[bf16]>, oxide::host::ShapeError> {
        MatrixShape::new(x, x.len() / e, e)
    }
    let (Ok(q), Ok(k), Ok(v), Ok(rows)) =
        (matrix(q, e), matrix(k, e), matrix(v, e), Rows::new(out, e))
    else {
        panic!("flash_attn::emulate: q, k, v and out must be whole rows of {e}");
    };
    match d {
        HeadDim::D64 => flash_attn::emulate(&cfg, q, k, v, shape, scale, rows, chunks(64)),
        HeadDim::D128 => flash_attn_128::emulate(&cfg, q, k, v, shape, scale, rows, chunks(128)),
    }
}
