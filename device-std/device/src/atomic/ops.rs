//! The scoped atomic instructions: on the GPU the backend replaces each call by the LLVM atomic
//! its `#[oxide_gpu::atomic]` names (docs/contracts.md, "Device intrinsics"); the bodies are
//! what the host runs, where every scope is the whole process.

use core::sync::atomic::Ordering::{Relaxed, SeqCst};
use core::sync::atomic::{AtomicU32, AtomicU64};

/// One relaxed read-modify-write per line: `name(atomic, value) -> previous`.
macro_rules! rmw {
    ($atomic:ty, $t:ty; $($name:ident = $op:tt @ $scope:tt => $host:ident;)*) => {$(
        #[oxide_gpu::atomic(op = $op, scope = $scope, ordering = "relaxed")]
        #[inline(never)]
        pub(crate) fn $name(atomic: &$atomic, value: $t) -> $t {
            atomic.$host(value, Relaxed)
        }
    )*};
}

/// The relaxed compare-exchange: `name(atomic, current, new) -> previous`.
macro_rules! cas {
    ($atomic:ty, $t:ty; $($name:ident @ $scope:tt;)*) => {$(
        #[oxide_gpu::atomic(op = "cas", scope = $scope, ordering = "relaxed")]
        #[inline(never)]
        pub(crate) fn $name(atomic: &$atomic, current: $t, new: $t) -> $t {
            match atomic.compare_exchange(current, new, Relaxed, Relaxed) {
                Ok(previous) | Err(previous) => previous,
            }
        }
    )*};
}

/// Every scoped operation of one integer atomic, in a module named after its integer. System
/// scope is inline PTX: NVPTX (LLVM 22) drops the scope of a relaxed `atomicrmw`, which would
/// make it device-scoped (`.gpu`); block scope goes through LLVM, where it becomes device scope,
/// wider and as fast. Subtraction adds the negation (PTX has no `atom.sub`).
macro_rules! integer_ops {
    ($($module:ident: $atomic:ty => $t:ty, $max:tt, $min:tt {
        $($sys:ident = $template:tt, $constraints:tt => $host:ident;)*
    })*) => {$(
        pub(crate) mod $module {
            use super::*;

            $(
                #[oxide_gpu::ptx(template = $template, constraints = $constraints, volatile)]
                #[inline(never)]
                pub(crate) fn $sys(atomic: &$atomic, value: $t) -> $t {
                    atomic.$host(value, Relaxed)
                }
            )*
            rmw! { $atomic, $t;
                add_block = "add" @ "block" => fetch_add;
                sub_block = "sub" @ "block" => fetch_sub;
                and_block = "and" @ "block" => fetch_and;
                or_block = "or" @ "block" => fetch_or;
                xor_block = "xor" @ "block" => fetch_xor;
                max_block = $max @ "block" => fetch_max;
                min_block = $min @ "block" => fetch_min;
                swap_block = "xchg" @ "block" => swap;
            }
            cas! { $atomic, $t;
                cas_system @ "system";
                cas_block @ "block";
            }
        }
    )*};
}

integer_ops! {
    u32_ops: core::sync::atomic::AtomicU32 => u32, "umax", "umin" {
        add_system = "atom.relaxed.sys.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_add;
        and_system = "atom.relaxed.sys.and.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_and;
        or_system = "atom.relaxed.sys.or.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_or;
        xor_system = "atom.relaxed.sys.xor.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_xor;
        max_system = "atom.relaxed.sys.max.u32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_max;
        min_system = "atom.relaxed.sys.min.u32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_min;
        swap_system = "atom.relaxed.sys.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => swap;
    }
    i32_ops: core::sync::atomic::AtomicI32 => i32, "max", "min" {
        add_system = "atom.relaxed.sys.add.s32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_add;
        and_system = "atom.relaxed.sys.and.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_and;
        or_system = "atom.relaxed.sys.or.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_or;
        xor_system = "atom.relaxed.sys.xor.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_xor;
        max_system = "atom.relaxed.sys.max.s32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_max;
        min_system = "atom.relaxed.sys.min.s32 $0, [$1], $2;", "=r,l,r,~{memory}" => fetch_min;
        swap_system = "atom.relaxed.sys.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}" => swap;
    }
    u64_ops: core::sync::atomic::AtomicU64 => u64, "umax", "umin" {
        add_system = "atom.relaxed.sys.add.u64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_add;
        and_system = "atom.relaxed.sys.and.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_and;
        or_system = "atom.relaxed.sys.or.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_or;
        xor_system = "atom.relaxed.sys.xor.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_xor;
        max_system = "atom.relaxed.sys.max.u64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_max;
        min_system = "atom.relaxed.sys.min.u64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_min;
        swap_system = "atom.relaxed.sys.exch.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => swap;
    }
    i64_ops: core::sync::atomic::AtomicI64 => i64, "max", "min" {
        add_system = "atom.relaxed.sys.add.u64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_add;
        and_system = "atom.relaxed.sys.and.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_and;
        or_system = "atom.relaxed.sys.or.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_or;
        xor_system = "atom.relaxed.sys.xor.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_xor;
        max_system = "atom.relaxed.sys.max.s64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_max;
        min_system = "atom.relaxed.sys.min.s64 $0, [$1], $2;", "=l,l,l,~{memory}" => fetch_min;
        swap_system = "atom.relaxed.sys.exch.b64 $0, [$1], $2;", "=l,l,l,~{memory}" => swap;
    }
}

