// A `Matrix` is read-only: `get` and `row` give shared references, so a kernel cannot write
// through it (its elements may be read by every thread, and aliased by other inputs).
use oxide::prelude::*;

#[kernel]
pub fn write_input(m: Matrix<f32>) {
    if let Some(v) = m.get(0, 0) {
        *v = 1.0;
    }
    if let Some(row) = m.row(0) {
        row[0] = 2.0;
    }
}

fn main() {}
