//! Expressions: every generated expression is well typed by construction and cannot panic (indices
//! are reduced modulo the array length, divisors are or-ed with 1, signed division wraps).

use crate::generator::{Gen, VTy};
use crate::ty::{self, Ty};

impl Gen {
    /// An expression of type `ty`, at most `depth` operators deep.
    pub fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.rng.chance(22) {
            return self.leaf(ty);
        }
        let scope = self.vars.len();
        let e = self.compound(ty, depth);
        self.note_expr(scope, ty, &e);
        e
    }

    /// An expression of type `ty` with at least one operator (unless none applies).
    fn compound(&mut self, ty: Ty, depth: u32) -> String {
        // Shared forms first: control flow, calls and aggregates produce any type.
        match self.rng.below(100) {
            0..=5 => return self.if_expr(ty, depth),
            6..=8 => {
                if let Some(e) = self.enum_match(ty, depth) {
                    return e;
                }
            }
            9..=15 => {
                if let Some(e) = self.aggregate_read(ty, depth) {
                    return e;
                }
            }
            16..=20 => return self.call(ty, depth),
            21..=23 if ty != Ty::Bool => return self.generic_call(ty, depth),
            24..=27 if ty.is_int() || ty.is_float() => return self.cast_to(ty, depth),
            28..=29 if ty.is_int() => return self.int_match(ty, depth),
            _ => {}
        }
        match ty {
            Ty::Bool => self.bool_expr(depth),
            Ty::F32 | Ty::F64 => self.float_expr(ty, depth),
            _ => self.int_expr(ty, depth),
        }
    }

    /// A variable of type `ty` in scope, else a literal.
    pub fn leaf(&mut self, ty: Ty) -> String {
        let names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.ty == VTy::S(ty))
            .map(|v| v.name.clone())
            .collect();
        let others: Vec<(String, Ty)> = self
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                VTy::S(t) if t != ty && t != Ty::Bool => Some((v.name.clone(), t)),
                _ => None,
            })
            .collect();
        if !names.is_empty() && self.rng.chance(80) {
            self.rng.pick(&names).clone()
        } else if !others.is_empty() && self.rng.chance(70) {
            // Data-dependent values keep the optimiser from folding the program to a constant.
            let (v, from) = self.rng.pick(&others).clone();
            if ty == Ty::Bool {
                let lit = from.literal(&mut self.rng);
                format!("({v} < {lit})")
            } else {
                self.cov(cast_label(from, ty));
                format!("({v} as {})", ty.name())
            }
        } else {
            self.cov("literal");
            ty.literal(&mut self.rng)
        }
    }

    fn if_expr(&mut self, ty: Ty, depth: u32) -> String {
        self.cov("if expression");
        let c = self.expr(Ty::Bool, depth - 1);
        let a = self.expr(ty, depth - 1);
        let b = self.expr(ty, depth - 1);
        format!("(if {c} {{ {a} }} else {{ {b} }})")
    }

    /// `as` from another scalar type (floats to ints saturate, bools become 0/1).
    fn cast_to(&mut self, ty: Ty, depth: u32) -> String {
        let from = *self.rng.pick(&ty::ALL);
        if from == Ty::Bool && ty.is_float() {
            let e = self.expr(Ty::Bool, depth - 1);
            self.cov("cast bool as int");
            return format!("(({e}) as u8 as {})", ty.name());
        }
        self.cov(cast_label(from, ty));
        if from.bits() == 128 || ty.bits() == 128 {
            self.cov("128-bit cast");
        }
        let e = self.expr(from, depth - 1);
        format!("(({e}) as {})", ty.name())
    }

    fn int_match(&mut self, ty: Ty, depth: u32) -> String {
        let scrut_ty = *self.rng.pick(&ty::INTS);
        let s = self.expr(scrut_ty, depth - 1);
        let (a, b, c) = (
            self.expr(ty, depth - 1),
            self.expr(ty, depth - 1),
            self.expr(ty, depth - 1),
        );
        let t = scrut_ty.name();
        if self.rng.chance(50) {
            self.cov("match on int (range patterns)");
            let low = if scrut_ty.is_signed() {
                format!("{t}::MIN..=-1")
            } else {
                format!("200..={t}::MAX")
            };
            format!("(match {s} {{ {low} => {a}, 0..=9 => {b}, _ => {c} }})")
        } else {
            self.cov("match on int (or patterns)");
            format!("(match ({s}) as u8 % 4 {{ 0 => {a}, 1 | 2 => {b}, _ => {c} }})")
        }
    }

    fn int_expr(&mut self, ty: Ty, depth: u32) -> String {
        let t = ty.name();
        let d = depth - 1;
        let bits = ty.bits();
        let signed = ty.is_signed();
        match self.rng.below(20) {
            0 => {
                let op = *self
                    .rng
                    .pick(&["wrapping_add", "wrapping_sub", "wrapping_mul"]);
                self.cov("wrapping arithmetic");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b})")
            }
            1 => {
                // Release builds wrap; the campaign builds release.
                let op = *self.rng.pick(&["+", "-", "*"]);
                self.cov("plain + - * (wrapping in release)");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a} {op} {b})")
            }
            2 | 3 => {
                let op = *self.rng.pick(&["&", "|", "^"]);
                self.cov("bit operators");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a} {op} {b})")
            }
            4 => {
                self.cov("not");
                let a = self.expr(ty, d);
                format!("(!{a})")
            }
            5 | 6 => {
                let a = self.expr(ty, d);
                let s = self.expr(Ty::U32, d);
                self.cov("shifts and rotates");
                match self.rng.below(6) {
                    0 => format!("({a} << (({s}) & {}))", bits - 1),
                    1 => format!("({a} >> (({s}) & {}))", bits - 1),
                    2 => format!("{a}.wrapping_shl({s})"),
                    3 => format!("{a}.wrapping_shr({s})"),
                    4 => format!("{a}.rotate_left({s})"),
                    _ => format!("{a}.rotate_right({s})"),
                }
            }
            7 => {
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                self.cov("division and remainder");
                match (signed, self.rng.below(4)) {
                    (false, 0) => format!("({a} / ({b} | 1))"),
                    (false, 1) => format!("({a} % ({b} | 1))"),
                    (_, 2) => format!(
                        "{a}.checked_div({b}).unwrap_or({})",
                        ty.literal(&mut self.rng)
                    ),
                    (_, 3) => format!(
                        "{a}.checked_rem({b}).unwrap_or({})",
                        ty.literal(&mut self.rng)
                    ),
                    (_, 0) => format!("{a}.wrapping_div({b} | 1)"),
                    _ => format!("{a}.wrapping_rem_euclid({b} | 1)"),
                }
            }
            8 => {
                let op = *self
                    .rng
                    .pick(&["saturating_add", "saturating_sub", "saturating_mul"]);
                self.cov("saturating arithmetic");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b})")
            }
            9 => {
                let op = *self
                    .rng
                    .pick(&["checked_add", "checked_sub", "checked_mul"]);
                self.cov("checked arithmetic");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                let fallback = self.expr(ty, d);
                if self.rng.chance(50) {
                    format!("{a}.{op}({b}).unwrap_or({fallback})")
                } else {
                    let v = self.fresh();
                    format!("(match {a}.{op}({b}) {{ Some({v}) => {v}, None => {fallback} }})")
                }
            }
            10 => {
                let op = *self
                    .rng
                    .pick(&["overflowing_add", "overflowing_sub", "overflowing_mul"]);
                self.cov("overflowing arithmetic");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                if self.rng.chance(50) {
                    format!("{a}.{op}({b}).0")
                } else {
                    format!("({a}.{op}({b}).1 as {t})")
                }
            }
            11 => {
                let op = *self.rng.pick(&[
                    "count_ones",
                    "count_zeros",
                    "leading_zeros",
                    "trailing_zeros",
                ]);
                self.cov("bit counting");
                let a = self.expr(ty, d);
                format!("({a}.{op}() as {t})")
            }
            12 => {
                let op = *self.rng.pick(&["swap_bytes", "reverse_bits"]);
                self.cov("swap_bytes/reverse_bits");
                let a = self.expr(ty, d);
                format!("{a}.{op}()")
            }
            13 => {
                let op = *self.rng.pick(&["min", "max"]);
                self.cov("int min/max");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{a}.{op}({b})")
            }
            14 if signed => {
                let op = *self.rng.pick(&["wrapping_neg", "wrapping_abs", "signum"]);
                self.cov("signed unary (wrapping_neg, wrapping_abs, signum)");
                let a = self.expr(ty, d);
                format!("{a}.{op}()")
            }
            15 => {
                self.cov("wrapping_pow");
                let a = self.expr(ty, d);
                let n = self.expr(Ty::U32, d);
                format!("{a}.wrapping_pow(({n}) & 7)")
            }
            16 => {
                self.cov("abs_diff");
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a}.abs_diff({b}) as {t})")
            }
            17 if matches!(ty, Ty::U32 | Ty::U64) => {
                self.cov("to_bits of a float (NaN canonicalised)");
                let (f, helper) = if ty == Ty::U32 {
                    (Ty::F32, "fbits32")
                } else {
                    (Ty::F64, "fbits64")
                };
                let e = self.expr(f, d);
                format!("{helper}({e})")
            }
            _ => {
                self.cov("block expression with let");
                let v = self.fresh();
                let a = self.expr(ty, d);
                self.push(&v, VTy::S(ty), false);
                let b = self.expr(ty, d);
                self.pop_to(self.vars.len() - 1);
                format!("({{ let {v}: {t} = {a}; {v}.wrapping_mul(3) ^ {b} }})")
            }
        }
    }

    fn float_expr(&mut self, ty: Ty, depth: u32) -> String {
        let t = ty.name();
        let d = depth - 1;
        match self.rng.below(10) {
            0..=3 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                self.cov(if op == "%" {
                    "float % (exact fmod)"
                } else {
                    "float + - * /"
                });
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a} {op} {b})")
            }
            4 => {
                self.cov("float neg");
                let a = self.expr(ty, d);
                format!("(-{a})")
            }
            5 => {
                self.cov("mul_add");
                let (a, b, c) = (self.expr(ty, d), self.expr(ty, d), self.expr(ty, d));
                format!("{a}.mul_add({b}, {c})")
            }
            6 | 7 => {
                let op = *self
                    .rng
                    .pick(&["sqrt", "abs", "floor", "ceil", "trunc", "round"]);
                self.cov("float sqrt/abs/floor/ceil/trunc/round");
                let a = self.expr(ty, d);
                format!("{a}.{op}()")
            }
            8 => {
                self.cov("from_bits");
                let (u, bits) = if ty == Ty::F32 {
                    (Ty::U32, "u32")
                } else {
                    (Ty::U64, "u64")
                };
                let e = self.expr(u, d);
                format!("{t}::from_bits(({e}) as {bits})")
            }
            _ => self.cast_to(ty, depth),
        }
    }

    fn bool_expr(&mut self, depth: u32) -> String {
        let d = depth - 1;
        match self.rng.below(8) {
            0..=2 => {
                let ty = *self.rng.pick(&ty::ALL[..14]);
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                self.cov(if ty.is_float() {
                    "float comparison"
                } else {
                    "int comparison"
                });
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({a} {op} {b})")
            }
            3 => {
                self.cov("bool logic");
                let a = self.expr(Ty::Bool, d);
                format!("(!{a})")
            }
            4 | 5 => {
                let op = *self.rng.pick(&["&&", "||", "^", "&", "|", "=="]);
                self.cov("bool logic");
                let (a, b) = (self.expr(Ty::Bool, d), self.expr(Ty::Bool, d));
                format!("({a} {op} {b})")
            }
            6 => {
                let f = *self.rng.pick(&[Ty::F32, Ty::F64]);
                let op = *self.rng.pick(&["is_nan", "is_finite", "is_infinite"]);
                self.cov("float classification");
                let a = self.expr(f, d);
                format!("{a}.{op}()")
            }
            _ => {
                let u = *self
                    .rng
                    .pick(&[Ty::U8, Ty::U16, Ty::U32, Ty::U64, Ty::U128]);
                self.cov("is_power_of_two");
                let a = self.expr(u, d);
                format!("{a}.is_power_of_two()")
            }
        }
    }

    /// A read of an element of type `ty` out of an array, struct, tuple or `Option` in scope.
    fn aggregate_read(&mut self, ty: Ty, depth: u32) -> Option<String> {
        let mut reads = Vec::new();
        for v in &self.vars {
            match &v.ty {
                VTy::Arr(e, len) if *e == ty => reads.push((0, v.name.clone(), *len)),
                VTy::Tuple(ts) => {
                    for (i, t) in ts.iter().enumerate() {
                        if *t == ty {
                            reads.push((1, format!("{}.{i}", v.name), 0));
                        }
                    }
                }
                VTy::Struct(s) => {
                    let def = &self.structs[*s];
                    for (i, f) in def.fields.iter().enumerate() {
                        if *f == ty {
                            reads.push((2, format!("{}.f{i}", v.name), 0));
                        }
                    }
                    if def.arr.0 == ty {
                        reads.push((0, format!("{}.arr", v.name), def.arr.1));
                    }
                }
                VTy::Opt(t) if *t == ty => reads.push((3, v.name.clone(), 0)),
                _ => {}
            }
        }
        if reads.is_empty() {
            return None;
        }
        let (kind, path, len) = self.rng.pick(&reads).clone();
        Some(match kind {
            0 => {
                self.cov("array index (reduced modulo length)");
                let i = self.expr(Ty::Usize, depth - 1);
                format!("{path}[({i}) % {len}]")
            }
            1 => {
                self.cov("tuple field");
                path
            }
            2 => {
                self.cov("struct field");
                path
            }
            _ => {
                self.cov("Option read");
                let other = self.expr(ty, depth - 1);
                if self.rng.chance(50) {
                    format!("{path}.unwrap_or({other})")
                } else {
                    let v = self.fresh();
                    format!("(if let Some({v}) = {path} {{ {v} }} else {{ {other} }})")
                }
            }
        })
    }

    /// A `match` over an enum variable in scope, each arm producing a `ty`.
    fn enum_match(&mut self, ty: Ty, depth: u32) -> Option<String> {
        let enums: Vec<(String, usize)> = self
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                VTy::Enum(e) => Some((v.name.clone(), e)),
                _ => None,
            })
            .collect();
        if enums.is_empty() {
            return None;
        }
        self.cov("match on enum");
        let (name, e) = self.rng.pick(&enums).clone();
        let def = self.enums[e].clone();
        let mark = self.vars.len();
        let (p, x, y) = (self.fresh(), self.fresh(), self.fresh());
        self.push(&p, VTy::S(def.a), false);
        let arm_a = self.expr(ty, depth - 1);
        self.pop_to(mark);
        self.push(&x, VTy::S(def.bx), false);
        self.push(&y, VTy::S(def.by), false);
        let arm_b = self.expr(ty, depth - 1);
        self.pop_to(mark);
        let arm_c = self.expr(ty, depth - 1);
        let en = &def.name;
        Some(format!(
            "(match {name} {{ {en}::A({p}) => {arm_a}, {en}::B {{ x: {x}, y: {y} }} => {arm_b}, {en}::C => {arm_c} }})"
        ))
    }

    /// A call of the common generic functions (`gsel`, `gmix`, `garr`) at type `ty`.
    fn generic_call(&mut self, ty: Ty, depth: u32) -> String {
        let d = depth - 1;
        let t = ty.name();
        match self.rng.below(3) {
            0 => {
                self.cov("generic call (gsel<T>)");
                let (c, a, b) = (self.expr(Ty::Bool, d), self.expr(ty, d), self.expr(ty, d));
                format!("gsel::<{t}>({c}, {a}, {b})")
            }
            1 => {
                self.cov("generic call with trait bound (gmix<T: Mix>)");
                let (a, b, n) = (self.expr(ty, d), self.expr(ty, d), self.expr(Ty::U32, d));
                format!("gmix::<{t}>({a}, {b}, {n})")
            }
            _ => {
                self.cov("generic call with const generic array (garr<T, N>)");
                let (a, b, c) = (self.expr(ty, d), self.expr(ty, d), self.expr(ty, d));
                let i = self.expr(Ty::Usize, d);
                format!("garr::<{t}, 3>([{a}, {b}, {c}], {i})")
            }
        }
    }
}

fn cast_label(from: Ty, to: Ty) -> &'static str {
    match (from.is_float(), to.is_float()) {
        _ if from == Ty::Bool => "cast bool as int",
        (false, false) => "cast int as int",
        (false, true) => "cast int as float",
        (true, false) => "cast float as int",
        (true, true) => "cast float as float",
    }
}
