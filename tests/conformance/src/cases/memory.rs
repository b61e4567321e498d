//! Memory: references and reborrows, raw pointers on local arrays, `ptr::copy_nonoverlapping`,
//! `mem::swap`/`replace`/`take`, and slices of local arrays.

#![allow(clippy::unnecessary_cast, clippy::manual_swap)]

use core::{mem, ptr};

use crate::harness::Check::Exact;

fn bump(v: &mut u32, by: u32) {
    *v = v.wrapping_add(by);
}

fn larger<'a>(a: &'a mut u32, b: &'a mut u32) -> &'a mut u32 {
    if *a >= *b { a } else { b }
}

fn sum_slice(s: &[u32]) -> u32 {
    s.iter().fold(0, |acc, &v| acc.wrapping_add(v))
}

fn scale(s: &mut [u32], k: u32) {
    for v in s {
        *v = v.wrapping_mul(k);
    }
}

#[derive(Default)]
struct Pair {
    a: u32,
    b: [u16; 2],
}

map_cases! {
    /// Cache hints (`oxide::cache`) on a thread's own values: the 16-byte forms through inline
    /// PTX with four outputs (a vector access when aligned, element by element otherwise), the
    /// 8- and 4-byte forms, and a hinted store read back.
    cache_hints_on_locals(Exact) |x| -> u64 {
        let mut v = [x as u32, (x >> 32) as u32, 7, 9];
        let r = oxide::cache::load_streaming(&v);
        oxide::cache::store_streaming(&mut v, r.map(|w| w.rotate_left(3)));
        let mut d = [x as f64, -(x as f64) * 0.5];
        let tripled = oxide::cache::load_last_use(&d).map(|f| f * 3.0);
        oxide::cache::store_streaming(&mut d, tripled);
        let mut w = x.rotate_left(11);
        let flipped = oxide::cache::load_streaming(&w) ^ 0x5a5a;
        oxide::cache::store_streaming(&mut w, flipped);
        let f = oxide::cache::load_streaming(&((x & 0xffff) as f32));
        (v[0] as u64 | (v[3] as u64) << 32) ^ d[1].to_bits() ^ w ^ f.to_bits() as u64
    }

    /// `&mut` to locals, reborrows, and writes through a reborrow.
    ref_mut_reborrow(Exact) |x| -> u32 {
        let mut v = x as u32;
        let r = &mut v;
        {
            let rr = &mut *r;
            *rr ^= 0xff;
        }
        *r = r.rotate_left(3);
        let s = &v;
        let t = &s;
        **t + (x >> 32) as u8 as u32
    }
    /// `&mut` passed to helpers, and a `&mut` returned from a helper.
    ref_mut_helpers(Exact) |x| -> u32 {
        let mut a = x as u32;
        let mut b = (x >> 32) as u32;
        bump(&mut a, 7);
        bump(&mut b, a);
        *larger(&mut a, &mut b) = 0;
        a ^ b.rotate_left(16)
    }
    /// Disjoint `&mut` borrows of fields of one struct at the same time.
    ref_disjoint_fields(Exact) |x| -> u32 {
        let mut p = Pair {
            a: x as u32,
            b: [(x >> 32) as u16, (x >> 48) as u16],
        };
        let ra = &mut p.a;
        let [rb0, rb1] = &mut p.b;
        *ra = ra.wrapping_add(*rb0 as u32);
        let t = *rb0;
        *rb0 = *rb1;
        *rb1 = t;
        p.a ^ (p.b[0] as u32) << 16 ^ p.b[1] as u32
    }
    /// Raw pointers on a local array: add, read, write.
    raw_ptr_add_read_write(Exact) |x| -> u32 {
        let mut a = [
            x as u32,
            (x >> 8) as u32,
            (x >> 16) as u32,
            (x >> 24) as u32,
        ];
        let p = a.as_mut_ptr();
        let i = (x >> 40) as usize % 4;
        unsafe {
            let v = p.add(i).read();
            p.add((i + 1) % 4).write(v ^ 0x5555);
            *p.add(3) = (*p).wrapping_add(*p.add(1));
        }
        a.iter().fold(0u32, |s, &v| s.rotate_left(5) ^ v)
    }
    /// Raw pointers stepping backwards with `offset` and `sub`, and pointer differences.
    raw_ptr_offset(Exact) |x| -> u64 {
        let a = [x, x >> 3, x >> 7, x >> 11, x >> 13];
        let end = unsafe { a.as_ptr().add(a.len()) };
        let mut acc = 0u64;
        let mut p = end;
        while p != a.as_ptr() {
            p = unsafe { p.offset(-1) };
            acc = acc.rotate_left(9) ^ unsafe { *p };
        }
        let mid = unsafe { end.sub(2) };
        acc ^ unsafe { mid.offset_from(a.as_ptr()) } as u64 ^ unsafe { mid.read() }
    }
    /// `ptr::read_unaligned` of a u32 at an odd offset of a byte array.
    raw_ptr_read_unaligned(Exact) |x| -> u32 {
        let b = x.to_le_bytes();
        let off = (x >> 62) as usize + 1;
        let v = unsafe { ptr::read_unaligned(b.as_ptr().add(off) as *const u32) };
        v ^ u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
    }
    /// `ptr::copy_nonoverlapping` between local arrays.
    ptr_copy_nonoverlapping(Exact) |x| -> u64 {
        let src = [
            x as u16,
            (x >> 16) as u16,
            (x >> 32) as u16,
            (x >> 48) as u16,
        ];
        let mut dst = [0u16; 6];
        let n = (x % 4) as usize + 1;
        unsafe { ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().add(1), n) };
        dst.iter().fold(0u64, |s, &v| s.rotate_left(11) ^ v as u64)
    }
    /// `mem::replace` and `mem::take`.
    mem_replace_take(Exact) |x| -> u32 {
        let mut v = x as u32;
        let old = mem::replace(&mut v, (x >> 32) as u32);
        let mut o = Some(old);
        let taken = mem::take(&mut o);
        let mut p = Pair {
            a: 5,
            b: [x as u16, 2],
        };
        let q = mem::take(&mut p);
        old ^ v.rotate_left(8) ^ taken.unwrap_or(1) ^ o.is_none() as u32 ^ q.b[0] as u32 ^ p.a
    }
    /// Slices of a local array: len, get, get_mut, first, last, is_empty.
    slice_len_get(Exact) |x| -> u32 {
        let mut a = [x as u32, 2, 3, (x >> 32) as u32, 5];
        let n = (x >> 8) as usize % 6;
        let s = &a[..n];
        let g = s.get((x >> 16) as usize % 7).copied().unwrap_or(99);
        let f = s.first().copied().unwrap_or(7) ^ s.last().copied().unwrap_or(11);
        let len = s.len() as u32 + s.is_empty() as u32 * 10;
        if let Some(m) = a.get_mut(n) {
            *m = m.wrapping_add(1);
        }
        g ^ f.rotate_left(4) ^ len << 28 ^ sum_slice(&a)
    }
    /// split_at and split_at_mut with a runtime midpoint.
    slice_split_at(Exact) |x| -> u32 {
        let mut a = [
            x as u32,
            (x >> 8) as u32,
            (x >> 16) as u32,
            (x >> 24) as u32,
            9,
            10,
        ];
        let mid = (x >> 40) as usize % 7;
        let (l, r) = a.split_at(mid);
        let d = sum_slice(l) ^ sum_slice(r).rotate_left(16) ^ (l.len() * 10 + r.len()) as u32;
        let (lm, rm) = a.split_at_mut(mid);
        scale(lm, 3);
        scale(rm, 5);
        d ^ sum_slice(&a)
    }
    /// chunks and chunks_exact over a local array.
    slice_chunks(Exact) |x| -> u64 {
        let a = x.to_le_bytes();
        let size = (x >> 61) as usize + 1;
        let mut acc = 0u64;
        for c in a.chunks(size) {
            acc = acc * 31 + c.iter().map(|&b| b as u64).sum::<u64>() + c.len() as u64;
        }
        let exact = a.chunks_exact(3);
        let rem = exact.remainder().len() as u64;
        acc ^ rem << 60 ^ exact.map(|c| c[0] as u64).sum::<u64>() << 40
    }
    /// windows over a local array.
    slice_windows(Exact) |x| -> u32 {
        let a = [
            x as u8,
            (x >> 8) as u8,
            (x >> 16) as u8,
            (x >> 24) as u8,
            (x >> 32) as u8,
        ];
        let rises = a.windows(2).filter(|w| w[0] < w[1]).count() as u32;
        let best = a
            .windows(3)
            .map(|w| w[0] as u32 + w[1] as u32 + w[2] as u32)
            .max()
            .unwrap_or(0);
        rises << 16 | best
    }
    /// Sub-slicing with constant and runtime ranges: `&a[1..3]`, `&a[i..]`, `&a[..=j]`.
    slice_subslice(Exact) |x| -> u32 {
        let a = [
            x as u32,
            (x >> 4) as u32,
            (x >> 8) as u32,
            (x >> 12) as u32,
            (x >> 16) as u32,
        ];
        let i = (x >> 32) as usize % 5;
        let j = (x >> 40) as usize % 5;
        let mid = &a[1..3];
        let tail = &a[i..];
        let head = &a[..=j];
        let inner = &tail[..tail.len().min(2)];
        sum_slice(mid)
            ^ sum_slice(tail).rotate_left(5)
            ^ sum_slice(head).rotate_left(10)
            ^ sum_slice(inner)
            ^ (head.len() + tail.len()) as u32
    }
    /// iter().position(), contains and rposition on a sorted local array.
    slice_position_contains(Exact) |x| -> u32 {
        let a = [1u16, 4, 9, 16, 25, 36, 49, 64];
        let v = (x % 70) as u16;
        let pos = a.iter().position(|&e| e >= v).map_or(100, |p| p as u32);
        let has = a.contains(&v) as u32;
        let rpos = a
            .iter()
            .rposition(|&e| e % 3 == v % 3)
            .map_or(15, |p| p as u32);
        pos | has << 8 | rpos << 9
    }
    /// copy_from_slice into a runtime sub-range.
    slice_copy_from_slice(Exact) |x| -> u64 {
        let mut a = [1u32; 8];
        let src = [x as u32, (x >> 8) as u32, (x >> 16) as u32, 4];
        let at = (x >> 40) as usize % 5;
        a[at..at + 4].copy_from_slice(&src);
        a.iter().fold(0u64, |s, &v| s.rotate_left(8) ^ v as u64)
    }
    /// iter_mut zipped with a reversed iter: a reversed copy written through `&mut`.
    slice_iter_mut_rev(Exact) |x| -> u64 {
        let a = x.to_be_bytes();
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(a.iter().rev()) {
            *d = s.wrapping_add(1);
        }
        for v in b[..4].iter_mut() {
            *v ^= 0x5a;
        }
        u64::from_le_bytes(b)
    }
    /// A 64 KiB local array (a nested repeat: one repeat is at most 256 elements) and no
    /// recursion: ptxas knows the frame, and the driver gives each thread that much stack.
    /// With a recursive helper the same frame ran past the stack on the H200 (tests/ui/
    /// recursion_direct.rs is warned about).
    local_array_64k(Exact) |x| -> u64 {
        let mut table = [[0u32; 128]; 128];
        for (k, row) in table.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = (x as u32).wrapping_mul((k * 128 + j) as u32 + 1) ^ (x >> 32) as u32;
            }
        }
        let (a, b) = ((x % 16384) as usize, ((x >> 20) % 16384) as usize);
        u64::from(table[a / 128][a % 128]) << 32 | u64::from(table[b % 128][b / 128])
    }
}
