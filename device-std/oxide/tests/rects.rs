//! 2-D outputs lent as a rectangle of their buffer (`Rows::rect`) through `#[kernel]`'s
//! emulator: the interior of a padded grid written by a 5-point stencil, a matrix stored from
//! `(1, 1)`, a 1-D range at any element as one row, rows per warp and tiles per block inside a
//! rectangle, two launches writing the two halves of one grid. Every element outside the rectangle keeps what the host put there.

use oxide::host::{Rows, ShapeError};
use oxide::prelude::*;
use oxide::warp;

fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

/// What the host puts in every element before a launch; outside the rectangle it must stay.
const UNTOUCHED: f32 = -7.5;

/// One step of a 5-point stencil, in a fixed order of operations (the CPU reference's).
fn step(c: f32, n: f32, s: f32, w: f32, e: f32) -> f32 {
    0.5 * c + 0.125 * (((n + s) + w) + e)
}

/// One Jacobi step on the interior of a padded grid: `out` is the interior of a grid laid out
/// as `input` is, so the neighbours of output element `(r, c)` are around input element
/// `(top + r, left + c)`, which the padding gives every interior element.
#[kernel]
pub fn interior_stencil(input: &[f32], mut out: DisjointRows<f32>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    if let Some(((r, c), o)) = out.at_thread() {
        let i = (top + r) * pitch + left + c;
        *o = step(
            input[i],
            input[i - pitch],
            input[i + pitch],
            input[i - 1],
            input[i + 1],
        );
    }
}

/// A padded grid of `rows × width`, its cells distinct.
fn grid(rows: usize, width: usize) -> Vec<f32> {
    (0..rows * width)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 20) as f32 / 16.0)
        .collect()
}

/// The stencil's step on every interior cell of `input` (rows of `width`), [`UNTOUCHED`] on
/// the border.
fn cpu_interior_stencil(input: &[f32], width: usize) -> Vec<f32> {
    let rows = input.len() / width;
    let mut out = vec![UNTOUCHED; input.len()];
    for row in 1..rows - 1 {
        for col in 1..width - 1 {
            let i = row * width + col;
            out[i] = step(
                input[i],
                input[i - width],
                input[i + width],
                input[i - 1],
                input[i + 1],
            );
        }
    }
    out
}

#[test]
fn a_stencil_writes_only_the_interior_of_a_padded_grid() {
    // 37 rows of 29: an interior of 35 × 27, which 16 × 8 blocks cover with partial blocks on
    // both axes and threads past the interior (they own nothing).
    let (rows, width) = (37, 29);
    let input = grid(rows, width);
    let mut out = vec![UNTOUCHED; rows * width];
    let interior = Rows::new(&mut out[..], width)
        .unwrap()
        .rect(1..rows - 1, 1..width - 1)
        .unwrap();
    assert_eq!(
        (interior.shape().rows(), interior.shape().width()),
        (35, 27)
    );
    interior_stencil::emulate(&cfg((2, 5, 1), (16, 8, 1)), &input, interior).unwrap();
    let expected = cpu_interior_stencil(&input, width);
    for (i, (&got, &want)) in out.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "({}, {})", i / width, i % width);
    }
}

/// Each thread writes its position in the rectangle and where that is in the buffer.
#[kernel]
pub fn positions(mut out: DisjointRows<u64>) {
    let (top, left) = out.origin();
    if let Some(((r, c), o)) = out.at_thread() {
        *o = label((r, c), (top + r, left + c));
    }
}

/// An element's label: its position in the rectangle and in the buffer, never 0.
fn label((r, c): (usize, usize), (row, col): (usize, usize)) -> u64 {
    ((r as u64) << 48) | ((c as u64) << 32) | ((row as u64) << 16) | col as u64 | 1 << 63
}

