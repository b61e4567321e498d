//@ build-pass
//@ ptx(min_max): min.f32
//@ ptx(min_max): max.f64
//@ ptx-not(min_max): selp
//@ ptx(min_max_strict): min.f32
//@ ptx(min_max_strict): setp.eq.f32
//@ ptx(min_max_strict): selp.b32
//@ ptx(min_max_strict): max.f64
//@ ptx(min_max_strict): setp.eq.f64
//@ ptx(min_max_strict): selp.b64
//! `f32::min`/`max` may return either zero for `-0.0` and `+0.0`. PTX's `min`/`max` order
//! `-0.0` below `+0.0`; the host returns the second argument. By default a kernel takes the
//! one instruction; under `strict_float` it then picks the second argument when the two compare
//! equal, so its bits are the CPU's (docs/math.md).

use oxide::prelude::*;

fn pick(a: &[f32], b: &[f64], i: usize) -> f32 {
    let (x, y) = (a[i], a[i + 1]);
    let (u, v) = (b[i], b[i + 1]);
    x.min(y) + u.max(v) as f32
}

#[kernel]
pub fn min_max(a: &[f32], b: &[f64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = pick(a, b, i);
    }
}

#[kernel(strict_float)]
pub fn min_max_strict(a: &[f32], b: &[f64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = pick(a, b, i);
    }
}

fn main() {}
