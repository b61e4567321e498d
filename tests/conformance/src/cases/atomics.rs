//! `core::sync::atomic` on each thread's own output element (global memory): every read-modify-
//! write operation, a failing and a succeeding `compare_exchange`, with several orderings, on
//! `u32`, `i32` and `u64`, through `Atomic*::from_mut` and `Atomic*::from_ptr`. The reference
//! runs the same operations on a local value.

use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use core::sync::atomic::{AtomicI32, AtomicU32, AtomicU64};

use oxide::prelude::*;

use crate::harness::{Case, Check::Exact, KernelCase};

/// `$name(a, x)`: applies every atomic operation of `$atomic` to `a` with operands from `x`
/// and returns what they returned, folded together.
macro_rules! atomic_ops {
    ($name:ident, $atomic:ty, $t:ty) => {
        fn $name(a: &$atomic, x: u64) -> $t {
            let (v, w) = (x as $t, x.rotate_left(29) as $t);
            let mut seen: $t = a.fetch_add(v, Relaxed);
            let mut fold = |r: $t| seen = seen.rotate_left(5) ^ r;
            fold(a.fetch_sub(w, Release));
            fold(a.fetch_and(!(v & w), Acquire));
            fold(a.fetch_or(w.rotate_left(7), AcqRel));
            fold(a.fetch_xor(v.wrapping_mul(3), SeqCst));
            fold(a.fetch_max(w, AcqRel));
            fold(a.fetch_min(v, SeqCst));
            fold(a.swap(v ^ w, Relaxed));
            let current = a.load(Acquire);
            // Fails (the value is not `current ^ 1`): returns the current value.
            match a.compare_exchange(current ^ 1, v, AcqRel, Relaxed) {
                Ok(_) => fold(1),
                Err(now) => fold(now),
            }
            // Succeeds.
            match a.compare_exchange(current, current.wrapping_add(w), SeqCst, Acquire) {
                Ok(before) => fold(before.wrapping_add(2)),
                Err(_) => fold(3),
            }
            a.store(a.load(Relaxed) ^ seen.rotate_left(11), Release);
            seen
        }
    };
}

atomic_ops!(u32_ops, AtomicU32, u32);
atomic_ops!(i32_ops, AtomicI32, i32);
atomic_ops!(u64_ops, AtomicU64, u64);

/// The element's value before the atomics, so the GPU's zeroed buffer does not matter.
fn initial(x: u64) -> u64 {
    x ^ 0x5a5a_a5a5_0ff0_f00f
}

/// `AtomicU32::from_mut` on the thread's element.
#[kernel]
pub fn atomic_u32_from_mut(input: &[u64], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        *o = initial(x) as u32;
        let seen = u32_ops(AtomicU32::from_mut(o), x);
        *o = o.wrapping_add(seen);
    }
}

/// `AtomicI32::from_ptr` on the thread's element.
#[kernel]
pub fn atomic_i32_from_ptr(input: &[u64], mut out: DisjointSlice<i32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        *o = initial(x) as i32;
        // SAFETY: `o` is valid and aligned, and no other thread accesses it (it is this
        // thread's element of a `DisjointSlice`); the atomic is dropped before `o` is used.
        let seen = i32_ops(unsafe { AtomicI32::from_ptr(o) }, x);
        *o = o.wrapping_add(seen);
    }
}

/// `AtomicU64::from_mut` on the thread's element.
#[kernel]
pub fn atomic_u64_from_mut(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let x = input[i];
        *o = initial(x);
        let seen = u64_ops(AtomicU64::from_mut(o), x);
        *o = o.wrapping_add(seen);
    }
}

pub fn cases() -> Vec<Box<dyn Case>> {
    vec![
        Box::new(KernelCase::<u32> {
            name: "atomic_u32_rmw_cas",
            check: Exact,
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = initial(x) as u32;
                    let seen = u32_ops(AtomicU32::from_mut(&mut o), x);
                    o.wrapping_add(seen)
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_u32_from_mut::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_u32_from_mut::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<i32> {
            name: "atomic_i32_rmw_cas",
            check: Exact,
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = initial(x) as i32;
                    let seen = i32_ops(AtomicI32::from_mut(&mut o), x);
                    o.wrapping_add(seen)
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_i32_from_ptr::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_i32_from_ptr::emulate(cfg, input, out),
        }),
        Box::new(KernelCase::<u64> {
            name: "atomic_u64_rmw_cas",
            check: Exact,
            reference: |input| {
                let each = |&x: &u64| {
                    let mut o = initial(x);
                    let seen = u64_ops(AtomicU64::from_mut(&mut o), x);
                    o.wrapping_add(seen)
                };
                input.iter().map(each).collect()
            },
            launch: |gpu, cfg, input, out| atomic_u64_from_mut::launch(gpu, cfg, input, out),
            emulate: |cfg, input, out| atomic_u64_from_mut::emulate(cfg, input, out),
        }),
    ]
}
