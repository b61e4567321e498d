//! hgemm: `C = A·B` on the tensor cores, bf16 `A` (`M × K`) and `B` (`K × N`), both row-major,
//! f32 accumulation and an f32 `C`. Each block of 128 threads computes a 128 × 128 tile of `C`
//! (blocks taking tiles eight tile rows at a time, `Grouped<8>`, so that neighbours share A's
//! rows and B's columns in L2), its four warps 64 × 64 regions of it (`MmaTiles`; `hgemm_bf16`
//! stores a bf16 `C`, each element rounded once from its accumulator), walking `k`
//! in steps of 32 through a four-stage `cp.async` pipeline in dynamic shared memory (128 × 32
//! of A, 32 × 128 of B a stage, both XOR-swizzled so that `ldmatrix` and the copies hit every
//! bank once; A and B are `Matrix` inputs, each stage tile copied by `TileSource::matrix`); per step
//! of 16 a warp loads four A fragments (`ldmatrix.x4`) and eight B fragments
//! (`ldmatrix.x4.trans`, two at a time) and issues thirty-two `mma.sync.m16n8k16`. All safe
//! Rust.

use std::process::ExitCode;

use oxide::MmaTiles;
use oxide::emulate::KernelFailure;
use oxide::host::{AnyBitPattern, Error, MatrixShape, Rows};
use oxide::mma::{FragA, FragB, FragC, Swizzled, TileSource, Vec8, mma};
use oxide::outputs::Grouped;
use oxide::prelude::*;
use oxide_bench as bench;

/// The largest side run: 8192, the size the 400 TFLOP/s bar is set at.
const MAX_SIDE: usize = 8192;
/// The rows of the default kernel's block tile (the sides run are multiples of it).
const BM: usize = 128;

/// The dynamic shared memory a kernel takes, in 16-byte chunks: `stages` stages of a `bm × bk`
/// slice of A and a `bk × bn` slice of B.
const fn chunks(bm: usize, bn: usize, bk: usize, stages: usize) -> usize {
    stages * (bm * bk / 8 + bk * bn / 8)
}

