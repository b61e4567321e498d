//! Control flow: if/else chains, `match` (ranges, guards, tuples, enums), `loop` with
//! `break value`, `while`, labelled `break`/`continue`, `for` over ranges and iterator chains,
//! early `return`.

#![allow(
    clippy::unnecessary_cast,
    clippy::manual_is_multiple_of,
    clippy::manual_range_patterns
)]

use crate::harness::Check::Exact;

/// A fieldless enum for `match`.
#[derive(Clone, Copy)]
pub enum Dir {
    North,
    East,
    South,
    West,
}

impl Dir {
    pub fn from_bits(b: u64) -> Dir {
        match b & 3 {
            0 => Dir::North,
            1 => Dir::East,
            2 => Dir::South,
            _ => Dir::West,
        }
    }
}

/// The index of the first element equal to `v`, with an early `return`.
pub fn find(a: [u32; 6], v: u32) -> u32 {
    for (i, &e) in a.iter().enumerate() {
        if e == v {
            return i as u32;
        }
    }
    99
}

/// Early returns on several conditions before the final expression.
pub fn classify(v: u64) -> u32 {
    if v == 0 {
        return 1;
    }
    if v.is_power_of_two() {
        return 2;
    }
    let t = v.trailing_zeros();
    if t > 8 {
        return 3 + t;
    }
    (v % 97) as u32 + 100
}

