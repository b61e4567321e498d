//! The 2-D output shapes whose layout is not one element per thread of a flat slice: rows with
//! a pitch (the padding must stay as the host left it), rectangles of a buffer (`Rows::rect`:
//! the border must stay), anti-diagonal wavefronts (one launch per wave, each reading the
//! tiles of earlier waves) and block tiles wider than half the address space (one owner per
//! element). Each case compares the whole buffer, padding and border included, against plain
//! Rust.

use oxide::emulate::KernelFailure;
use oxide::host::{Error, Gpu, Rows, Wave};
use oxide::outputs::{Grouped, TileOrder};
use oxide::prelude::*;

use crate::harness::{Case, Check, Outcome};

/// What the host puts in every element before the launch; the padding must keep it.
const UNTOUCHED: u64 = 0xdead_beef_0bad_cafe;

/// Rows of 37 elements, 48 apart.
const WIDTH: usize = 37;
const PITCH: usize = 48;
const ROWS: usize = 22;

/// Each thread of a 2-D grid writes its element from the input at the same (row, col) of a
/// dense `ROWS x WIDTH` matrix.
#[kernel]
pub fn padded_rows(input: &[u64], mut out: DisjointRows<u64>) {
    if let Some(((row, col), o)) = out.at_thread() {
        let x = input[(row * WIDTH + col) % input.len()];
        *o = x.rotate_left((row % 64) as u32) ^ col as u64;
    }
}

fn padded_reference(input: &[u64]) -> Vec<u64> {
    let mut out = vec![UNTOUCHED; ROWS * PITCH];
    for row in 0..ROWS {
        for col in 0..WIDTH {
            let x = input[(row * WIDTH + col) % input.len()];
            out[row * PITCH + col] = x.rotate_left((row % 64) as u32) ^ col as u64;
        }
    }
    out
}