/// `labels` of a buffer of rows `pitch` apart where rows `rows` and columns `cols` were lent,
/// and 0 elsewhere.
fn labelled(
    len: usize,
    pitch: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> Vec<u64> {
    (0..len)
        .map(|i| {
            let (row, col) = (i / pitch, i % pitch);
            if rows.contains(&row) && cols.contains(&col) {
                label((row - rows.start, col - cols.start), (row, col))
            } else {
                0
            }
        })
        .collect()
}

#[test]
fn a_matrix_stored_from_one_one_is_written_from_one_one() {
    // A Fortran-style n × n matrix in an (n + 1) × (n + 1) buffer whose row 0 and column 0
    // are unused: output element (0, 0) is buffer element (1, 1).
    let n = 20;
    let mut out = vec![0u64; (n + 1) * (n + 1)];
    let matrix = Rows::new(&mut out[..], n + 1)
        .unwrap()
        .rect(1..n + 1, 1..n + 1)
        .unwrap();
    assert_eq!(matrix.shape().origin(), (1, 1));
    positions::emulate(&cfg((3, 3, 1), (8, 8, 1)), matrix).unwrap();
    assert_eq!(out, labelled((n + 1) * (n + 1), n + 1, 1..n + 1, 1..n + 1));
}

#[test]
fn a_rectangle_of_pitched_rows_and_of_a_rectangle() {
    // Rows of 50 in a pitch of 64; the rectangle of it at rows 3..21, columns 10..45, cut in
    // two steps (a rectangle's rows and columns are relative to what it is cut from). The
    // pitch's padding, columns 50..64, is outside either.
    let (rows, width, pitch) = (30, 50, 64);
    let mut out = vec![0u64; rows * pitch];
    let rect = Rows::with_pitch(&mut out[..], width, pitch)
        .unwrap()
        .rect(2..25, 5..50)
        .unwrap()
        .rect(1..19, 5..40)
        .unwrap();
    assert_eq!(
        (
            rect.shape().origin(),
            rect.shape().rows(),
            rect.shape().width()
        ),
        ((3, 10), 18, 35)
    );
    positions::emulate(&cfg((4, 3, 2), (16, 8, 1)), rect).unwrap();
    assert_eq!(out, labelled(rows * pitch, pitch, 3..21, 10..45));
}

#[test]
fn two_launches_write_the_two_halves_of_one_grid() {
    // Disjoint rectangles of one buffer, one launch each: together they are the interior, and
    // neither reaches the other's half or the border.
    let (rows, width) = (12, 40);
    let mut out = vec![0u64; rows * width];
    let halves = [(1..11, 1..20), (1..11, 20..39)];
    for (r, c) in halves.clone() {
        let half = Rows::new(&mut out[..], width).unwrap().rect(r, c).unwrap();
        positions::emulate(&cfg((2, 2, 1), (16, 8, 1)), half).unwrap();
    }
    let expected: Vec<u64> = labelled(rows * width, width, 1..11, 1..20)
        .into_iter()
        .zip(labelled(rows * width, width, 1..11, 20..39))
        .map(|(left, right)| left | right)
        .collect();
    assert_eq!(out, expected);
}

/// `out[i] = x[i] * x[i]` over a range of a 1-D buffer: a one-row rectangle, in a 1-D grid.
#[kernel(grid = "1d")]
pub fn square_range(x: &[i64], mut out: DisjointRows<i64>) {
    let left = out.origin().1;
    if let Some(((_, c), o)) = out.at_thread() {
        let v = x[left + c];
        *o = v * v;
    }
}

#[test]
fn a_one_dimensional_output_may_start_at_any_element() {
    // Elements 3..1000 of 1003 (3 `i64`s, 24 bytes in: no view for a `DisjointSlice` may start
    // there): the whole buffer as one row, and the range of its columns as the rectangle.
    let n = 1003;
    let x: Vec<i64> = (0..n as i64).map(|i| i - 500).collect();
    let mut out = vec![-1i64; n];
    let range = Rows::new(&mut out[..], n)
        .unwrap()
        .rect(0..1, 3..n - 3)
        .unwrap();
    let cfg = LaunchConfig::for_num_elems(n - 6, 128).unwrap();
    square_range::emulate(&cfg, &x, range).unwrap();
    for (i, &v) in out.iter().enumerate() {
        let expected = if (3..n - 3).contains(&i) {
            x[i] * x[i]
        } else {
            -1
        };
        assert_eq!(v, expected, "element {i}");
    }
}

/// Each row of the rectangle divided by its sum, one warp per row; the warp reads its row of
/// `input` at the rectangle's place in the buffer.
#[kernel]
pub fn normalize_rows(input: &[f32], mut out: WarpRows<f32>) {
    let ((top, left), pitch, width) = (out.origin(), out.pitch(), out.width());
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let start = (top + row.row()) * pitch + left;
    let Some(x) = input.get(start..start + width) else {
        return;
    };
    let mut sum = 0.0f32;
    let mut col = warp::lane_id() as usize;
    while col < width {
        sum += x[col];
        col += 32;
    }
    let sum = warp::sum(sum);
    row.for_each_own(|col, o| *o = x[col] / sum);
}

#[test]
fn warps_own_the_rows_of_a_rectangle() {
    // The interior of a 14 × 75 grid: 12 rows of 73, three blocks of 4 warps (one of them
    // partial: its lanes 4..32 write nothing, as on a whole buffer).
    let (rows, width) = (14, 75);
    let input: Vec<f32> = (0..rows * width).map(|i| (i % 7 + 1) as f32).collect();
    let mut out = vec![UNTOUCHED; rows * width];
    let interior = Rows::new(&mut out[..], width)
        .unwrap()
        .rect(1..rows - 1, 1..width - 1)
        .unwrap();
    normalize_rows::emulate(&cfg((4, 1, 1), (128, 1, 1)), &input, interior).unwrap();
    for row in 0..rows {
        for col in 0..width {
            let got = out[row * width + col];
            if (1..rows - 1).contains(&row) && (1..width - 1).contains(&col) {
                let x = &input[row * width + 1..row * width + width - 1];
                let want = input[row * width + col] / x.iter().sum::<f32>();
                assert!((got - want).abs() < 1e-6, "({row}, {col}): {got} vs {want}");
            } else {
                assert_eq!(got, UNTOUCHED, "({row}, {col}) is on the border");
            }
        }
    }
}

/// Each block's 8 × 8 tile of the rectangle, each thread two rows of it.
#[kernel]
pub fn tile_positions(mut out: BlockTiles<u64, 8, 8>) {
    let (top, left) = out.origin();
    let Some(mut tile) = out.tile_mut() else {
        return;
    };
    for i in 0..2 {
        if let Some(((r, c), o)) = tile.own_mut((i, 0)) {
            *o = label((r, c), (top + r, left + c));
        }
    }
}

#[test]
fn blocks_own_the_tiles_of_a_rectangle() {
    // Rows 2..21 and columns 3..23 of a 24 × 26 buffer: 19 × 20, tiles of 8 × 8 (3 × 3 of them,
    // partial at the right and the bottom) by blocks of 8 × 4.
    let (rows, width) = (24, 26);
    let mut out = vec![0u64; rows * width];
    let rect = Rows::new(&mut out[..], width)
        .unwrap()
        .rect(2..21, 3..23)
        .unwrap();
    tile_positions::emulate(&cfg((4, 4, 1), (8, 4, 1)), rect).unwrap();
    assert_eq!(out, labelled(rows * width, width, 2..21, 3..23));
}

#[test]
#[expect(
    clippy::reversed_empty_ranges,
    reason = "a reversed range is one of the bad rectangles"
)]
fn bad_rectangles_are_errors_naming_them() {
    let mut out = vec![0u64; 10 * 8];
    let cases = [
        ((1..1, 1..7), "rows 1..1 and columns 1..7"),
        ((1..9, 4..4), "rows 1..9 and columns 4..4"),
        ((5..3, 1..7), "rows 5..3 and columns 1..7"),
        ((1..11, 1..7), "rows 1..11 and columns 1..7"),
        ((1..9, 1..9), "rows 1..9 and columns 1..9"),
    ];
    for ((rows, cols), named) in cases {
        let e = Rows::new(&mut out[..], 8)
            .unwrap()
            .rect(rows, cols)
            .err()
            .unwrap();
        assert!(
            matches!(
                e,
                ShapeError::BadRect {
                    within: (10, 8),
                    ..
                }
            ),
            "{e:?}"
        );
        // The host's error says the same.
        let e = oxide::host::Error::from(e).to_string();
        assert!(
            e.starts_with(named) && e.contains("an output of 10 rows of 8 columns"),
            "{e}"
        );
    }
}

