//! Data: structs, tuples, arrays, nested aggregates, enums with payloads, Option/Result
//! (niche layouts included), unions, and `#[repr(C)]` / `#[repr(transparent)]` /
//! `#[repr(align(16))]` types.

#![allow(
    clippy::unnecessary_cast,
    clippy::manual_swap,
    clippy::manual_is_multiple_of
)]

use core::mem::{align_of, size_of};
use core::num::NonZeroU32;

use crate::harness::Check::Exact;

#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Point {
    x: i32,
    y: i32,
}

impl Point {
    fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }
    fn manhattan(self) -> u32 {
        self.x.unsigned_abs() + self.y.unsigned_abs()
    }
    fn mirror(&mut self) {
        let t = self.x;
        self.x = self.y;
        self.y = t;
    }
}

#[derive(Clone, Copy)]
struct Particle {
    pos: Point,
    vel: (i16, i16),
    tags: [u8; 3],
}

#[derive(Clone, Copy)]
struct Grid {
    cells: [Particle; 3],
    count: u8,
}

#[derive(Clone, Copy)]
enum Shape {
    Empty,
    Circle(u32),
    Rect { w: u16, h: u16 },
    Tri(u8, u8, u8),
}

impl Shape {
    fn area(&self) -> u32 {
        match *self {
            Shape::Empty => 0,
            Shape::Circle(r) => 3 * r * r,
            Shape::Rect { w, h } => w as u32 * h as u32,
            Shape::Tri(a, b, _) => a as u32 * b as u32 / 2,
        }
    }
}

#[derive(Debug)]
enum ParseError {
    TooBig(u32),
    Odd,
}

fn parse(v: u32) -> Result<u32, ParseError> {
    if v > 1_000_000 {
        return Err(ParseError::TooBig(v));
    }
    if v % 2 == 1 {
        Err(ParseError::Odd)
    } else {
        Ok(v / 2)
    }
}

fn parse_both(a: u32, b: u32) -> Result<u32, ParseError> {
    let x = parse(a)?;
    let y = parse(b)?;
    Ok(x + y)
}

#[repr(C)]
union Bits32 {
    u: u32,
    f: f32,
    b: [u8; 4],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Header {
    tag: u8,
    len: u32,
    flag: u16,
    wide: u64,
}

#[repr(transparent)]
#[derive(Clone, Copy)]
struct Meters(u32);

#[repr(align(16))]
#[derive(Clone, Copy)]
struct Aligned {
    v: [u32; 3],
}

#[repr(u8)]
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Low = 3,
    Mid = 40,
    High = 200,
}

#[repr(i16)]
#[derive(Clone, Copy)]
enum Signed {
    Neg = -300,
    Zero = 0,
    Pos = 1000,
}