/// Float addition on the bits of a float atomic: `name(bits, value) -> previous`. The host
/// adds in a compare-exchange loop, flushing subnormal operands and results to zero where the
/// GPU's instruction does (`$flush`).
macro_rules! float_add {
    ($bits:ty, $float:ty, $flush:path; $($name:ident @ $scope:tt, $ordering:tt;)*) => {$(
        #[oxide_gpu::atomic(op = "fadd", scope = $scope, ordering = $ordering)]
        #[inline(never)]
        pub(crate) fn $name(atomic: &$bits, value: $float) -> $float {
            let mut seen = atomic.load(Relaxed);
            loop {
                let previous = <$float>::from_bits(seen);
                let sum = $flush($flush(previous) + $flush(value));
                match atomic.compare_exchange_weak(seen, sum.to_bits(), SeqCst, Relaxed) {
                    Ok(_) => return previous,
                    Err(now) => seen = now,
                }
            }
        }
    )*};
}

/// `atom.add.f32` flushes subnormal inputs and results to zero of the same sign (PTX ISA,
/// `atom`); the host does the same so that both agree bit for bit.
#[inline]
pub(crate) fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `atom.add.f64` keeps subnormals.
#[inline]
pub(crate) fn keep_f64(x: f64) -> f64 {
    x
}

float_add! { AtomicU32, f32, flush_f32;
    add_f32_relaxed @ "device", "relaxed";
    add_f32_acquire @ "device", "acquire";
    add_f32_release @ "device", "release";
    add_f32_acq_rel @ "device", "acq_rel";
    add_f32_seq_cst @ "device", "seq_cst";
    add_f32_block @ "block", "relaxed";
}

float_add! { AtomicU64, f64, keep_f64;
    add_f64_relaxed @ "device", "relaxed";
    add_f64_acquire @ "device", "acquire";
    add_f64_release @ "device", "release";
    add_f64_acq_rel @ "device", "acq_rel";
    add_f64_seq_cst @ "device", "seq_cst";
    add_f64_block @ "block", "relaxed";
}

/// Relaxed float additions at system scope, in inline PTX (see `integer_ops!`).
#[oxide_gpu::ptx(
    template = "atom.relaxed.sys.add.f32 $0, [$1], $2;",
    constraints = "=f,l,f,~{memory}",
    volatile
)]
#[inline(never)]
pub(crate) fn add_f32_system(atomic: &AtomicU32, value: f32) -> f32 {
    add_f32_relaxed(atomic, value)
}

#[oxide_gpu::ptx(
    template = "atom.relaxed.sys.add.f64 $0, [$1], $2;",
    constraints = "=d,l,d,~{memory}",
    volatile
)]
#[inline(never)]
pub(crate) fn add_f64_system(atomic: &AtomicU64, value: f64) -> f64 {
    add_f64_relaxed(atomic, value)
}

/// A sequentially consistent fence at one scope.
macro_rules! fences {
    ($($name:ident @ $scope:tt;)*) => {$(
        #[oxide_gpu::atomic(op = "fence", scope = $scope, ordering = "seq_cst")]
        #[inline(never)]
        pub(crate) fn $name() {
            core::sync::atomic::fence(SeqCst);
        }
    )*};
}

fences! {
    fence_block @ "block";
    fence_device @ "device";
    fence_system @ "system";
}
