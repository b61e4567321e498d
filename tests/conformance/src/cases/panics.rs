//! Panics: every case here panics for every input, so the reference panics, the emulator
//! reports the failed thread and the GPU launch fails. Conditions are runtime values
//! (`x.count_ones() <= 64` always holds, but the compiler does not fold it away in MIR).
//! Overflow of plain arithmetic traps only in debug builds (kernels build in release, where it
//! wraps), so overflow is tested here only through `checked_*`.

#![allow(clippy::unnecessary_cast)]

use core::num::NonZeroU32;

use crate::harness::Check::Traps;

/// Always 0, but only known at run time.
fn zero(x: u64) -> u32 {
    x.count_ones() / 65
}

map_cases! {
    /// `unwrap` on `None`.
    trap_unwrap_none(Traps) |x| -> u32 {
        let o = if zero(x) == 1 { Some(x as u32) } else { None };
        o.unwrap()
    }
    /// `expect` on `None`.
    trap_expect_none(Traps) |x| -> u32 {
        NonZeroU32::new(zero(x))
            .expect("zero is not non-zero")
            .get()
    }
    /// Index out of bounds on a local array with a runtime index.
    trap_index_out_of_bounds(Traps) |x| -> u32 {
        let a = [1u32, 2, 3];
        a[3 + (x % 5) as usize]
    }
    /// Index out of bounds on the inner array of a 2-D local array.
    trap_index_2d_out_of_bounds(Traps) |x| -> u32 {
        let m = [[x as u32; 4]; 2];
        m[(x % 2) as usize][4 + zero(x) as usize]
    }
    /// A slice range past the end of a local array.
    trap_slice_range_out_of_bounds(Traps) |x| -> u32 {
        let a = [1u32, 2, 3];
        let s = &a[(x % 3) as usize + 4..];
        s.len() as u32
    }
    /// A slice range whose start is past its end.
    trap_slice_range_inverted(Traps) |x| -> u32 {
        let a = [1u32, 2, 3, 4];
        let start = 3 + zero(x) as usize;
        a[start..2].iter().sum()
    }
    /// `panic!` with a literal message.
    trap_panic_literal(Traps) |x| -> u32 {
        if x.count_ones() <= 64 {
            panic!("every thread panics");
        }
        x as u32
    }
    /// `unreachable!()` reached.
    trap_unreachable(Traps) |x| -> u32 {
        match x.count_ones() {
            0..=64 => unreachable!(),
            n => n,
        }
    }
    /// `assert!` with a message, failing.
    trap_assert(Traps) |x| -> u32 {
        assert!(x.count_ones() > 64, "no u64 has 65 ones");
        x as u32
    }
    /// Division by zero with a runtime divisor.
    trap_div_by_zero(Traps) |x| -> u32 {
        (x as u32) / zero(x)
    }
    /// Remainder by zero with a runtime divisor (i64).
    trap_rem_by_zero(Traps) |x| -> u32 {
        ((x as i64) % zero(x) as i64) as u32
    }
    /// i32::MIN / -1 (traps in release builds too).
    trap_div_overflow(Traps) |x| -> u32 {
        let a = i32::MIN + zero(x) as i32;
        let b = -1 - zero(x) as i32;
        (a / b) as u32
    }
    /// `checked_add(..).unwrap()` overflowing.
    trap_checked_add_unwrap(Traps) |x| -> u32 {
        (x | 1).checked_add(u64::MAX).unwrap() as u32
    }
    /// `checked_mul(..).expect(..)` overflowing.
    trap_checked_mul_expect(Traps) |x| -> u32 {
        (x as u32 | 2)
            .checked_mul(u32::MAX)
            .expect("product overflows")
    }
}