/// The race detector knows a rectangle's element by its index in the buffer: two blocks that
/// see different origins (which `from_raw_parts` forbids: every thread must see the same
/// shape) write buffer element (1, 1) through different rectangle positions, and the
/// emulator reports that element, with both threads.
#[test]
fn the_race_detector_sees_rectangle_writes_where_they_land() {
    let (rows, pitch) = (4, 6);
    let mut data = vec![0u32; rows * pitch];
    let out = oxide::emulate::RawSlice::new(&mut data);
    // Two blocks of one thread: global x 0 and 1, rectangle elements (0, 0) and (0, 1), at
    // buffer (1, 1) and (1, 2) from the origin (1, 1). With `shifted`, block 1 sees the origin
    // (1, 0), and its element (0, 1) is block 0's (1, 1).
    let launch = |shifted: bool| {
        oxide::emulate::run("rects", &cfg((2, 1, 1), (1, 1, 1)), || {
            let (ptr, len) = (out.ptr(), out.len());
            let origin = if shifted && thread::block_idx_x() == 1 {
                (1, 0)
            } else {
                (1, 1)
            };
            // SAFETY: the buffer is valid and only `run`'s threads touch it; every thread sees
            // two rows of two in rows of 6. With `shifted` the blocks see different origins,
            // broken on purpose, for the race detector to find.
            let mut rect = unsafe { DisjointRows::from_raw_parts(ptr, len, 2, pitch, 2, origin) };
            if let Some((_, o)) = rect.at_thread() {
                *o += 1;
            }
        })
    };
    launch(false).unwrap();
    let e = launch(true).unwrap_err().to_string();
    assert!(
        e.contains("data race in block [1, 0, 0]")
            && e.contains(&format!("element {} of an output", pitch + 1)),
        "{e}"
    );
}
