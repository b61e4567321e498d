//@ build-pass
//@ ptx: .param .align 8 .b8 by_value_param_0[24]
//@ ptx-not: ld.param.b8
//@ ptx-not: ld.param.u8
//@ ptx-not: st.global.b8
//@ ptx-not: st.global.u8
//@ ptx-not: ld.local.b8
//@ ptx(struct_copy): st.global.v2.b64
//@ ptx(huge_copy): st.global.v2.b64
//! Aggregates move as wide as their alignment allows: a by-value kernel parameter is declared
//! with its type's alignment and read 8 bytes at a time, and a struct assigned into an output
//! element is copied in 8-byte (or wider, paired) accesses, not byte by byte, in straight-line
//! code or, past 1 KiB, in a loop.

use oxide::prelude::*;

#[derive(Clone, Copy)]
pub struct Params {
    scale: f64,
    offset: u64,
    count: u32,
    flags: u32,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Big {
    words: [u64; 32],
}

#[kernel]
pub fn by_value(p: Params, mut out: DisjointSlice<f64>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = p.scale * (p.offset + p.count as u64 + p.flags as u64) as f64;
    }
}

#[kernel]
pub fn struct_copy(src: &[Big], mut out: DisjointSlice<Big>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let mut b = src[i];
        b.words[i % 32] ^= 1;
        *o = b;
    }
}

#[derive(Clone, Copy)]
pub struct Huge {
    words: [u64; 512],
}

#[kernel]
pub fn huge_copy(src: &[Huge], mut out: DisjointSlice<Huge>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let mut h = src[i];
        h.words[i % 512] = 7;
        *o = h;
    }
}

fn main() {}
