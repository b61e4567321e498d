//! `Matrix<T>`, the read-only 2-D input, through `#[kernel]`'s emulator: a kernel reads every
//! position of a grid larger than the matrix, the matrix padded (pitch > cols); positions
//! outside it, the padding's columns among them, are `None`. Rows come without their padding,
//! and a matrix may alias another read-only input of the launch.

use oxide::host::{Error, MatrixShape, ShapeError};
use oxide::prelude::*;

fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_mem_bytes: 0,
    }
}

/// What a thread writes where `get` says `None`.
const OUTSIDE: f32 = -1.0;

/// Thread `(x, y)` of a 2-D grid writes the matrix's `(row = y, col = x)`, or [`OUTSIDE`].
#[kernel]
pub fn read_each(m: Matrix<f32>, mut out: DisjointRows<f32>) {
    if let Some(((row, col), o)) = out.at_thread() {
        *o = m.get(row, col).copied().unwrap_or(OUTSIDE);
    }
}

/// Thread `r` writes the sum of row `r`'s columns, or [`OUTSIDE`] past the last row.
#[kernel]
pub fn row_sums(m: Matrix<f32>, mut sums: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let r = idx.get();
    if let Some(o) = sums.get_mut(idx) {
        *o = m.row(r).map_or(OUTSIDE, |row| row.iter().sum());
    }
}

/// Thread `(x, y)` writes the matrix's `(y, x)` plus the flat slice's element at the same
/// place: the two are one buffer, lent twice shared.
#[kernel]
pub fn matrix_and_slice(m: Matrix<f32>, flat: &[f32], mut out: DisjointRows<f32>) {
    let pitch = m.pitch();
    if let Some(((row, col), o)) = out.at_thread() {
        *o = m
            .get(row, col)
            .map_or(OUTSIDE, |v| v + flat[row * pitch + col]);
    }
}

/// A 5 × 7 matrix in rows 9 apart (two columns of padding, and the last row ends the buffer):
/// element `(r, c)` is `100 r + c`, the padding `-50`.
fn padded() -> Vec<f32> {
    let mut v = vec![-50.0f32; 4 * 9 + 7];
    for r in 0..5 {
        for c in 0..7 {
            v[r * 9 + c] = (100 * r + c) as f32;
        }
    }
    v
}

#[test]
fn every_position_inside_loads_and_every_other_is_none() {
    let v = padded();
    // 12 × 8 threads over the 5 × 7 matrix: columns 7 and 8 are the padding, 9.. past the
    // pitch; rows 5.. past the matrix.
    let mut out = vec![0.0f32; 8 * 12];
    read_each::emulate(
        &cfg((3, 2, 1), (4, 4, 1)),
        MatrixShape::with_pitch(&v[..], 5, 7, 9).unwrap(),
        Rows::new(&mut out[..], 12).unwrap(),
    )
    .unwrap();
    for row in 0..8 {
        for col in 0..12 {
            let expected = if row < 5 && col < 7 {
                (100 * row + col) as f32
            } else {
                OUTSIDE
            };
            assert_eq!(out[row * 12 + col], expected, "({row}, {col})");
        }
    }
}

#[test]
fn rows_are_their_columns_without_the_padding() {
    let v = padded();
    let mut sums = vec![0.0f32; 8];
    row_sums::emulate(
        &cfg((1, 1, 1), (8, 1, 1)),
        MatrixShape::with_pitch(&v[..], 5, 7, 9).unwrap(),
        &mut sums,
    )
    .unwrap();
    // Row r: 7 · 100 r + (0 + ... + 6) = 700 r + 21; no -50 of the padding.
    let expected: Vec<f32> = (0..8)
        .map(|r| {
            if r < 5 {
                (700 * r + 21) as f32
            } else {
                OUTSIDE
            }
        })
        .collect();
    assert_eq!(sums, expected);
}

#[test]
fn a_matrix_may_alias_another_read_only_input() {
    let v = padded();
    let mut out = [0.0f32; 5 * 7];
    matrix_and_slice::emulate(
        &cfg((2, 2, 1), (4, 4, 1)),
        MatrixShape::with_pitch(&v[..], 5, 7, 9).unwrap(),
        &v,
        Rows::new(&mut out[..], 7).unwrap(),
    )
    .unwrap();
    for row in 0..5 {
        for col in 0..7 {
            assert_eq!(out[row * 7 + col], (200 * row + 2 * col) as f32);
        }
    }
}

#[test]
fn a_matrix_past_its_buffer_is_refused_before_any_launch() {
    let v = padded();
    // Six rows 9 apart need 5 · 9 + 7 = 52 elements; the buffer has 43.
    let e = MatrixShape::with_pitch(&v[..], 6, 7, 9).err().unwrap();
    assert_eq!(
        e,
        ShapeError::BadMatrix {
            len: 43,
            rows: 6,
            cols: 7,
            pitch: 9
        }
    );
    // What a host program's `?` makes of it: `Error::Shape`, with the same words.
    let e = Error::from(e);
    assert!(matches!(e, Error::Shape(ShapeError::BadMatrix { .. })));
    assert!(
        e.to_string()
            .starts_with("a buffer of 43 elements cannot be read as a matrix of 6 rows of 7"),
        "{e}"
    );
}
