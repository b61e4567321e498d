//@ build-pass
//@ compile-flags: -O
//@ ptx: st.global.b32
//@ ptx-not: setp.eq.b64
//! A warp's row of a 2-D output, written one column per lane in each of 32 chunks: every
//! `own_mut(k)` of a constant `k` is in the row (a width of 1024 is asserted), and the address
//! it hands out is the buffer's pointer plus an offset that does not wrap, so LLVM drops the
//! test of the `Option<&mut f32>` against null (a `setp.eq.b64` of the address and a cvta'd 0):
//! the unrolled loop has no branch between its stores. The offsets had lost `nuw` (`ptr::add`'s
//! GEP was `inbounds` only, the row's index arithmetic unflagged) and LICM then dropped
//! `inbounds` too: a null test and a branch per store stayed (softmax's output loop), and the
//! lane's loads could not be in flight together.
use oxide::prelude::*;

#[kernel(grid = "1d", block = "256")]
pub fn rows(input: &[f32], mut out: WarpRows<f32>) {
    if out.width() != 1024 {
        return;
    }
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let Some(xs) = input.get(row.row() * 1024..(row.row() + 1) * 1024) else {
        return;
    };
    let lane = oxide::warp::lane_id() as usize;
    for k in 0..32 {
        if let Some((col, o)) = row.own_mut(k) {
            *o = xs[col] * 2.0 + xs[lane] + k as f32;
        }
    }
}
fn main() {}
