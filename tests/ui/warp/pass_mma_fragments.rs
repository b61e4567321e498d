//@ build-pass
//@ ptx: ldmatrix.sync.aligned.m8n8.x4.shared.b16
//@ ptx: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
//@ ptx: ldmatrix.sync.aligned.m8n8.x2.shared.b16
//@ ptx: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//@ ptx: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//@ ptx-not: cp.async
//! Safe tensor-core fragments: `ldmatrix` loads from a shared tile's read phase (plain,
//! transposed, two and four matrices) and `mma.sync` for bf16 and f16, each one instruction
//! (ptxas makes them LDSM and HMMA.16816.F32.BF16 / .F32).

use oxide::mma::{FragA, FragB, FragC, Vec8, mma};
use oxide::prelude::*;

#[kernel(block = "128")]
pub fn tile_product(
    a: &[bf16],
    b: &[bf16],
    mut out: DisjointSlice<[f32; 4]>,
    a_tile: Shared<[[Vec8<bf16>; 5]; 64]>,
    b_tile: Shared<[[Vec8<bf16>; 5]; 32]>,
) {
    let load = |m: &[bf16], r: usize, c: usize| {
        Vec8(core::array::from_fn(|e| {
            m.get(r * 32 + 8 * c + e).copied().unwrap_or(bf16::ZERO)
        }))
    };
    let a_tile = a_tile.init(|(r, c)| load(a, r, c)).sync();
    let b_tile = b_tile.init(|(k, c)| load(b, k, c)).sync();
    let warp = oxide::warp::warp_in_block() as usize;
    let mut acc = [FragC::zero(); 2];
    for k in 0..2 {
        let fa = FragA::load(&a_tile, 16 * warp, 2 * k);
        let [b0, b1] = FragB::load_k_rows_pair(&b_tile, 16 * k, 0);
        acc[0] = mma(&fa, &b0, acc[0]);
        acc[1] = mma(&fa, &b1, acc[1]);
        let bt = FragB::load_n_rows(&b_tile, 8, 2 * k);
        acc[0] = mma(&fa, &bt, acc[0]);
    }
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        let (x, y) = (acc[0].values(), acc[1].values());
        *o = [x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]];
    }
}

#[kernel(block = "32")]
pub fn half_product(a: &[oxide::f16], b: &[oxide::f16], mut out: DisjointSlice<[f32; 4]>) {
    let fa = FragA::from_fn(|r, c| a[r * 16 + c]);
    let fb = FragB::from_fn(|k, n| b[k * 8 + n]);
    let d = mma(&fa, &fb, FragC::zero()).map(|(r, c), v| if r == c { v } else { 2.0 * v });
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = d.values();
    }
}

fn main() {}
