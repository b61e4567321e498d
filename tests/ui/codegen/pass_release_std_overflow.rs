//@ build-pass
//@ compile-flags: -O
//@ ptx-not: trap;
//! std's arithmetic (`Sum for i32`, `i32::abs`, `i64::pow`, `Neg for i32`) is
//! `#[rustc_inherit_overflow_checks]`: its overflow checks follow the kernel crate's setting,
//! so a build without overflow checks wraps, as the host does, and no trap is left behind
//! (the kernel reads only within bounds and unwraps nothing).

use oxide::prelude::*;

#[kernel]
pub fn std_sum(x: &[i32], mut out: DisjointSlice<i32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = x.iter().sum::<i32>() + x.iter().product::<i32>();
    }
}

#[kernel]
pub fn std_abs_pow_neg(x: i32, y: i64, mut out: DisjointSlice<i64>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = x.abs() as i64 + y.pow(3) + core::ops::Neg::neg(x) as i64;
    }
}

fn main() {}