map_cases! {
    /// if / else if / else chains on signed and unsigned conditions.
    if_else_chain(Exact) |x| -> u32 {
        let a = x as i32;
        let b = (x >> 32) as u32;
        if a < -1000 {
            1
        } else if a < 0 {
            2
        } else if b > 0x8000_0000 && a > 1000 {
            3
        } else if b % 3 == 0 || a % 5 == 0 {
            4
        } else {
            5 + b % 7
        }
    }
    /// match on integers with ranges, alternatives, bindings and guards.
    match_int_ranges_guards(Exact) |x| -> u32 {
        match x as u16 {
            0 => 10,
            1 | 2 | 3 => 11,
            4..=99 => 12,
            n @ 100..=999 if n % 2 == 0 => 13 + n as u32,
            100..=999 => 14,
            0x7f00..0x8000 => 15,
            n if n.count_ones() > 12 => 16,
            _ => 17,
        }
    }
    /// match on signed integers with negative ranges.
    match_signed_ranges(Exact) |x| -> i32 {
        match x as i8 {
            i8::MIN..=-100 => -1,
            -99..=-1 => -2,
            0 => 0,
            n @ 1..=50 => n as i32 * 2,
            _ => 3,
        }
    }
    /// match on a tuple of values with wildcards and guards.
    match_tuple(Exact) |x| -> u32 {
        let t = ((x & 1) == 1, (x >> 1) % 4, (x >> 8) as u8);
        match t {
            (true, 0, _) => 1,
            (false, 0, b) if b > 128 => 2,
            (_, 1, 0..=63) => 3,
            (true, 2 | 3, b) => 4 + b as u32,
            (false, n, _) => 300 + n as u32,
            _ => 5,
        }
    }
    /// match on a fieldless enum, and `as` on its discriminant.
    match_enum(Exact) |x| -> u32 {
        let d = Dir::from_bits(x);
        let e = Dir::from_bits(x >> 2);
        let turn = match (d, e) {
            (Dir::North, Dir::South) | (Dir::South, Dir::North) => 100,
            (Dir::East, _) => 200,
            (_, Dir::West) => 300,
            _ => 400,
        };
        turn + d as u32 * 10 + e as u32
    }
    /// loop with `break value` (Collatz steps, bounded).
    loop_break_value(Exact) |x| -> u32 {
        let mut n = (x % 10_000) + 1;
        let mut steps = 0u32;
        let last = loop {
            if n == 1 || steps == 500 {
                break n;
            }
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            steps += 1;
        };
        steps * 1000 + last as u32
    }
    /// while loops with compound conditions.
    while_loop(Exact) |x| -> u32 {
        let mut v = x;
        let mut n = 0u32;
        while v != 0 && n < 40 {
            v &= v - 1;
            n += 1;
        }
        let mut w = x as u32;
        while w > 10 {
            w /= 3;
        }
        n * 16 + w
    }
    /// Labelled break and continue in nested loops.
    labelled_break_continue(Exact) |x| -> u32 {
        let mut acc = 0u32;
        let limit = (x % 50) as u32;
        'outer: for i in 0..10u32 {
            let mut j = 0u32;
            'inner: loop {
                j += 1;
                if j > 8 {
                    break 'inner;
                }
                if (i + j) % 3 == 0 {
                    continue 'inner;
                }
                if i * j == limit {
                    continue 'outer;
                }
                acc += i * j;
                if acc > 200 + limit * 4 {
                    break 'outer;
                }
            }
        }
        acc
    }
    /// for over ranges: exclusive, inclusive, .rev() and .step_by().
    for_ranges(Exact) |x| -> u64 {
        let n = x % 40;
        let mut acc = 0u64;
        for i in 0..n {
            acc += i;
        }
        for i in (1..=n).rev() {
            acc = acc * 3 % 1_000_003 + i;
        }
        for i in (0..100).step_by(n as usize + 1) {
            acc ^= i << 8;
        }
        for i in (0..=n).rev().step_by(3) {
            acc += i * 7;
        }
        acc
    }
    /// iter().enumerate().zip().map().sum() over local arrays.
    iter_chain_sum(Exact) |x| -> u64 {
        let a = [
            x as u8 as u64,
            (x >> 8) as u8 as u64,
            3,
            4,
            5,
            (x >> 16) as u8 as u64,
        ];
        let b = [
            7u64,
            (x >> 24) as u8 as u64,
            11,
            13,
            (x >> 32) as u8 as u64,
            17,
        ];
        let dot: u64 = a
            .iter()
            .enumerate()
            .zip(b.iter())
            .map(|((i, &p), &q)| (i as u64 + 1) * p * q)
            .sum();
        let evens = a.iter().filter(|&&v| v % 2 == 0).count() as u64;
        dot * 8 + evens
    }
    /// fold, any, all, max, min, position and rev over a local array.
    iter_fold_any_all(Exact) |x| -> u64 {
        let a = [
            x as u16,
            (x >> 16) as u16,
            (x >> 32) as u16,
            (x >> 48) as u16,
        ];
        let folded = a
            .iter()
            .fold(0u64, |acc, &v| acc.wrapping_mul(65_599) ^ v as u64);
        let any = a.iter().any(|&v| v > 60_000) as u64;
        let all = a.iter().all(|&v| v % 2 == 1) as u64;
        let max = *a.iter().max().unwrap() as u64;
        let min = a.iter().copied().min().unwrap_or(0) as u64;
        let last_odd = a
            .iter()
            .rev()
            .position(|&v| v % 2 == 1)
            .map_or(9, |p| p as u64);
        folded ^ any << 60 ^ all << 61 ^ max << 16 ^ min << 32 ^ last_odd << 56
    }
    /// Early `return` from helpers inside loops and if chains.
    early_return(Exact) |x| -> u32 {
        let a = [x as u32 % 8, 3, 5, (x >> 3) as u32 % 8, 1, 6];
        find(a, (x >> 6) as u32 % 8) * 1000 + classify(x)
    }
    /// while let, if let ... else, and let ... else.
    while_let_let_else(Exact) |x| -> u32 {
        let mut stack = [x as u8, (x >> 8) as u8, (x >> 16) as u8, 0, 0];
        let mut len = 3usize;
        let mut acc = 0u32;
        while let Some(top) = if len > 0 { Some(stack[len - 1]) } else { None } {
            len -= 1;
            acc = acc * 7 + top as u32;
            if top != 0 && top % 5 == 0 && len < 4 {
                stack[len] = top / 5;
                len += 1;
            }
        }
        let Some(v) = (x as u8).checked_sub(100) else {
            return acc + 1;
        };
        if let 0..=9 = v {
            acc + 2
        } else {
            acc ^ v as u32
        }
    }

    /// A kernel whose name is not ASCII: its PTX entry is `fa$e7$ade` (oxide_contract::kernel_entry),
    /// which the launcher finds too.
    façade(Exact) |x| -> u32 {
        (x as u32).rotate_left(7) ^ 0xc0de
    }

    /// `wrapping_abs` of the most negative i8 and i16 is that value again (NVPTX's `abs.s16`
    /// got it wrong; found by oxide-fuzz): half of the inputs hit it.
    narrow_wrapping_abs(Exact) |x| -> u64 {
        let a = ((x as i16) & i16::MIN).wrapping_abs();
        let b = (((x >> 16) as i8) & i8::MIN).wrapping_abs();
        let c = (x as i16).wrapping_abs();
        a as u64 ^ (b as u64).rotate_left(20) ^ (c as u64).rotate_left(40)
    }

    /// `wrapping_neg` of `i16::MIN` is `i16::MIN` again: ptxas (at -O3) read `neg.s16` of
    /// -32768 as +32768 in a sign extension, a shift and a sign test, also where LLVM narrowed a
    /// wider negation to 16 bits (found by oxide-fuzz; llvm-emit rewrites the PTX).
    narrow_wrapping_neg(Exact) |x| -> u64 {
        let n = (x as i16).wrapping_neg();
        let narrowed = (x as i64).wrapping_neg() as i16;
        n as u64
            ^ ((n >> 3) as u64).rotate_left(16)
            ^ ((n < 0) as u64) << 40
            ^ (narrowed as i64 as u64).rotate_left(44)
    }

    /// Bit counts of an i8 or i16 clamped at zero: `max(x, 0).trailing_zeros()` of a negative
    /// i8 is 8 (two oxide-fuzz programs that differ on the H200 were cut down to it: ptxas, at
    /// -O3, gets `max.s16 d, x, 0` compared with 0 wrong, so llvm-emit computes 16-bit
    /// `max`/`min` in 32 bits; this case failed on the H200 before). Half of the inputs are
    /// negative.
    narrow_max_trailing_zeros(Exact) |x| -> u64 {
        let v = x as i8;
        let w = (x >> 8) as i16;
        let a = v.max(0).trailing_zeros() as u64;
        let b = (v.saturating_sub(v).max(v).trailing_zeros() as i8) as u64;
        let c = (v.max(0) as isize).trailing_zeros() as u64;
        let d = v.clamp(-3, 50).leading_zeros() as u64;
        let e = w.max(0).trailing_zeros() as u64;
        let f = v.min(0).count_ones() as u64;
        a ^ b << 8 ^ c << 16 ^ d << 24 ^ e << 32 ^ f << 40
    }

    /// `wrapping_abs` of `i32::MIN` and `i64::MIN` is negative: ptxas (at -O3) took `abs.s32`
    /// and `abs.s64` for non-negative in sign tests (found by oxide-fuzz; llvm-emit rewrites the
    /// PTX).
    wide_wrapping_abs_sign(Exact) |x| -> u64 {
        let a = (x as i32).wrapping_abs();
        let b = (x as i64).wrapping_abs();
        (a < 0) as u64
            | ((b < 0) as u64) << 1
            | ((a >> 31) as u64) << 2
            ^ (b.saturating_add((x as i64) >> 60) as u64).rotate_left(8)
    }

    /// `-1.0 % y` is -0.0 for `y = ±1`: ptxas (at -O1 and above) turned the select between the
    /// two constant results, -0.0 and -1.0, into an int-to-float conversion that gives +0.0
    /// (oxide-fuzz seed 2, program 2278; llvm-emit writes float selects as bit selects). A
    /// fifth of the inputs hit each of -2, -1, 0, 1 and 2. `% 0` is a NaN, whose sign and
    /// payload Rust leaves open (the GPU's is 0x7fffffff, the CPU's 0x7fc00000): NaNs are
    /// compared as NaNs.
    float_rem_signed_zero(Exact) |x| -> u64 {
        let y = ((x % 5) as i32 - 2) as f32;
        let z = (x >> 8) as i8 as f64;
        let (a, b) = (-1.0f32 % y, -1.0f64 % z);
        let a = if a.is_nan() { 1 } else { a.to_bits() as u64 };
        let b = if b.is_nan() { 1 } else { b.to_bits() };
        a ^ b.rotate_left(32)
    }

    /// An `i8` argument of a device function, read sign-extended into 16 bits and then
    /// zero-extended: ptxas (at -O1 and above) kept the sign extension to 32 bits, so the `max`
    /// saw 0xffffff80 for -128 (oxide-fuzz seed 2, program 6618; llvm-emit loads such an
    /// argument into a 32-bit register). Half of the inputs are negative.
    narrow_signed_argument(Exact) |x| -> u64 {
        #[inline(never)]
        fn widen_and_max(v: i8) -> u32 {
            let a = v as i16 as u16;
            (!a.wrapping_mul(3)).max(a).wrapping_sub(a) as u32
        }
        widen_and_max(x as i8) as u64 ^ (widen_and_max((x >> 8) as i8) as u64) << 32
    }

    /// An `i128` arithmetic shift by 64 or more of which only some bits are used: NVPTX made
    /// the high half's sign fill a logical shift (found by oxide-fuzz; llvm-emit expands 128-bit
    /// shifts by a variable amount into 64-bit ones).
    wide_shift_partly_used(Exact) |x| -> u64 {
        let c = 0xc4ee_3e5b_c24e_a4cb_6379_23e1_529c_d678_u128 as i128;
        let v = x.rotate_left(22) as i128;
        let r = v.wrapping_add(v) & (c >> ((x >> 2) as u32 & 127));
        r as u64 ^ ((r >> 64) as u64).rotate_left(17)
    }
}