/// A GEMM kernel for one choice of block tile (`$bm × $bn`), step of `k` (`$bk`), warp region
/// (`$wm × $wn`), pipeline depth (`$stages`), block (`$threads`, one warp a region) and element
/// of `C` (`$c`: `f32`, or `bf16` rounded once from the f32 accumulators): one body, stamped per
/// variant so that one GPU run can time several.
macro_rules! gemm {
    ($(#[$doc:meta])* $name:ident: $bm:literal x $bn:literal x $bk:literal, warps $wm:literal x $wn:literal, stages $stages:literal, threads $threads:literal) => {
        gemm! { $(#[$doc])* $name: $bm x $bn x $bk, warps $wm x $wn, stages $stages, threads $threads, c f32 }
    };
    ($(#[$doc:meta])* $name:ident: $bm:literal x $bn:literal x $bk:literal, warps $wm:literal x $wn:literal, stages $stages:literal, threads $threads:literal, c $c:ty) => {
        $(#[$doc])*
        // `#[kernel]` gives the entry its `# Safety` section, which clippy does not see through
        // `macro_rules!`.
        #[allow(clippy::missing_safety_doc)]
        #[kernel(block = $threads)]
        pub fn $name(
            a: Matrix<bf16>,
            b: Matrix<bf16>,
            mut c: MmaTiles<$c, $bm, $bn, $wm, $wn, Grouped<8>>,
            chunks: DynShared<Vec8<bf16>>,
        ) {
            const BN: usize = $bn;
            const BK: usize = $bk;
            const WM: usize = $wm;
            const WN: usize = $wn;
            const STAGES: usize = $stages;
            /// A stage's slice of A (the block's rows, `BK` elements each) and of B (`BK` rows
            /// of `BN`).
            type ATile = Swizzled<[[Vec8<bf16>; $bk / 8]; $bm]>;
            type BTile = Swizzled<[[Vec8<bf16>; $bn / 8]; $bk]>;
            // The block's tile, eight tile rows at a time (`Grouped<8>`: consecutive blocks
            // share rows of A and columns of B, which stay in L2).
            let Some((m0, n0)) = c.block_origin() else {
                return;
            };
            let steps = a.cols().div_ceil(BK);
            // The stage of step `t`: A's tile at `(m0, t·BK)` and B's at `(t·BK, n0)` (zeros
            // outside the matrices).
            let source = |t: usize, tile: usize| {
                let k0 = t * BK;
                if tile == 0 {
                    TileSource::matrix(&a, m0, k0)
                } else {
                    TileSource::matrix(&b, k0, n0)
                }
            };
            let mut pipe = chunks.pipeline::<(ATile, BTile), STAGES>();
            for t in 0..STAGES - 1 {
                pipe.fill_tiles(|tile| source(t, tile));
            }
            let w = oxide::warp::warp_in_block() as usize;
            let (wm, wn) = (w / (BN / WN), w % (BN / WN));
            let mut acc = [[FragC::zero(); WN / 8]; WM / 16];
            for t in 0..steps {
                let ready = pipe.wait();
                let ready = ready.fill_tiles(|tile| source(t + STAGES - 1, tile));
                let (a_tile, b_tile) = ready.tiles();
                for kk in unroll(0..BK / 16) {
                    let mut fa = [FragA::default(); WM / 16];
                    for i in unroll(0..WM / 16) {
                        fa[i] = FragA::load(a_tile, wm * WM + 16 * i, 2 * kk);
                    }
                    let mut fb = [FragB::default(); WN / 8];
                    for p in unroll(0..WN / 16) {
                        [fb[2 * p], fb[2 * p + 1]] =
                            FragB::load_k_rows_pair(b_tile, 16 * kk, wn * WN / 8 + 2 * p);
                    }
                    for i in unroll(0..WM / 16) {
                        for j in unroll(0..WN / 8) {
                            acc[i][j] = mma(&fa[i], &fb[j], acc[i][j]);
                        }
                    }
                }
            }
            if let Some(mut region) = c.warp_region() {
                for i in unroll(0..WM / 16) {
                    for j in unroll(0..WN / 8) {
                        region.store(&acc[i][j], i, j);
                    }
                }
            }
        }
    };
}

gemm! {
    /// The default: 128 × 128 tiles, four warps of 64 × 64, four stages (64 KB).
    hgemm: 128 x 128 x 32, warps 64 x 64, stages 4, threads "128"
}
gemm! {
    /// Three stages.
    hgemm_3stages: 128 x 128 x 32, warps 64 x 64, stages 3, threads "128"
}
gemm! {
    /// Eight warps of 64 × 32.
    hgemm_8warps: 128 x 128 x 32, warps 64 x 32, stages 4, threads "256"
}
gemm! {
    /// Wider tiles and steps of 64 in `k`: eight warps of 64 × 64, three stages (144 KB).
    hgemm_128x256: 128 x 256 x 64, warps 64 x 64, stages 3, threads "256"
}
gemm! {
    /// The default with a bf16 `C` (what a model's next layer reads), each element rounded once
    /// from its f32 accumulator.
    hgemm_bf16: 128 x 128 x 32, warps 64 x 64, stages 4, threads "128", c bf16
}

/// A, B and the product's `(m, n, k)` of a launch.
type Operands<'a> = (
    &'a DeviceBuffer<bf16>,
    &'a DeviceBuffer<bf16>,
    (usize, usize, usize),
);
/// A launch of a variant on the GPU.
type Launch =
    fn(&Gpu, LaunchConfig, Operands<'_>, Rows<&mut DeviceBuffer<f32>>) -> Result<(), Error>;
/// A launch of a variant on the emulator.
type Emulate = fn(
    &LaunchConfig,
    (&[bf16], &[bf16], (usize, usize, usize)),
    Rows<&mut [f32]>,
) -> Result<(), KernelFailure>;

/// One variant: its name, block tile, block size, and launches on the GPU and the emulator.
struct Variant {
    name: &'static str,
    tile: (usize, usize),
    threads: u32,
    launch: Launch,
    // Read by the tests only (the binary runs on the GPU).
    #[cfg_attr(not(test), allow(dead_code))]
    emulate: Emulate,
}

/// A variant of kernel `$kernel` with block tile `$bm × $bn`, steps of `$bk`, `$stages` stages
/// and blocks of `$threads`.
macro_rules! variant {
    ($kernel:ident, $name:literal, $bm:literal x $bn:literal x $bk:literal, $stages:literal, $threads:literal) => {
        Variant {
            name: $name,
            tile: ($bm, $bn),
            threads: $threads,
            launch: |g, cfg, (a, b, (m, n, k)), c| {
                let (a, b) = (MatrixShape::new(a, m, k)?, MatrixShape::new(b, k, n)?);
                $kernel::launch(g, cfg, a, b, c, chunks($bm, $bn, $bk, $stages))
            },
            emulate: |cfg, (a, b, (m, n, k)), c| {
                let (a, b) = (
                    MatrixShape::new(a, m, k).expect("A is m × k"),
                    MatrixShape::new(b, k, n).expect("B is k × n"),
                );
                $kernel::emulate(cfg, a, b, c, chunks($bm, $bn, $bk, $stages))
            },
        }
    };
}

/// Every variant, the default first.
const VARIANTS: [Variant; 4] = [
    variant!(hgemm, "128x128x32 w64x64 s4", 128 x 128 x 32, 4, 128),
    variant!(hgemm_3stages, "128x128x32 w64x64 s3", 128 x 128 x 32, 3, 128),
    variant!(hgemm_8warps, "128x128x32 w64x32 s4", 128 x 128 x 32, 4, 256),
    variant!(hgemm_128x256, "128x256x64 w64x64 s3", 128 x 256 x 64, 3, 256),
];

/// The side run for `n`: the largest multiple of 128 whose square is at most `n`, within
/// 128..=8192 (2^28 gives 8192³, 2^20 + 3 gives 1024³).
fn side(n: usize) -> usize {
    (n.isqrt() / BM * BM).clamp(BM, MAX_SIDE)
}

/// The launch of a variant for an `m × n` product.
fn shape((m, n): (usize, usize), variant: &Variant) -> LaunchConfig {
    let (bm, bn) = variant.tile;
    LaunchConfig {
        grid: (n.div_ceil(bn) as u32, m.div_ceil(bm) as u32, 1),
        block: (variant.threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Inputs exact in bf16: multiples of 1/8 in [-1, 1].
fn inputs(m: usize, n: usize, k: usize) -> (Vec<bf16>, Vec<bf16>) {
    let a = (0..m * k)
        .map(|i| bf16::from_f32(((i * 7 + 3) % 17) as f32 / 8.0 - 1.0))
        .collect();
    let b = (0..k * n)
        .map(|i| bf16::from_f32(((i * 5 + 1) % 13) as f32 / 8.0 - 0.75))
        .collect();
    (a, b)
}

/// The relative error a stored `C` element adds: none for f32; for a bf16 `C`, rounding to
/// nearest with 8 significant bits, at most 2^-8 of the value.
const F32_ROUNDING: f64 = 0.0;
const BF16_ROUNDING: f64 = 1.0 / 256.0;

/// Whether `got` is `C[r][c]` within the f32 accumulation's error: `K` roundings of at most
/// half an ulp of the running sum each, bounded by 2e-3 of the sum of magnitudes (the tensor
/// cores' order and rounding differ from the CPU's; docs/tensor-cores.md), plus `rounding` of
/// the result's magnitude for the stored element's own rounding.
fn check(
    (a, b): (&[bf16], &[bf16]),
    (n, k): (usize, usize),
    (r, c): (usize, usize),
    (got, rounding): (f32, f64),
) -> Result<(), (f64, f64)> {
    let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
    for p in 0..k {
        let product = a[r * k + p].to_f64() * b[p * n + c].to_f64();
        exact += product;
        magnitude += product.abs();
    }
    let bound = 2e-3 * magnitude + 1e-4 + rounding * exact.abs();
    if (f64::from(got) - exact).abs() <= bound {
        Ok(())
    } else {
        Err((exact, bound))
    }
}

/// 64 × 64 positions spread over an `m × n` matrix, its corners among them.
fn samples(m: usize, n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..64).flat_map(move |p| (0..64).map(move |q| (p * (m - 1) / 63, q * (n - 1) / 63)))
}

fn main() -> ExitCode {
    bench::main("hgemm", 1 << 28, run)
}

/// The default kernel, or with `HGEMM_VARIANTS=1` every variant (each checked, then timed, on
/// a line of its own: `hgemm[<variant>] n=...`); with `HGEMM_SHAPES=1` first the default
/// kernel on the other shapes, 4096³ and a Llama-3-8B MLP projection (4096 × 4096 ×
/// 14336). Before the default, the same product into a bf16 `C` (`hgemm-bf16 n=...`). The
/// default at `count`'s size comes last (the suite reads the last line).
fn run(count: usize) -> Result<bool, Error> {
    let gpu = Gpu::new(0)?;
    hgemm::load(&gpu)?;
    let mut pass = true;
    if std::env::var_os("HGEMM_SHAPES").is_some_and(|v| v == "1") {
        for shape in [(4096, 4096, 4096), (4096, 4096, 14336)] {
            pass &= run_shape(&gpu, count, shape, &VARIANTS[..1])?;
        }
    }
    let s = side(count);
    pass &= run_bf16(&gpu, count, (s, s, s))?;
    let all = std::env::var_os("HGEMM_VARIANTS").is_some_and(|v| v == "1");
    let variants = if all { &VARIANTS[..] } else { &VARIANTS[..1] };
    pass &= run_shape(&gpu, count, (s, s, s), variants)?;
    Ok(pass)
}

/// `variants` on an `m × n × k` product: each checked on poisoned output, then timed.
fn run_shape(
    gpu: &Gpu,
    count: usize,
    (m, n, k): (usize, usize, usize),
    variants: &[Variant],
) -> Result<bool, Error> {
    let (a, b) = inputs(m, n, k);
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<f32>(m * n)?;
    let mut pass = true;
    // The default (`variants[0]`) last: the suite reads the last line's time as the default's.
    let order = (1..variants.len()).chain(0..1.min(variants.len()));
    for i in order {
        let variant = &variants[i];
        let name = if i == 0 {
            "hgemm".to_string()
        } else {
            format!("hgemm[{}]", variant.name)
        };
        let cfg = shape((m, n), variant);
        let detail = format!("({m} x {n} x {k}, {})", variant.name);
        pass &= check_and_time(
            gpu,
            (&name, count, &detail),
            (((&a, &b), (m, n, k)), F32_ROUNDING),
            &mut dc,
            |dc| (variant.launch)(gpu, cfg, (&da, &db, (m, n, k)), Rows::new(dc, n)?),
        )?;
    }
    Ok(pass)
}

/// The default kernel into a bf16 `C` (`hgemm_bf16`) on an `m × n × k` product: checked on
/// poisoned output, then timed, as `hgemm-bf16 n=...`.
fn run_bf16(gpu: &Gpu, count: usize, (m, n, k): (usize, usize, usize)) -> Result<bool, Error> {
    let (a, b) = inputs(m, n, k);
    let (da, db) = (gpu.htod(&a)?, gpu.htod(&b)?);
    let mut dc = gpu.alloc_zeroed::<bf16>(m * n)?;
    let cfg = shape((m, n), &VARIANTS[0]);
    let launch = |dc: &mut DeviceBuffer<bf16>| -> Result<(), Error> {
        let (a, b) = (MatrixShape::new(&da, m, k)?, MatrixShape::new(&db, k, n)?);
        hgemm_bf16::launch(gpu, cfg, a, b, Rows::new(dc, n)?, chunks(128, 128, 32, 4))
    };
    let detail = format!("({m} x {n} x {k}, {}, bf16 C)", VARIANTS[0].name);
    check_and_time(
        gpu,
        ("hgemm-bf16", count, &detail),
        (((&a, &b), (m, n, k)), BF16_ROUNDING),
        &mut dc,
        launch,
    )
}

/// A product's A and B on the host, and its `(m, n, k)`.
type HostProduct<'a> = ((&'a [bf16], &'a [bf16]), (usize, usize, usize));

/// One product into `dc` (a `C` of `T`: f32, or bf16 with `rounding`): launched on poisoned
/// output and checked at [`samples`] against the f64 product, then timed as `name`; `false`
/// (and a `FAIL` line) where an element is wrong.
fn check_and_time<T: AnyBitPattern + Copy + Into<f32> + std::fmt::Display>(
    gpu: &Gpu,
    (name, count, detail): (&str, usize, &str),
    (((a, b), (m, n, k)), rounding): (HostProduct<'_>, f64),
    dc: &mut DeviceBuffer<T>,
    launch: impl Fn(&mut DeviceBuffer<T>) -> Result<(), Error>,
) -> Result<bool, Error> {
    gpu.memset_d8(dc, 0xff)?;
    launch(dc)?;
    let got = gpu.dtoh(dc)?;
    let wrong = samples(m, n)
        .find(|&(r, c)| check((a, b), (n, k), (r, c), (got[r * n + c].into(), rounding)).is_err());
    if let Some((r, c)) = wrong {
        println!(
            "{name} n={count} FAIL at ({r}, {c}) of {m} x {n} x {k}: got {}",
            got[r * n + c]
        );
        return Ok(false);
    }
    let bytes = ((m * k + k * n) * 2 + m * n * core::mem::size_of::<T>()) as u64;
    let flops = 2 * (m * n * k) as u64;
    bench::report_timed_flops(gpu, name, count, detail, (bytes, flops), || launch(dc))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bf16-`C` kernel on the emulator, every element against the f64 product within the
    /// accumulation's error and bf16's rounding, at sizes with partial tiles.
    #[test]
    fn the_emulator_multiplies_into_bf16() {
        for (m, n, k) in [(128, 128, 64), (136, 200, 40)] {
            let (a, b) = inputs(m, n, k);
            let mut out = vec![bf16::NAN; m * n];
            let rows = Rows::new(&mut out[..], n).unwrap();
            let (am, bm) = (
                MatrixShape::new(&a[..], m, k).unwrap(),
                MatrixShape::new(&b[..], k, n).unwrap(),
            );
            let cfg = shape((m, n), &VARIANTS[0]);
            hgemm_bf16::emulate(&cfg, am, bm, rows, chunks(128, 128, 32, 4)).unwrap();
            for r in 0..m {
                for c in 0..n {
                    let got = (out[r * n + c].to_f32(), BF16_ROUNDING);
                    if let Err((exact, bound)) = check((&a, &b), (n, k), (r, c), got) {
                        panic!(
                            "bf16 C {m}x{n}x{k} ({r}, {c}): got {got:?} expected {exact} ± {bound}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sides() {
        assert_eq!(side(1 << 28), 8192);
        assert_eq!(side(1_048_579), 1024);
        assert_eq!(side(1), 128);
        assert!(samples(1024, 512).any(|p| p == (1023, 511)));
    }

    /// Every variant's product on the emulator at sizes with partial tiles everywhere (rows,
    /// columns and a `k` that is no multiple of the step; rows of A and B that are no multiple
    /// of 16 bytes, copied by plain loads), against the f64 product, every element.
    #[test]
    fn the_emulator_multiplies() {
        for (variant, (m, n, k)) in VARIANTS.iter().flat_map(|v| {
            [
                (v, (128, 128, 64)),
                (v, (136, 200, 40)),
                (v, (130, 196, 36)),
            ]
        }) {
            let (a, b) = inputs(m, n, k);
            let mut out = vec![f32::NAN; m * n];
            let rows = Rows::new(&mut out[..], n).unwrap();
            (variant.emulate)(&shape((m, n), variant), (&a, &b, (m, n, k)), rows).unwrap();
            for r in 0..m {
                for c in 0..n {
                    let got = (out[r * n + c], F32_ROUNDING);
                    if let Err((exact, bound)) = check((&a, &b), (n, k), (r, c), got) {
                        panic!(
                            "{} {m}x{n}x{k} ({r}, {c}): got {} expected {exact} ± {bound}",
                            variant.name,
                            out[r * n + c]
                        );
                    }
                }
            }
        }
    }
}