map_cases! {
    /// Struct fields, methods by value and by `&mut self`, derive(PartialEq, Default).
    struct_fields_methods(Exact) |x| -> u32 {
        let mut p = Point::new(x as i16 as i32, (x >> 16) as i16 as i32);
        let m = p.manhattan();
        p.mirror();
        let q = Point { y: 5, ..p };
        let d = Point::default();
        m ^ (p.x as u32) << 3
            ^ (q == p) as u32
            ^ ((d == Point::new(0, 0)) as u32) << 31
            ^ q.y as u32
    }
    /// Tuples: nesting, destructuring, field access, tuples returned by helpers.
    tuple_nested(Exact) |x| -> u64 {
        let t = (
            (x as u8, (x >> 8) as u16),
            ((x >> 24) as i32, (true, x >> 56)),
        );
        let ((a, b), (c, (d, e))) = t;
        let swap = |p: (u8, u16)| (p.1, p.0);
        let (f, g) = swap(t.0);
        a as u64
            + b as u64
            + (c as i64 as u64 & 0xffff)
            + d as u64
            + e
            + (f as u64) * 3
            + (g as u64) * 5
            + (t.1).1.1
    }
    /// Arrays: `[x; N]`, runtime indexing, assignment through an index, iteration.
    array_repeat_index(Exact) |x| -> u32 {
        let mut a = [x as u32 & 0xff; 8];
        let i = (x >> 8) as usize % 8;
        a[i] = 1000;
        a[(i + 3) % 8] += 7;
        for (k, v) in a.iter_mut().enumerate() {
            *v = v.wrapping_mul(k as u32 + 1);
        }
        let s: u32 = a.iter().sum();
        s ^ a[(x >> 16) as usize % 8] << 16
    }
    /// 2-D arrays: transpose and row sums of a 4x4 matrix.
    array_2d_matrix(Exact) |x| -> u64 {
        let mut m = [[0u16; 4]; 4];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = (x >> ((r * 4 + c) * 4)) as u16 & 0xf;
            }
        }
        let mut t = [[0u16; 4]; 4];
        for r in 0..4 {
            for c in 0..4 {
                t[c][r] = m[r][c] * (r as u16 + 1);
            }
        }
        t.iter()
            .enumerate()
            .map(|(i, row)| row.iter().map(|&v| v as u64).sum::<u64>() << (i * 8))
            .sum()
    }
    /// Nested aggregates: an array of structs holding a struct, a tuple and an array.
    nested_aggregates(Exact) |x| -> u32 {
        let p = |k: u64| Particle {
            pos: Point::new((x >> k) as i8 as i32, k as i32),
            vel: ((x >> (k + 8)) as i16, -(k as i16)),
            tags: [k as u8, (x >> k) as u8, 9],
        };
        let mut g = Grid {
            cells: [p(0), p(16), p(32)],
            count: 3,
        };
        g.cells[1].pos.y += g.cells[2].vel.1 as i32;
        g.cells[2].tags[2] = g.count;
        g.cells
            .iter()
            .map(|c| {
                c.pos.manhattan()
                    + c.vel.0 as u16 as u32
                    + c.tags.iter().map(|&t| t as u32).sum::<u32>()
            })
            .sum()
    }
    /// Enums with tuple and struct payloads, matched by reference and by value.
    enum_payloads(Exact) |x| -> u32 {
        let shapes = [
            Shape::Empty,
            Shape::Circle(x as u32 % 1000),
            Shape::Rect {
                w: (x >> 16) as u16,
                h: (x >> 32) as u8 as u16,
            },
            Shape::Tri((x >> 40) as u8, (x >> 48) as u8, 1),
        ];
        let s = &shapes[(x >> 60) as usize % 4];
        let kind = match s {
            Shape::Empty => 1,
            Shape::Circle(r) if *r > 500 => 2,
            Shape::Circle(_) => 3,
            Shape::Rect { w, .. } => 4 + (*w as u32 & 1),
            Shape::Tri(.., c) => 6 + *c as u32,
        };
        shapes.iter().map(Shape::area).fold(kind, u32::wrapping_add)
    }
    /// Option combinators: map, and_then, filter, unwrap_or, zip, xor, take.
    option_combinators(Exact) |x| -> u32 {
        let a = if x & 1 == 1 {
            Some(x as u32 >> 8)
        } else {
            None
        };
        let b = (x as u16).checked_mul(3).map(|v| v as u32);
        let c = a
            .and_then(|v| v.checked_sub(1000))
            .filter(|v| v % 3 != 0)
            .unwrap_or(17);
        let d = a.zip(b).map_or(5, |(p, q)| p ^ q);
        let mut e = a.xor(b);
        let f = e.take().is_some() as u32 + e.is_none() as u32 * 2;
        c ^ d.rotate_left(7) ^ f << 30 ^ b.unwrap_or_default()
    }
    /// Result with `?` in a helper, matching on the error's payload.
    result_question_mark(Exact) |x| -> u32 {
        match parse_both(x as u32 % 2_000_000, (x >> 32) as u32 % 3000) {
            Ok(v) => v,
            Err(ParseError::TooBig(v)) => v % 7 + 1_000_000_000,
            Err(ParseError::Odd) => 2_000_000_000,
        }
    }
    /// Option<&T>: the null-pointer niche, size equal to a pointer.
    option_ref_niche(Exact) |x| -> u64 {
        let a = [x, x >> 8, x >> 16, 5];
        let r: Option<&u64> = if x % 3 == 0 {
            None
        } else {
            a.get((x >> 20) as usize % 6)
        };
        let v = r.copied().unwrap_or(77);
        v ^ (size_of::<Option<&u64>>() == size_of::<&u64>()) as u64 ^ (r.is_some() as u64) << 63
    }
    /// Option<NonZeroU32>: the zero niche.
    option_nonzero_niche(Exact) |x| -> u32 {
        let n = NonZeroU32::new(x as u32 & 0xfff);
        let m = NonZeroU32::new((x >> 32) as u32).map(|v| v.get().trailing_zeros());
        n.map_or(0, |v| v.get() * 2)
            ^ m.unwrap_or(99) << 20
            ^ (size_of::<Option<NonZeroU32>>() as u32) << 28
    }
    /// Option<bool> and Option<char>: niches in invalid bool and char values.
    option_bool_char_niche(Exact) |x| -> u32 {
        let b: Option<bool> = match x % 3 {
            0 => None,
            1 => Some(true),
            _ => Some(false),
        };
        let c: Option<char> = char::from_u32(x as u32 % 0x11_0000);
        let code = match b {
            None => 0,
            Some(true) => 1,
            Some(false) => 2,
        };
        code ^ c.map_or(0x20_0000, |c| c as u32) << 2
            ^ (size_of::<Option<bool>>() + size_of::<Option<char>>()) as u32
    }
    /// A `#[repr(C)]` union: write one field, read another.
    union_repr_c(Exact) |x| -> u32 {
        let mut u = Bits32 { u: x as u32 };
        let b = unsafe { u.b };
        let f = unsafe { u.f };
        u.b = [b[3], b[2], b[1], b[0]];
        (unsafe { u.u }) ^ f.to_bits().rotate_left(3) ^ b[1] as u32
    }
    /// `#[repr(C)]` struct: field order and padding, size and offsets.
    repr_c_layout(Exact) |x| -> u64 {
        let h = Header {
            tag: x as u8,
            len: (x >> 8) as u32,
            flag: (x >> 40) as u16,
            wide: x.rotate_left(7),
        };
        let base = &h as *const Header as usize;
        let off_len = &h.len as *const u32 as usize - base;
        let off_flag = &h.flag as *const u16 as usize - base;
        let off_wide = &h.wide as *const u64 as usize - base;
        let layout = size_of::<Header>() + off_len * 100 + off_flag * 10_000 + off_wide * 1_000_000;
        layout as u64 ^ h.wide ^ h.tag as u64 ^ (h.len as u64) << 8 ^ (h.flag as u64) << 40
    }
    /// `#[repr(transparent)]` newtype: same size and bits as its field.
    repr_transparent(Exact) |x| -> u32 {
        let m = Meters(x as u32);
        let raw: u32 = unsafe { core::mem::transmute::<Meters, u32>(m) };
        let n = Meters(raw.rotate_left(1));
        n.0 ^ (size_of::<Meters>() == 4) as u32
    }
    /// `#[repr(align(16))]`: size and alignment rounded to 16, the address aligned.
    repr_align16(Exact) |x| -> u32 {
        let pair = [
            Aligned {
                v: [x as u32, 1, 2],
            },
            Aligned {
                v: [3, (x >> 32) as u32, 5],
            },
        ];
        let aligned = (&pair[1] as *const Aligned as usize) % 16 == 0;
        let sum = pair
            .iter()
            .map(|a| a.v.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
            .fold(0u32, u32::wrapping_add);
        sum ^ (size_of::<Aligned>() * 100 + align_of::<Aligned>()) as u32 ^ (aligned as u32) << 31
    }
    /// Enums with explicit discriminants and `#[repr(u8)]`/`#[repr(i16)]`, cast with `as`.
    enum_discriminants(Exact) |x| -> i32 {
        let l = match x % 3 {
            0 => Level::Low,
            1 => Level::Mid,
            _ => Level::High,
        };
        let s = match (x >> 2) % 3 {
            0 => Signed::Neg,
            1 => Signed::Zero,
            _ => Signed::Pos,
        };
        l as u8 as i32 * 1000 + s as i16 as i32 + (l == Level::High) as i32
    }
}
