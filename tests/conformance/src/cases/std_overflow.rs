//! Overflow inside the standard library. `i32::abs`, `Sum`/`Product` for integers, `i64::pow`
//! and `Neg for i32` are `#[rustc_inherit_overflow_checks]`: they panic on overflow exactly when
//! the crate that calls them has overflow checks (debug builds) and wrap otherwise (release),
//! whatever std itself was built with. Each case overflows for some of the inputs (the edge
//! values hold `0x8000_0000`, i32::MIN's bits, and `u64::MAX`), so a debug build traps
//! everywhere and a release build must give the host's wrapped values.

#![allow(clippy::unnecessary_cast)]

use crate::harness::Check::{Exact, Traps};

/// A trap with overflow checks, the host's wrapped value without them.
const OVERFLOW_CHECK: crate::harness::Check = if cfg!(debug_assertions) { Traps } else { Exact };

map_cases! {
    /// `i32::abs` of i32::MIN (input `0x8000_0000`).
    std_abs_i32_min(OVERFLOW_CHECK) |x| -> i32 {
        (x as i32).abs()
    }
    /// `i64::abs` of i64::MIN (input `i64::MIN`).
    std_abs_i64_min(OVERFLOW_CHECK) |x| -> i64 {
        (x as i64).abs()
    }
    /// `Iterator::sum::<i32>` over a slice whose sum leaves i32.
    std_sum_i32_overflow(OVERFLOW_CHECK) |x| -> i32 {
        let parts = [x as i32, (x >> 32) as i32, i32::MAX, (x >> 16) as i32];
        parts.iter().sum::<i32>()
    }
    /// `Iterator::sum::<u8>` over a mapped range (a loop in std's fold).
    std_sum_u8_range_overflow(OVERFLOW_CHECK) |x| -> u8 {
        (0..(x % 40) as u32 + 8).map(|i| (x >> (i % 8)) as u8).sum::<u8>()
    }
    /// `Iterator::product::<i32>` that leaves i32.
    std_product_i32_overflow(OVERFLOW_CHECK) |x| -> i32 {
        let parts = [x as i32, ((x >> 16) as i32) | 1, 1_000_003, 3];
        parts.iter().product::<i32>()
    }
    /// `i64::pow` past i64::MAX.
    std_pow_i64_overflow(OVERFLOW_CHECK) |x| -> i64 {
        (x as i64).pow(3 + (x % 3) as u32)
    }
    /// `Neg::neg` of i32::MIN called through the trait (std's impl, not the kernel's `-`).
    std_neg_i32_min(OVERFLOW_CHECK) |x| -> i32 {
        core::ops::Neg::neg(x as i32)
    }
}
