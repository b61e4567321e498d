//! `core` library code that needs more than arithmetic: swaps and moves (`typed_swap`, `copy`,
//! `write_bytes`), slice algorithms (reverse, rotate, fill, sort, binary search, comparisons),
//! 128-bit integer <-> float casts (device-std's soft implementations), drop glue, panics whose
//! messages are formatted.

#![allow(clippy::unnecessary_cast)]

use core::mem;

use crate::harness::Check::{Exact, Traps, Ulp};

map_cases! {
    // ---- casts ----
    /// u128 and i128 to f32 and f64.
    cast_int128_to_float(Exact) |x| -> u64 {
        let w = ((x as u128) << (x % 64) as u32) | x.rotate_left(17) as u128;
        (w as f64).to_bits()
            ^ (w as i128 as f64).to_bits().rotate_left(7)
            ^ (w as f32).to_bits() as u64
            ^ ((w as i128 as f32).to_bits() as u64) << 32
    }
    /// f32 and f64 to i128 and u128 (saturating).
    cast_float_to_int128(Exact) |x| -> u128 {
        let a = f32::from_bits(x as u32);
        let b = f64::from_bits(x);
        (a as i128 as u128)
            ^ (a as u128).rotate_left(3)
            ^ (b as i128 as u128).rotate_left(7)
            ^ (b as u128)
    }
    // ---- memory ----
    /// `mem::swap` of locals and of array elements.
    mem_swap(Exact) |x| -> u64 {
        let mut a = x;
        let mut b = x.rotate_left(32);
        mem::swap(&mut a, &mut b);
        let mut arr = [(x as u8, 1u16), (2, (x >> 8) as u16)];
        let (l, r) = arr.split_at_mut(1);
        mem::swap(&mut l[0], &mut r[0]);
        a ^ b.rotate_left(1) ^ arr[0].0 as u64 ^ (arr[1].1 as u64) << 8
    }
    /// swap of two elements of a slice.
    slice_swap(Exact) |x| -> u64 {
        let mut a = x.to_be_bytes();
        a.swap(0, (x >> 8) as usize % 8);
        u64::from_le_bytes(a)
    }
    /// reverse on slices of a local array.
    slice_reverse(Exact) |x| -> u64 {
        let mut a = x.to_be_bytes();
        a[2..].reverse();
        let mut b = [x as u32, (x >> 32) as u32, 7];
        b.reverse();
        u64::from_le_bytes(a) ^ (b[0] as u64) << 5 ^ b[2] as u64
    }
    /// rotate_left on a slice of a local array.
    slice_rotate(Exact) |x| -> u64 {
        let mut a = x.to_be_bytes();
        a[..5].rotate_left((x >> 16) as usize % 5);
        u64::from_le_bytes(a)
    }
    /// fill on a u32 slice.
    slice_fill(Exact) |x| -> u64 {
        let mut a = [0u32; 8];
        a[..(x >> 40) as usize % 9].fill((x >> 32) as u32);
        a.iter().fold(0u64, |s, &v| s.rotate_left(8) ^ v as u64)
    }
    /// fill on a byte slice (lowered to a memset).
    slice_fill_bytes(Exact) |x| -> u64 {
        let mut a = [0u8; 8];
        a[..(x >> 40) as usize % 9].fill((x >> 32) as u8);
        u64::from_le_bytes(a)
    }
    /// binary_search on a sorted local array.
    slice_binary_search(Exact) |x| -> u32 {
        let a = [1u16, 4, 9, 16, 25, 36, 49, 64];
        match a.binary_search(&((x % 70) as u16)) {
            Ok(i) => i as u32,
            Err(i) => 50 + i as u32,
        }
    }
    /// starts_with on a local array (slice equality).
    slice_starts_with(Exact) |x| -> u32 {
        let a = [1u16, 4, 9, 16, 25];
        a.starts_with(&[1, (x % 6) as u16]) as u32 + 2 * (a[..2] == [1, (x % 5) as u16]) as u32
    }
    /// sort_unstable on a small local array.
    slice_sort_unstable(Exact) |x| -> u64 {
        let mut a = x.to_le_bytes();
        a.sort_unstable();
        u64::from_be_bytes(a)
    }
    // ---- abstraction ----
    /// `for v in array` (by-value array iteration) in a const-generic function.
    array_into_iter(Exact) |x| -> u32 {
        fn sum<const N: usize>(a: [u32; N]) -> u32 {
            let mut s = 0u32;
            for v in a {
                s = s.wrapping_add(v);
            }
            s
        }
        sum([x as u32, 3]) ^ sum([(x >> 32) as u32; 5])
    }
    /// Ord::clamp on integers.
    core_int_clamp(Exact) |x| -> i64 {
        (x as i64).clamp(-1000, 1_000_000) ^ ((x as u8).clamp(10, 200) as i64) << 40
    }
    /// f32::min and f32::max (NaN-ignoring).
    float_min_max(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = f32::from_bits((x >> 32) as u32);
        a.min(b) + a.max(1.0) + b.max(-2.0)
    }
    // ---- panics ----
    /// `unwrap` on an `Err` (the error is formatted with Debug).
    trap_result_unwrap_err(Traps) |x| -> u32 {
        let r: Result<u32, u8> = if x.count_ones() > 64 {
            Ok(1)
        } else {
            Err(x as u8)
        };
        r.unwrap()
    }

}
