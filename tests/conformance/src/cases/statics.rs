//! Module-level data read by kernels: statics, `const` tables indexed at run time, string
//! literals, statics holding references, and overflow that traps exactly when the CPU's does.

#![allow(clippy::manual_is_multiple_of)]

use crate::harness::Check::{Exact, Traps};

static PRIMES: [u32; 8] = [2, 3, 5, 7, 11, 13, 17, 19];
const SQUARES: [u64; 6] = [0, 1, 4, 9, 16, 25];
static GREETING: &str = "hello, oxide";
static PICKS: [&u32; 3] = [&PRIMES[1], &PRIMES[4], &PRIMES[7]];

#[derive(Clone, Copy)]
struct Coefficients {
    scale: i32,
    shift: u8,
    table: [i16; 4],
}

static COEFFICIENTS: Coefficients = Coefficients {
    scale: -3,
    shift: 2,
    table: [7, -8, 9, -10],
};

/// How debug and release builds treat `+` overflow: a trap with overflow checks, wrapping
/// without. The emulator and the GPU run the same build, so both must agree with plain Rust.
const OVERFLOW_CHECK: crate::harness::Check = if cfg!(debug_assertions) { Traps } else { Exact };

map_cases! {
    /// A static array indexed at run time.
    static_table_lookup(Exact) |x| -> u32 {
        PRIMES[(x % 8) as usize] * PRIMES[((x >> 8) % 8) as usize]
    }
    /// A `const` array indexed at run time (promoted to a global).
    const_table_lookup(Exact) |x| -> u64 {
        SQUARES[(x % 6) as usize] + SQUARES[((x >> 3) % 6) as usize] * 100
    }
    /// The bytes of a string literal in a static.
    static_str_bytes(Exact) |x| -> u8 {
        let bytes = GREETING.as_bytes();
        bytes[(x % bytes.len() as u64) as usize] ^ (GREETING.len() as u8)
    }
    /// A static of references into another static.
    static_of_references(Exact) |x| -> u32 {
        *PICKS[(x % 3) as usize] + PICKS.len() as u32
    }
    /// A static struct with a nested array.
    static_struct(Exact) |x| -> i64 {
        let c = COEFFICIENTS;
        (c.table[(x % 4) as usize] as i64 * c.scale as i64) << c.shift
    }
    /// A string literal local to the kernel.
    str_literal_in_kernel(Exact) |x| -> u32 {
        let word = if x % 2 == 0 { "even" } else { "odd" };
        word.len() as u32 + word.as_bytes()[0] as u32
    }
    /// `u8 + u8` overflows for most inputs: traps in debug builds, wraps in release.
    overflow_add_u8(OVERFLOW_CHECK) |x| -> u8 {
        (x as u8) + 200
    }
    /// `i32 * i32` overflows for most inputs: traps in debug builds, wraps in release.
    overflow_mul_i32(OVERFLOW_CHECK) |x| -> i32 {
        (x as i32) * 1_000_003
    }
}
