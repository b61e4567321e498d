//! `oxide::atomic` on each thread's own output element: float additions (`atom.add.f32`, which
//! flushes subnormals, and `atom.add.f64`, which keeps them; a quarter of the operands are
//! subnormal), float max/min and compare-exchange, and the integer atomics at system and block
//! scope with a fence of each scope between them. The reference runs the same operations on a
//! local value on the host.

use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use core::sync::atomic::{AtomicI64, AtomicU32};

use oxide::atomic::{AtomicF32, AtomicF64, ScopedAtomic, fence_block, fence_device, fence_system};
use oxide::prelude::*;

use crate::harness::{Case, Check, KernelCase};

/// Two `f32` operands from `x`; when `x % 4 == 0` the first is subnormal (or zero).
fn f32_operands(x: u64) -> (f32, f32) {
    let a = if x.is_multiple_of(4) {
        x as u32 & 0x807f_ffff
    } else {
        x as u32
    };
    (
        f32::from_bits(a),
        f32::from_bits((x >> 32) as u32 ^ 0x0040_0000),
    )
}

/// Two `f64` operands from `x`, the first subnormal when `x % 4 == 0`.
fn f64_operands(x: u64) -> (f64, f64) {
    let a = if x.is_multiple_of(4) {
        x & 0x800f_ffff_ffff_ffff
    } else {
        x
    };
    (f64::from_bits(a), f64::from_bits(x.rotate_left(23)))
}

fn f32_ops(o: &mut f32, x: u64) {
    let (a, b) = f32_operands(x);
    *o = a;
    let atomic = AtomicF32::from_mut(o);
    let before = atomic.fetch_add(b, Relaxed);
    atomic.fetch_sub(before * 0.5, AcqRel);
    atomic.fetch_add(a, Release);
    atomic.fetch_max(b * 0.25, SeqCst);
    atomic.fetch_min(a * 4.0, Acquire);
    atomic.fetch_add_system(b);
    let now = atomic.load(Relaxed);
    let _ = atomic.compare_exchange(now, now * 3.0, SeqCst, Relaxed);
}

fn f64_ops(o: &mut f64, x: u64) {
    let (a, b) = f64_operands(x);
    *o = a;
    let atomic = AtomicF64::from_mut(o);
    let before = atomic.fetch_add(b, SeqCst);
    atomic.fetch_sub(before * 0.5, Relaxed);
    atomic.fetch_add(a, Acquire);
    atomic.fetch_max(b * 0.25, AcqRel);
    atomic.fetch_min(a * 4.0, Release);
    atomic.fetch_add_system(a);
    let now = atomic.swap(b, Relaxed);
    atomic.fetch_add(now, Relaxed);
}

/// Every scoped operation of `ScopedAtomic` on `a`, folded together with what it returned.
macro_rules! scoped_ops {
    ($name:ident, $atomic:ty, $t:ty) => {
        fn $name(a: &$atomic, x: u64) -> $t {
            let (v, w) = (x as $t, x.rotate_left(29) as $t);
            let mut seen: $t = a.fetch_add_system(v);
            let mut fold = |r: $t| seen = seen.rotate_left(5) ^ r;
            fold(a.fetch_sub_system(w));
            fence_system();
            fold(a.fetch_and_system(!(v & w)));
            fold(a.fetch_or_system(w.rotate_left(7)));
            fold(a.fetch_xor_system(v.wrapping_mul(3)));
            fold(a.fetch_max_system(w));
            fold(a.fetch_min_system(v));
            fold(a.swap_system(v ^ w));
            let now = a.load(Relaxed);
            fold(
                a.compare_exchange_system(now ^ 1, v)
                    .unwrap_or_else(|e| e ^ 5),
            );
            fold(a.compare_exchange_system(now, w).unwrap_or(3));
            fence_device();
            // SAFETY: the atomic is this thread's own element (or a host local): no other
            // block accesses it.
            unsafe {
                fold(a.fetch_add_block(w));
                fold(a.fetch_sub_block(v));
                fold(a.fetch_and_block(v | w));
                fold(a.fetch_or_block(v.rotate_left(3)));
                fold(a.fetch_xor_block(w));
                fold(a.fetch_max_block(v));
                fold(a.fetch_min_block(w));
                fold(a.swap_block(w ^ 9));
                fence_block();
                let now = a.load(Relaxed);
                fold(a.compare_exchange_block(now, v).unwrap_or(7));
            }
            seen
        }
    };
}

scoped_ops!(u32_scoped, AtomicU32, u32);
scoped_ops!(i64_scoped, AtomicI64, i64);

#[kernel]
pub fn atomic_f32_add(input: &[u64], mut out: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        f32_ops(o, input[i]);
    }
}

#[kernel]
pub fn atomic_f64_add(input: &[u64], mut out: DisjointSlice<f64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        f64_ops(o, input[i]);
    }
}

#[kernel]
pub fn atomic_u32_scoped(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        *o = x as u32 ^ 0xa5a5_0ff0;
        let seen = u32_scoped(AtomicU32::from_mut(o), x);
        *o = o.wrapping_add(seen);
    }
}

#[kernel]
pub fn atomic_i64_scoped(input: &[u64], mut out: DisjointSlice<i64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        *o = x.rotate_left(17) as i64;
        let seen = i64_scoped(AtomicI64::from_mut(o), x);
        *o = o.wrapping_add(seen);
    }
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(KernelCase::<f32> {
            name: "atomic_f32_add",
            // NaNs may differ in payload (the GPU's are canonical); everything else is exact.
            check: Check::Ulp(0),
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = 0.0;
                    f32_ops(&mut o, x);
                    o
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_f32_add::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_f32_add::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<f64> {
            name: "atomic_f64_add",
            check: Check::Ulp(0),
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = 0.0;
                    f64_ops(&mut o, x);
                    o
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_f64_add::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_f64_add::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u32> {
            name: "atomic_u32_scoped",
            check: Check::Exact,
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = x as u32 ^ 0xa5a5_0ff0;
                    let seen = u32_scoped(AtomicU32::from_mut(&mut o), x);
                    o.wrapping_add(seen)
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_u32_scoped::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_u32_scoped::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<i64> {
            name: "atomic_i64_scoped",
            check: Check::Exact,
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = x.rotate_left(17) as i64;
                    let seen = i64_scoped(AtomicI64::from_mut(&mut o), x);
                    o.wrapping_add(seen)
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_i64_scoped::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_i64_scoped::emulate(cfg, input, out),
        }),
    ]
}
