//@ build-pass
//! Found by the fuzzing campaign (docs/fuzzing.md): `swap_bytes` of a one-byte integer swaps
//! nothing, but the backend asked LLVM for `llvm.bswap.i8`, which its verifier rejects ("bswap
//! must be an even number of bytes"): an internal error for the whole crate.

use oxide::prelude::*;

#[kernel]
pub fn swap_u8(x: &[u8], mut y: DisjointSlice<u8>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = y.get_mut(idx) {
        *o = x[i].swap_bytes() ^ (x[i] as i8).swap_bytes() as u8;
    }
}

#[kernel]
pub fn swap_u16(x: &[u16], mut y: DisjointSlice<u16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = y.get_mut(idx) {
        *o = x[i].swap_bytes();
    }
}

fn main() {}
