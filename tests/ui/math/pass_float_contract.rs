//@ build-pass
//@ ptx(mul_add_contract): fma.rn.f32
//@ ptx-not(mul_add_strict): fma.rn
//@ ptx(mul_add_strict): mul.rn.f32
//@ ptx(mul_add_strict): add.rn.f32
//! `a * b + c` becomes one FMA by default (as nvcc does); `strict_float` keeps Rust's two
//! roundings.

use oxide::prelude::*;

#[kernel]
pub fn mul_add_contract(a: &[f32], b: &[f32], c: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i] * b[i] + c[i];
    }
}

#[kernel(strict_float)]
pub fn mul_add_strict(a: &[f32], b: &[f32], c: &[f32], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = a[i] * b[i] + c[i];
    }
}

fn main() {}
