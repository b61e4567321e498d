//! Abstraction: generic functions at several types, const generics, traits with static dispatch
//! (default methods, associated types and consts, operator overloading), closures, bounded
//! recursion, and `core` helpers (min, max, clamp, float methods).

#![allow(
    clippy::unnecessary_cast,
    clippy::needless_range_loop,
    clippy::manual_clamp
)]

use core::ops::{Add, AddAssign, Index, Mul, Neg, Sub};

use crate::harness::Check::{Exact, Ulp};

fn largest<T: PartialOrd + Copy>(a: &[T]) -> T {
    let mut m = a[0];
    for &v in a {
        if v > m {
            m = v;
        }
    }
    m
}

fn widen_sum<T: Copy + Into<u64>>(a: &[T]) -> u64 {
    a.iter().map(|&v| v.into()).sum()
}

fn sum<const N: usize>(a: [u32; N]) -> u32 {
    let mut s = 0u32;
    for i in 0..N {
        s = s.wrapping_add(a[i]);
    }
    s.wrapping_mul(N as u32)
}

struct Stack<T: Copy, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy + Default, const N: usize> Stack<T, N> {
    fn new() -> Self {
        Stack {
            items: [T::default(); N],
            len: 0,
        }
    }
    fn push(&mut self, v: T) -> bool {
        if self.len == N {
            return false;
        }
        self.items[self.len] = v;
        self.len += 1;
        true
    }
    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            None
        } else {
            self.len -= 1;
            Some(self.items[self.len])
        }
    }
}

trait Area {
    const SIDES: u32;
    fn area(&self) -> u32;
    fn describe(&self) -> u32 {
        self.area() * 10 + Self::SIDES
    }
}

struct Square(u32);
struct Tri {
    b: u32,
    h: u32,
}

impl Area for Square {
    const SIDES: u32 = 4;
    fn area(&self) -> u32 {
        self.0 * self.0
    }
}

impl Area for Tri {
    const SIDES: u32 = 3;
    fn area(&self) -> u32 {
        self.b * self.h / 2
    }
    fn describe(&self) -> u32 {
        self.area() + 7
    }
}

fn total<A: Area, B: Area>(a: &A, b: &B) -> u32 {
    a.describe() + b.describe() * 3
}

trait Scale {
    type Out;
    fn scale(self, k: u8) -> Self::Out;
}

impl Scale for u8 {
    type Out = u16;
    fn scale(self, k: u8) -> u16 {
        self as u16 * k as u16
    }
}

impl Scale for i16 {
    type Out = i32;
    fn scale(self, k: u8) -> i32 {
        self as i32 * k as i32
    }
}

fn scaled<S: Scale>(s: S, k: u8) -> S::Out {
    s.scale(k)
}

#[derive(Clone, Copy, PartialEq, Debug)]
struct V3 {
    x: i32,
    y: i32,
    z: i32,
}

impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl Mul<i32> for V3 {
    type Output = V3;
    fn mul(self, k: i32) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

impl Neg for V3 {
    type Output = V3;
    fn neg(self) -> V3 {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

impl AddAssign for V3 {
    fn add_assign(&mut self, o: V3) {
        *self = *self + o;
    }
}

impl Index<usize> for V3 {
    type Output = i32;
    fn index(&self, i: usize) -> &i32 {
        match i {
            0 => &self.x,
            1 => &self.y,
            _ => &self.z,
        }
    }
}

fn apply<F: Fn(u32) -> u32>(f: F, v: u32) -> u32 {
    f(f(v))
}

fn apply_mut<F: FnMut(u32)>(mut f: F, n: u32) {
    for i in 0..n {
        f(i);
    }
}

fn consume<F: FnOnce() -> [u32; 3]>(f: F) -> u32 {
    let a = f();
    a[0] ^ a[1] ^ a[2]
}

fn adder(k: u32) -> impl Fn(u32) -> u32 {
    move |v| v.wrapping_add(k)
}

fn evens(limit: u32) -> impl Iterator<Item = u32> {
    (0..limit).filter(|v| v % 2 == 0)
}

struct Countdown(u32);

impl Iterator for Countdown {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            self.0 -= 1;
            Some(self.0)
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn fib(n: u32) -> u32 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn ackermann_small(m: u32, n: u32) -> u32 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => ackermann_small(m - 1, 1),
        (m, n) => ackermann_small(m - 1, ackermann_small(m, n - 1)),
    }
}

map_cases! {
    /// A generic function instantiated at u8, i64 and u32, and one bounded by Into<u64>.
    generic_fn_types(Exact) |x| -> u64 {
        let a = largest(&[x as u8, (x >> 8) as u8, (x >> 16) as u8]) as u64;
        let b = largest(&[x as i64, x.rotate_left(7) as i64]) as u64;
        let c = largest(&[(x >> 3) as u32, 5]) as u64;
        a ^ b ^ c << 8 ^ widen_sum(&[x as u16, (x >> 16) as u16]) ^ widen_sum(&[x as u8])
    }
    /// Const generics: one function at N = 1, 3, 8 and a const-generic struct.
    const_generic_sum(Exact) |x| -> u32 {
        let mut st: Stack<u32, 4> = Stack::new();
        let mut pushed = 0;
        for i in 0..(x % 7) as u32 {
            pushed += st.push(i * 3 + x as u32 % 5) as u32;
        }
        let top = st.pop().unwrap_or(100);
        sum([x as u32])
            ^ sum([1, 2, (x >> 32) as u32])
            ^ sum([x as u8 as u32; 8])
            ^ pushed << 24
            ^ top << 16
    }
    /// Traits with static dispatch: default and overridden methods, associated consts.
    trait_static_dispatch(Exact) |x| -> u32 {
        let s = Square(x as u32 % 1000);
        let t = Tri {
            b: (x >> 16) as u32 % 1000,
            h: (x >> 32) as u32 % 1000,
        };
        total(&s, &t) ^ total(&t, &t) << 1 ^ Square::SIDES << 28
    }
    /// A trait with an associated type, implemented for u8 and i16.
    trait_associated_type(Exact) |x| -> i64 {
        let k = (x >> 40) as u8;
        scaled(x as u8, k) as i64 + scaled((x >> 8) as i16, k) as i64 * 100_000
    }
    /// Operator overloading: Add, Sub, Mul<i32>, Neg, AddAssign, Index on a vector struct.
    operator_overloading(Exact) |x| -> i32 {
        let a = V3 {
            x: x as i16 as i32,
            y: (x >> 16) as i16 as i32,
            z: (x >> 32) as i16 as i32,
        };
        let b = V3 {
            x: 3,
            y: -7,
            z: (x >> 48) as i8 as i32,
        };
        let mut c = (a + b) * 3 - -a;
        c += b;
        c[0] ^ c[1] << 3 ^ c[2] << 6 ^ (c == a) as i32
    }
    /// Closures capturing by reference and by move, passed to generic helpers.
    closure_capture(Exact) |x| -> u32 {
        let k = x as u32 % 100;
        let table = [3u32, 5, 7, 11];
        let by_ref = |v: u32| v.wrapping_mul(table[(v % 4) as usize]).wrapping_add(k);
        let by_move = move |v: u32| v ^ k.rotate_left(3);
        let r = apply(by_ref, (x >> 32) as u32);
        let m = apply(by_move, x as u32);
        r ^ m.rotate_left(7) ^ table[1]
    }
    /// FnMut closures mutating captured state, FnOnce moving an array out.
    closure_fnmut_fnonce(Exact) |x| -> u32 {
        let mut acc = x as u32;
        let mut calls = 0u32;
        apply_mut(
            |i| {
                acc = acc.rotate_left(i) ^ i;
                calls += 1;
            },
            (x >> 60) as u32 + 1,
        );
        let arr = [acc, calls, (x >> 32) as u32];
        consume(move || arr) ^ calls << 24
    }
    /// Functions returning `impl Fn` and `impl Iterator`, and a custom Iterator.
    impl_trait_iterators(Exact) |x| -> u32 {
        let add = adder(x as u32);
        let e: u32 = evens((x >> 32) as u32 % 50).sum();
        let c: u32 = Countdown((x % 20) as u32).map(|v| v * v).take(7).sum();
        add(e) ^ c << 16 ^ Countdown(4).count() as u32
    }
    /// Bounded recursion: gcd, Fibonacci and a tiny Ackermann.
    recursion(Exact) |x| -> u64 {
        let g = gcd(x, x.rotate_left(13) | 1);
        let f = fib((x % 16) as u32) as u64;
        let a = ackermann_small((x % 3) as u32, (x >> 2) as u32 % 4) as u64;
        g ^ f << 40 ^ a << 56
    }
    /// Integer min and max (Ord and core::cmp), abs.
    core_int_min_max(Exact) |x| -> i64 {
        let (a, b) = (x as i32, (x >> 32) as i32);
        let lo = a.min(b);
        let hi = core::cmp::max(a, b);
        let c = (x as i64).max(-1000).min(1_000_000);
        let d = (x as u8).max(10).min(200) as i64;
        let e = if lo == i32::MIN { 0 } else { lo.abs() };
        lo as i64 ^ (hi as i64) << 20 ^ c ^ d << 50 ^ e as i64 ^ core::cmp::min(x, 77) as i64
    }
    /// f32::mul_add (one rounding on both sides).
    float_mul_add(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = (x >> 40) as f32;
        a.mul_add(b, -0.5)
    }
    /// f32::sqrt (correctly rounded).
    float_f32_sqrt(Ulp(0)) |x| -> f32 {
        f32::from_bits(x as u32).sqrt()
    }
    /// f64::sqrt (correctly rounded).
    float_f64_sqrt(Ulp(0)) |x| -> f64 {
        f64::from_bits(x).sqrt()
    }
    /// f32 floor, ceil, trunc and round.
    float_rounding(Ulp(0)) |x| -> f32 {
        let a = f32::from_bits(x as u32);
        let b = ((x >> 32) as i32) as f32 / 256.0;
        a.floor() + b.ceil() * 2.0 - b.trunc() + b.round() / 4.0
    }
    /// A plain (non-generic, non-inline) function of another crate.
    other_crate_plain_fn(Exact) |x| -> u64 {
        conformance_helpers::mix(x) ^ conformance_helpers::mix(x >> 7)
    }
    /// A generic function of another crate, with a closure made here.
    other_crate_generic_fn(Exact) |x| -> u32 {
        conformance_helpers::fold_with(x, 7u32, |acc, b| acc.wrapping_mul(31).wrapping_add(b as u32))
    }
    /// A struct and its method from another crate.
    other_crate_method(Exact) |x| -> u32 {
        let w = conformance_helpers::Window { low: 100, high: 60_000 };
        w.clamp(x as u32 % 70_000)
    }
}
