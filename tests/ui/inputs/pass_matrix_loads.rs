//@ build-pass
//@ compile-flags: -O
//@ ptx-count: 1 ld.global.nc.b32
//@ ptx-count: 1 st.global.b32
//@ ptx-not: trap
//@ ptx-not: ld.local
//@ ptx-not: [transpose_read_param_1]
//! A `Matrix` read at a position it may not have: `get` tests the row and the column against
//! the shape and loads with no bounds check (the host checked the shape against the length),
//! so the kernel cannot trap, and the load goes through the read-only cache as a `&[f32]`'s.

use oxide::prelude::*;

#[kernel]
pub fn transpose_read(m: Matrix<f32>, mut out: DisjointRows<f32>) {
    if let Some(((r, c), o)) = out.at_thread() {
        *o = m.get(c, r).copied().unwrap_or(0.0);
    }
}

fn main() {}
