//@ build-pass
//@ ptx(f16_mul_add): fma.rn.f16
//@ ptx-not(f16_mul_add_strict): fma
//@ ptx(f16_mul_add_strict): mul.rn.f16
//@ ptx(f16_mul_add_strict): add.rn.f16
//@ ptx(f16_mul_add_strict): 0x3800
//! `f16` arithmetic is the GPU's own half-precision instructions, each rounding to `f16` as
//! Rust does. By default `a * b + c` may become one `fma.rn.f16`, as for `f32`; `strict_float`
//! keeps Rust's two roundings for `f16` too (docs/math.md). `0.5f16` is the constant `0x3800`.
#![feature(f16)]

use oxide::prelude::*;

fn mul_add(a: &[u16], b: &[u16], i: usize) -> u16 {
    let (x, y) = (f16::from_bits(a[i]), f16::from_bits(b[i]));
    (x * y + 0.5).to_bits()
}

#[kernel]
pub fn f16_mul_add(a: &[u16], b: &[u16], mut out: DisjointSlice<u16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = mul_add(a, b, i);
    }
}

#[kernel(strict_float)]
pub fn f16_mul_add_strict(a: &[u16], b: &[u16], mut out: DisjointSlice<u16>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = mul_add(a, b, i);
    }
}

fn main() {}