/// Blocks of 16 x 8 over the 37 x 22 matrix (partial blocks on both axes).
fn padded_config() -> LaunchConfig {
    LaunchConfig {
        grid: (WIDTH.div_ceil(16) as u32, ROWS.div_ceil(8) as u32, 1),
        block: (16, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// A padded grid of 27 rows of 36, whose interior (rows 1..26, columns 1..35: 25 × 34) the
/// rectangle cases write; it starts 37 elements into the buffer, 296 bytes, not a multiple of
/// 16.
const GRID_ROWS: usize = 27;
const GRID_WIDTH: usize = 36;

/// A 5-point stencil of integers on the interior: each thread reads its neighbours around its
/// element's place in the buffer (`origin()` plus its position), which the border gives every
/// interior element.
#[kernel]
pub fn rect_stencil(input: &[u64], mut out: DisjointRows<u64>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    if let Some(((r, c), o)) = out.at_thread() {
        let at = |i: usize| input[i % input.len()];
        let i = (top + r) * pitch + left + c;
        *o = five_points(at(i), at(i - pitch), at(i + pitch), at(i - 1), at(i + 1));
    }
}

fn five_points(c: u64, n: u64, s: u64, w: u64, e: u64) -> u64 {
    c.wrapping_mul(3) ^ n.rotate_left(7) ^ s.rotate_left(19) ^ w.rotate_right(5) ^ e
}

fn rect_stencil_reference(input: &[u64]) -> Vec<u64> {
    let at = |i: usize| input[i % input.len()];
    let mut out = vec![UNTOUCHED; GRID_ROWS * GRID_WIDTH];
    for row in 1..GRID_ROWS - 1 {
        for col in 1..GRID_WIDTH - 1 {
            let i = row * GRID_WIDTH + col;
            let w = GRID_WIDTH;
            out[i] = five_points(at(i), at(i - w), at(i + w), at(i - 1), at(i + 1));
        }
    }
    out
}

/// The grid's interior as the kernel's output.
fn interior<B: oxide::host::RowStorage>(grid: B) -> Result<Rows<B>, oxide::host::ShapeError> {
    Rows::new(grid, GRID_WIDTH)?.rect(1..GRID_ROWS - 1, 1..GRID_WIDTH - 1)
}

/// Blocks of 16 x 8 over the 34 x 25 interior (partial blocks on both axes).
fn rect_config() -> LaunchConfig {
    LaunchConfig {
        grid: (3, 4, 1),
        block: (16, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// One warp per row of the interior: each lane adds its columns of its row, the warp adds
/// the lanes' sums (wrapping), and each lane writes its columns mixed with the row's sum.
#[kernel]
pub fn rect_warp_rows(input: &[u64], mut out: WarpRows<u64>) {
    let ((top, left), pitch, width) = (out.origin(), out.pitch(), out.width());
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let start = (top + row.row()) * pitch + left;
    let at = |col: usize| input[(start + col) % input.len()];
    let mut mine = 0u64;
    let mut col = oxide::warp::lane_id() as usize;
    while col < width {
        mine = mine.wrapping_add(at(col));
        col += 32;
    }
    let sum = oxide::warp::reduce(mine, u64::wrapping_add);
    row.for_each_own(|col, o| *o = at(col) ^ sum.rotate_left(col as u32 % 64));
}

fn rect_warp_rows_reference(input: &[u64]) -> Vec<u64> {
    let at = |i: usize| input[i % input.len()];
    let mut out = vec![UNTOUCHED; GRID_ROWS * GRID_WIDTH];
    for row in 1..GRID_ROWS - 1 {
        let start = row * GRID_WIDTH + 1;
        let cols = 0..GRID_WIDTH - 2;
        let sum = cols
            .clone()
            .fold(0u64, |s, c| s.wrapping_add(at(start + c)));
        for col in cols {
            out[start + col] = at(start + col) ^ sum.rotate_left(col as u32 % 64);
        }
    }
    out
}

/// Nine blocks of three warps for the interior's 25 rows: the last two warps have no row and
/// leave.
fn rect_warp_config() -> LaunchConfig {
    LaunchConfig {
        grid: (9, 1, 1),
        block: (96, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// One warp per row of the interior in chunks of two `u64` (16 bytes): each row of 34 starts
/// at an odd buffer index, so it has a partial element before its first whole chunk and one
/// after its last. Each element from its buffer index.
#[kernel]
pub fn rect_warp_chunk_rows(input: &[u64], mut out: WarpChunkRows<u64, 2>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let start = (top + row.row()) * pitch + left;
    let at = |i: usize| input[i % input.len()] ^ (i as u64).rotate_left(40);
    row.for_each_chunk(|col, chunk| {
        *chunk = [at(start + col), at(start + col + 1)];
    });
    row.for_each_partial(|col, o| *o = at(start + col));
}

fn rect_warp_chunk_rows_reference(input: &[u64]) -> Vec<u64> {
    let mut out = vec![UNTOUCHED; GRID_ROWS * GRID_WIDTH];
    for row in 1..GRID_ROWS - 1 {
        for col in 1..GRID_WIDTH - 1 {
            let i = row * GRID_WIDTH + col;
            out[i] = input[i % input.len()] ^ (i as u64).rotate_left(40);
        }
    }
    out
}

/// Tiles of 8 x 8 of the interior, blocks of 8 x 4 (two rows per thread): each element from
/// its place in the buffer and in its tile.
#[kernel]
pub fn rect_block_tiles(input: &[u64], out: BlockTiles<u64, 8, 8>) {
    write_tiles(input, out);
}

/// `rect_block_tiles` with the tiles in Triton's grouped order (three tile rows at a time,
/// column by column) over a 1-D grid of 22 blocks for the 20 tiles: the last two own nothing.
#[kernel]
pub fn rect_block_tiles_grouped(input: &[u64], out: BlockTiles<u64, 8, 8, Grouped<3>>) {
    write_tiles(input, out);
}

/// Each element of the calling block's tile from its place in the buffer and in its tile.
fn write_tiles<O: TileOrder>(input: &[u64], mut out: BlockTiles<u64, 8, 8, O>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    let Some(mut tile) = out.tile_mut() else {
        return;
    };
    let corner = tile.origin();
    for i in 0..2 {
        if let Some(((r, c), o)) = tile.own_mut((i, 0)) {
            let x = input[((top + r) * pitch + left + c) % input.len()];
            *o = mix(x, corner.0 as u64, corner.1 as u64);
        }
    }
}

fn rect_block_tiles_reference(input: &[u64]) -> Vec<u64> {
    let mut out = vec![UNTOUCHED; GRID_ROWS * GRID_WIDTH];
    for row in 1..GRID_ROWS - 1 {
        for col in 1..GRID_WIDTH - 1 {
            let i = row * GRID_WIDTH + col;
            let corner = ((row - 1) / 8 * 8, (col - 1) / 8 * 8);
            out[i] = mix(input[i % input.len()], corner.0 as u64, corner.1 as u64);
        }
    }
    out
}

/// 5 x 4 blocks for the 34 x 25 interior's 5 x 4 tiles (partial at the right and the bottom),
/// and a column of blocks past it that owns nothing.
fn rect_tiles_config() -> LaunchConfig {
    LaunchConfig {
        grid: (6, 4, 1),
        block: (8, 4, 1),
        shared_mem_bytes: 0,
    }
}

/// The grouped order's 1-D grid: 22 blocks of 8 x 4.
fn grouped_tiles_config() -> LaunchConfig {
    LaunchConfig {
        grid: (22, 1, 1),
        block: (8, 4, 1),
        shared_mem_bytes: 0,
    }
}

/// Tiles of 4 x 4 in a 20 x 28 matrix (5 x 7 tiles, 11 waves).
const TILE: usize = 4;
const WAVE_ROWS: usize = 20;
const WAVE_WIDTH: usize = 28;
const WAVES: usize = WAVE_ROWS / TILE + WAVE_WIDTH / TILE - 1;

/// One wave of a recurrence over tiles: an element is its input mixed with the elements at the
/// same place in the tiles above and to the left (written by earlier waves). Blocks of 2 x 2
/// threads, each owning 2 x 2 elements of its tile.
#[kernel]
pub fn wave_recurrence(input: &[u64], mut out: WaveTiles<u64, 4, 4>) {
    for i in 0..2 {
        for j in 0..2 {
            let Some(((row, col), _)) = out.own_mut((i, j)) else {
                continue;
            };
            let above = row.checked_sub(TILE).and_then(|r| out.earlier(r, col));
            let left = col.checked_sub(TILE).and_then(|c| out.earlier(row, c));
            let x = input[(row * WAVE_WIDTH + col) % input.len()];
            let value = mix(x, above.unwrap_or(1), left.unwrap_or(2));
            if let Some((_, o)) = out.own_mut((i, j)) {
                *o = value;
            }
        }
    }
}

fn mix(x: u64, above: u64, left: u64) -> u64 {
    (x ^ above.rotate_left(13)).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ left.rotate_right(7)
}

fn wave_reference(input: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; WAVE_ROWS * WAVE_WIDTH];
    // Row by row, column by column: the tiles above and to the left are done before.
    for row in 0..WAVE_ROWS {
        for col in 0..WAVE_WIDTH {
            let above = row.checked_sub(TILE).map(|r| out[r * WAVE_WIDTH + col]);
            let left = col.checked_sub(TILE).map(|c| out[row * WAVE_WIDTH + c]);
            let x = input[(row * WAVE_WIDTH + col) % input.len()];
            out[row * WAVE_WIDTH + col] = mix(x, above.unwrap_or(1), left.unwrap_or(2));
        }
    }
    out
}

/// A grid of one block per tile column (the widest wave has 5 tiles, so some blocks of a wave
/// own nothing).
fn wave_config() -> LaunchConfig {
    LaunchConfig {
        grid: ((WAVE_WIDTH / TILE) as u32, 1, 1),
        block: (2, 2, 1),
        shared_mem_bytes: 0,
    }
}

/// A 2 × 8 buffer seen as tiles of 2 rows by 2^63 columns.
const WIDE_ROWS: usize = 2;
const WIDE_WIDTH: usize = 8;

/// Issue 18, hole 2: block 0's tile is the whole buffer, block 1's starts past its end, and
/// blocks 2 and up have none, as `2 · 2^63` does not fit in `usize` (a release build wrapped it
/// to 0 and gave every even block block 0's tile: on the H200, 16 of 16 elements had two
/// owners). Each thread folds its block into what the element held, so a second owner changes
/// the result, whichever write lands last. Blocks of 4 × 2 threads, each owning columns `tx`
/// and `tx + 4` of its row.
#[kernel]
pub fn block_tiles_wide(input: &[u64], mut out: BlockTiles<u64, 2, { 1 << 63 }>) {
    let block = u64::from(thread::block_idx_x());
    if let Some(mut tile) = out.tile_mut() {
        for j in 0..2 {
            if let Some(((row, col), o)) = tile.own_mut((0, j)) {
                let x = input[(row * WIDE_WIDTH + col) % input.len()];
                *o = mix(*o ^ x, block, row as u64);
            }
        }
    }
}

fn wide_reference(input: &[u64]) -> Vec<u64> {
    (0..WIDE_ROWS * WIDE_WIDTH)
        .map(|i| {
            mix(
                UNTOUCHED ^ input[i % input.len()],
                0,
                (i / WIDE_WIDTH) as u64,
            )
        })
        .collect()
}

/// 16 blocks along x: the odd ones start past the buffer, the even ones from 2 on overflow.
fn wide_config() -> LaunchConfig {
    LaunchConfig {
        grid: (16, 1, 1),
        block: (4, 2, 1),
        shared_mem_bytes: 0,
    }
}

type Emulate = fn(&[u64], &mut [u64]) -> Result<(), String>;
type OnGpu = fn(&Gpu, &[u64], &mut [u64]) -> Result<(), String>;

/// A case with its own buffer layout: `len` output elements, all [`UNTOUCHED`] before the
/// launches, written by `emulate` or `gpu` and compared whole against `reference`.
struct LayoutCase {
    name: &'static str,
    len: usize,
    reference: fn(&[u64]) -> Vec<u64>,
    emulate: Emulate,
    gpu: OnGpu,
}

impl Case for LayoutCase {
    fn name(&self) -> &'static str {
        self.name
    }

    fn check(&self) -> Check {
        Check::Exact
    }

    fn float_bits(&self) -> u32 {
        0
    }

    fn reference(&self, input: &[u64]) -> Outcome {
        Outcome::Values(
            (self.reference)(input)
                .into_iter()
                .map(u128::from)
                .collect(),
        )
    }

    fn emulate(&self, input: &[u64]) -> Outcome {
        let mut out = vec![UNTOUCHED; self.len];
        outcome((self.emulate)(input, &mut out).map(|()| out))
    }

    fn gpu(&self, gpu: &Gpu, input: &[u64]) -> Outcome {
        let mut out = vec![UNTOUCHED; self.len];
        outcome((self.gpu)(gpu, input, &mut out).map(|()| out))
    }
}

fn outcome(result: Result<Vec<u64>, String>) -> Outcome {
    match result {
        Ok(out) => Outcome::Values(out.into_iter().map(u128::from).collect()),
        Err(e) => Outcome::Failed(e),
    }
}

fn failed(e: KernelFailure) -> String {
    e.to_string()
}

fn on_gpu(
    gpu: &Gpu,
    input: &[u64],
    out: &mut [u64],
    launches: impl FnOnce(
        &oxide::host::DeviceBuffer<u64>,
        &mut oxide::host::DeviceBuffer<u64>,
    ) -> Result<(), Error>,
) -> Result<(), String> {
    let run = || -> Result<Vec<u64>, Error> {
        let input = gpu.htod(input)?;
        let mut buf = gpu.htod(out)?;
        launches(&input, &mut buf)?;
        gpu.dtoh(&buf)
    };
    let values = run().map_err(|e| e.to_string())?;
    out.copy_from_slice(&values);
    Ok(())
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(LayoutCase {
            name: "padded_rows",
            len: ROWS * PITCH,
            reference: padded_reference,
            emulate: |input, out| {
                let rows = Rows::with_pitch(out, WIDTH, PITCH).map_err(|e| e.to_string())?;
                padded_rows::emulate(&padded_config(), input, rows).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    padded_rows::launch(
                        gpu,
                        padded_config(),
                        input,
                        Rows::with_pitch(buf, WIDTH, PITCH)?,
                    )
                })
            },
        }),
        Box::new(LayoutCase {
            name: "rect_stencil",
            len: GRID_ROWS * GRID_WIDTH,
            reference: rect_stencil_reference,
            emulate: |input, out| {
                let rect = interior(out).map_err(|e| e.to_string())?;
                rect_stencil::emulate(&rect_config(), input, rect).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    rect_stencil::launch(gpu, rect_config(), input, interior(buf)?)
                })
            },
        }),
        Box::new(LayoutCase {
            name: "rect_warp_rows",
            len: GRID_ROWS * GRID_WIDTH,
            reference: rect_warp_rows_reference,
            emulate: |input, out| {
                let rect = interior(out).map_err(|e| e.to_string())?;
                rect_warp_rows::emulate(&rect_warp_config(), input, rect).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    rect_warp_rows::launch(gpu, rect_warp_config(), input, interior(buf)?)
                })
            },
        }),
        Box::new(LayoutCase {
            name: "rect_warp_chunk_rows",
            len: GRID_ROWS * GRID_WIDTH,
            reference: rect_warp_chunk_rows_reference,
            emulate: |input, out| {
                let rect = interior(out).map_err(|e| e.to_string())?;
                rect_warp_chunk_rows::emulate(&rect_warp_config(), input, rect).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    rect_warp_chunk_rows::launch(gpu, rect_warp_config(), input, interior(buf)?)
                })
            },
        }),
        Box::new(LayoutCase {
            name: "rect_block_tiles",
            len: GRID_ROWS * GRID_WIDTH,
            reference: rect_block_tiles_reference,
            emulate: |input, out| {
                let rect = interior(out).map_err(|e| e.to_string())?;
                rect_block_tiles::emulate(&rect_tiles_config(), input, rect).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    rect_block_tiles::launch(gpu, rect_tiles_config(), input, interior(buf)?)
                })
            },
        }),
        Box::new(LayoutCase {
            name: "rect_block_tiles_grouped",
            len: GRID_ROWS * GRID_WIDTH,
            reference: rect_block_tiles_reference,
            emulate: |input, out| {
                let rect = interior(out).map_err(|e| e.to_string())?;
                rect_block_tiles_grouped::emulate(&grouped_tiles_config(), input, rect)
                    .map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    rect_block_tiles_grouped::launch(
                        gpu,
                        grouped_tiles_config(),
                        input,
                        interior(buf)?,
                    )
                })
            },
        }),
        Box::new(LayoutCase {
            name: "wave_recurrence",
            len: WAVE_ROWS * WAVE_WIDTH,
            reference: wave_reference,
            emulate: |input, out| {
                for d in 0..WAVES {
                    let wave = Wave::new(&mut *out, WAVE_WIDTH, d).map_err(|e| e.to_string())?;
                    wave_recurrence::emulate(&wave_config(), input, wave).map_err(failed)?;
                }
                Ok(())
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    for d in 0..WAVES {
                        wave_recurrence::launch(
                            gpu,
                            wave_config(),
                            input,
                            Wave::new(&mut *buf, WAVE_WIDTH, d)?,
                        )?;
                    }
                    Ok(())
                })
            },
        }),
        Box::new(LayoutCase {
            name: "block_tiles_wide",
            len: WIDE_ROWS * WIDE_WIDTH,
            reference: wide_reference,
            emulate: |input, out| {
                let rows = Rows::new(out, WIDE_WIDTH).map_err(|e| e.to_string())?;
                block_tiles_wide::emulate(&wide_config(), input, rows).map_err(failed)
            },
            gpu: |gpu, input, out| {
                on_gpu(gpu, input, out, |input, buf| {
                    block_tiles_wide::launch(gpu, wide_config(), input, Rows::new(buf, WIDE_WIDTH)?)
                })
            },
        }),
    ]
}
