//@ build-pass
//@ ptx: cp.async.cg.shared.global
//@ ptx: cp.async.commit_group
//@ ptx: cp.async.wait_group 1
//@ ptx-not: isspacep.global
//@ ptx: cp.async.wait_all
//@ ptx-not: cvta.to.shared
//@ ptx: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
//@ ptx: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//! A three-stage `cp.async` pipeline feeding `ldmatrix` and `mma.sync`, safe: the fills are
//! `cp.async.cg` of 16 bytes (ptxas: LDGSTS), each stage's group committed, and each wait a
//! `cp.async.wait_group` of the stages still allowed in flight followed by the block barrier.
//! The sources are kernel-parameter slices, global memory: LLVM folds the fill's
//! `isspacep.global` test of them (an NVVM intrinsic, not inline PTX) to true, so no test is left.
//! The `ldmatrix` addresses are the stages' `.shared` offsets, computed as such: the tiles'
//! generic addresses never go back through `cvta.to.shared` (`#[oxide_gpu::shared_window]`,
//! which LLVM folds; ptxas rebuilt the generic address every step when it was inline PTX).

use oxide::mma::{FragA, FragB, FragC, Source, Stages, Vec8, mma};
use oxide::prelude::*;

/// A stage: 64 rows of A and 16 rows of B, 16 elements each and a padding chunk.
type ATile = [[Vec8<bf16>; 3]; 64];
type BTile = [[Vec8<bf16>; 3]; 16];

#[kernel(block = "128")]
pub fn pipelined(
    a: &[bf16],
    b: &[bf16],
    shape: (usize, usize, usize),
    mut out: DisjointSlice<[f32; 8]>,
    stages: Shared<Stages<(ATile, BTile), 3>>,
) {
    let (m, n, k) = shape;
    let (m0, n0) = (
        thread::block_idx_y() as usize * 64,
        thread::block_idx_x() as usize * 16,
    );
    let tiles = k.div_ceil(16);
    let source = |t: usize, (tile, row, chunk): (usize, usize, usize)| {
        let k0 = 16 * t + 8 * chunk;
        if chunk == 2 || t >= tiles {
            Source::zeros()
        } else if tile == 0 && m0 + row < m && k0 < k {
            Source::chunk(a, (m0 + row) * k + k0)
        } else if tile == 1 && 16 * t + row < k && n0 + 8 * chunk < n {
            Source::chunk(b, (16 * t + row) * n + n0 + 8 * chunk)
        } else {
            Source::zeros()
        }
    };
    let mut pipe = stages.pipeline();
    for t in 0..2 {
        pipe.fill(|at| source(t, at));
    }
    let w = oxide::warp::warp_in_block() as usize;
    let mut acc = [FragC::zero(); 2];
    for t in 0..tiles {
        let ready = pipe.wait();
        let ready = ready.fill(|at| source(t + 2, at));
        let (a_tile, b_tile) = ready.tiles();
        let fa = FragA::load(a_tile, 16 * w, 0);
        let [b0, b1] = FragB::load_k_rows_pair(b_tile, 0, 0);
        acc[0] = mma(&fa, &b0, acc[0]);
        acc[1] = mma(&fa, &b1, acc[1]);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        let (x, y) = (acc[0].values(), acc[1].values());
        *o = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
    }
}

fn main() {}
