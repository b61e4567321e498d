//! `Source::read`: a chunk of a `Matrix<bf16>` input read by one thread, on the GPU against
//! the emulator. Thread `i` reads the chunk at `position(i, ..)`: every chunk of the matrix and,
//! past its last row and column, chunks of zeros. A matrix of 64 columns (rows of 128 bytes)
//! takes the one-load path (`ld.global.nc.v4.b32`); one of 12 columns (24-byte rows, not 16-byte
//! aligned) the element path, the last chunk of each row in part.

use oxide::emulate::KernelFailure;
use oxide::host::{DeviceBuffer, Error, Gpu, MatrixShape};
use oxide::mma::Source;
use oxide::prelude::*;

use crate::harness::{Case, Check, KernelCase};

/// Rows of the matrices read.
const ROWS: usize = 37;

/// The chunk thread `i` reads of a `rows × cols` matrix: row `i mod (rows + 1)`, column 8 times
/// `(i / (rows + 1)) mod (chunks + 1)`, either of them one past the matrix.
fn position(i: usize, rows: usize, cols: usize) -> (usize, usize) {
    (
        i % (rows + 1),
        8 * (i / (rows + 1) % (cols.div_ceil(8) + 1)),
    )
}

/// Each thread: its chunk's 8 elements' bits (element `e` in bits `16e..`).
#[kernel]
pub fn read_matrix_chunks(m: Matrix<bf16>, mut out: DisjointSlice<u128>) {
    let idx = ThreadIndex::linear();
    let (row, col) = position(idx.get(), m.rows(), m.cols());
    let chunk = Source::matrix(&m, row, col).read();
    if let Some(o) = out.get_mut(idx) {
        *o = chunk
            .0
            .iter()
            .enumerate()
            .fold(0, |acc, (e, x)| acc | u128::from(x.to_bits()) << (16 * e));
    }
}

/// The matrix of `cols` columns made of the input's bits.
fn matrix(input: &[u64], cols: usize) -> Vec<bf16> {
    (0..ROWS * cols)
        .map(|i| bf16::from_bits((input[i % input.len()] >> (16 * (i % 4))) as u16))
        .collect()
}

/// What each thread reads, on the host.
fn reference(input: &[u64], cols: usize) -> Vec<u128> {
    let m = matrix(input, cols);
    (0..input.len())
        .map(|i| {
            let (row, col) = position(i, ROWS, cols);
            (0..8).fold(0, |acc, e| {
                let bits = if row < ROWS && col + e < cols {
                    m[row * cols + col + e].to_bits()
                } else {
                    0
                };
                acc | u128::from(bits) << (16 * e)
            })
        })
        .collect()
}

fn config(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n, 128).expect("a valid launch shape")
}

/// The case over a matrix of `$cols` columns.
macro_rules! chunk_case {
    ($name:literal, $cols:literal) => {
        Box::new(KernelCase::<u128> {
            name: $name,
            check: Check::Exact,
            reference: |input| reference(input, $cols),
            launch: |gpu: &Gpu,
                     _,
                     input: &DeviceBuffer<u64>,
                     out: &mut DeviceBuffer<u128>|
             -> Result<(), Error> {
                let m = gpu.htod(&matrix(&gpu.dtoh(input)?, $cols))?;
                let shape = MatrixShape::new(&m, ROWS, $cols)?;
                read_matrix_chunks::launch(gpu, config(input.len()), shape, out)
            },
            emulate: |_, input: &[u64], out: &mut [u128]| -> Result<(), KernelFailure> {
                let m = matrix(input, $cols);
                let shape = MatrixShape::new(&m[..], ROWS, $cols).expect("ROWS × cols");
                read_matrix_chunks::emulate(&config(input.len()), shape, out)
            },
        }) as Box<dyn Case>
    };
}

/// The two cases: whole aligned chunks, and chunks read element by element.
pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        chunk_case!("source_read_whole_chunks", 64),
        chunk_case!("source_read_partial_chunks", 12),
    ]
}
