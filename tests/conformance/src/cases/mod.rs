//! The corpus. Each file holds the cases of one area; `map_cases!` turns each
//! `name(check) |x| -> R { body }` into a kernel `name` running `body` once per thread on
//! `input[i]`, and into a `KernelCase` whose reference runs the very same `body` as plain Rust.
//! `[options] name(check) ...` gives the kernel `#[kernel(options)]` (`[strict_float]`).

use crate::harness::Case;

/// Declares map cases and the file's `cases()` list.
macro_rules! map_cases {
    ($( $(#[$doc:meta])* $([$($opt:tt)*])? $name:ident ($check:expr) |$x:ident| -> $r:ty $body:block )*) => {
        $(
            $(#[$doc])*
            #[oxide::kernel $(($($opt)*))?]
            pub fn $name(input: &[u64], mut out: oxide::DisjointSlice<$r>) {
                fn body($x: u64) -> $r $body
                let idx = oxide::thread::ThreadIndex::linear();
                let i = idx.get();
                if let Some(o) = out.get_mut(idx) {
                    *o = body(input[i]);
                }
            }
        )*

        pub fn cases() -> Vec<Box<dyn $crate::harness::Case>> {
            vec![$(
                Box::new($crate::harness::KernelCase::<$r> {
                    name: stringify!($name),
                    check: $check,
                    reference: {
                        fn reference(input: &[u64]) -> Vec<$r> {
                            fn body($x: u64) -> $r $body
                            input.iter().map(|&x| body(x)).collect()
                        }
                        reference
                    },
                    launch: |gpu, cfg, input, out| $name::launch(gpu, cfg, input, out),
                    emulate: |cfg, input, out| $name::emulate(cfg, input, out),
                }),
            )*]
        }
    };
}

pub mod abstraction;
pub mod atomics;
pub mod atomics_scoped;
pub mod casts;
pub mod chunk_reads;
pub mod control;
pub mod data;
pub mod debug;
pub mod derived;
pub mod float8;
pub mod kernels;
pub mod library;
pub mod math;
pub mod memory;
pub mod outputs;
pub mod panics;
pub mod scalars;
pub mod shared_safe;
pub mod statics;
pub mod std_overflow;
pub mod strict_float;
pub mod tensor;
pub mod warp_safe;
pub mod warp_shared;

/// Every case, in a stable order.
pub fn all() -> Vec<Box<dyn Case>> {
    let mut all = Vec::new();
    all.extend(scalars::cases());
    all.extend(casts::cases());
    all.extend(control::cases());
    all.extend(data::cases());
    all.extend(memory::cases());
    all.extend(abstraction::cases());
    all.extend(panics::cases());
    all.extend(library::cases());
    all.extend(statics::cases());
    all.extend(kernels::cases());
    all.extend(warp_shared::cases());
    all.extend(outputs::cases());
    all.extend(warp_safe::cases());
    all.extend(shared_safe::cases());
    all.extend(atomics::cases());
    all.extend(atomics_scoped::cases());
    all.extend(std_overflow::cases());
    all.extend(strict_float::cases());
    all.extend(math::cases());
    all.extend(debug::cases());
    all.extend(derived::cases());
    all.extend(tensor::all_cases());
    all.extend(float8::cases());
    all.extend(chunk_reads::cases());
    all
}
