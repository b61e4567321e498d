//@ build-pass
//@ ptx: st.global.b32
//@ ptx-not: st.b32
//! Every output shape stores with `st.global`: the backend copies a struct holding a pointer
//! (a row's view, an `Option<((usize, usize), &mut T)>`) field by field, the pointer as a
//! pointer, so LLVM keeps the kernel parameter's global address space through it (copied as an
//! `i64`, the pointer came back through `inttoptr` and was stored with a generic `st`: issue 20,
//! "address-space inference so 2-D outputs store with `st.global`").
use oxide::prelude::*;

#[kernel]
pub fn rows(mut out: DisjointRows<u32>) {
    if let Some(((row, col), o)) = out.at_thread() {
        *o = (row * 3 + col) as u32;
    }
}

#[kernel]
pub fn tiles(mut out: BlockTiles<u32, 8, 32>) {
    if let Some(mut tile) = out.tile_mut() {
        for i in 0..4 {
            if let Some(((row, col), o)) = tile.own_mut((i, 0)) {
                *o = (row ^ col) as u32;
            }
        }
    }
}

#[kernel]
pub fn warp_rows(mut per_warp: WarpRows<u32>) {
    if let Some(mut row) = per_warp.row_mut() {
        row.for_each_own(|col, o| *o = col as u32);
    }
}

#[kernel]
pub fn pairs(mut out: DisjointPairs<u32>) {
    if let Some((lo, a, b)) = out.pair_mut(ThreadIndex::linear()) {
        *a = lo as u32;
        *b = lo as u32 + 1;
    }
}

fn main() {}
