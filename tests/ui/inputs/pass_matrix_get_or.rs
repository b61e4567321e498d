//@ build-pass
//@ compile-flags: -O
//@ ptx-count: 4 ld.global.nc.b32
//@ ptx-not: setp.eq.b64
//@ ptx-not: trap
//! `Matrix::get_or` inside a shared phase's `init` closure (kernels/transpose's form): the
//! position test and a load, no bounds check, no test of an address against null. (In
//! kernels/transpose, `get(..).copied().unwrap_or(0.0)` left such a test and a branch per load,
//! 192 -> 280 SASS instructions; this smaller kernel folds either form.)

use oxide::prelude::*;

#[kernel(block = "32x8")]
pub fn tile_copy(m: Matrix<f32>, mut out: DisjointRows<f32>, tile: Shared<[[f32; 33]; 32]>) {
    let (bx, by) = (
        thread::block_idx_x() as usize,
        thread::block_idx_y() as usize,
    );
    let tile = tile
        .init(|(r, c)| {
            if c < 32 {
                m.get_or(by * 32 + r, bx * 32 + c, 0.0)
            } else {
                0.0
            }
        })
        .sync();
    let (tx, ty) = (
        thread::thread_idx_x() as usize,
        thread::thread_idx_y() as usize,
    );
    if let Some((_, o)) = out.at_thread() {
        *o = tile[ty][tx];
    }
}

fn main() {}
