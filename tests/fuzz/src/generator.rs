//! The program generator: from a seed, one module holding a random well-typed kernel, the
//! function it runs per thread (`body(x, y) -> u64`, a checksum of everything it computed), and
//! the structs, enums and helper functions the body uses. The same `body` runs as plain Rust in
//! the batch's harness, so the kernel on the emulator and on the GPU is compared with it.

use std::collections::BTreeSet;

use crate::rng::Rng;
use crate::ty::{self, Ty};

mod parts;
pub use parts::{Parts, Stmt, generate, generate_parts};

/// The type of a variable in scope.
#[derive(Clone, Debug, PartialEq)]
pub enum VTy {
    S(Ty),
    Arr(Ty, usize),
    Struct(usize),
    Enum(usize),
    Tuple(Vec<Ty>),
    Opt(Ty),
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: VTy,
    pub mutable: bool,
}

/// `struct S<n> { f0.., arr: [T; L] }` with a `digest(&self)` and a `bump(&mut self, v)`.
#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Ty>,
    pub arr: (Ty, usize),
}

/// `enum E<n> { A(a), B { x: bx, y: by }, C }`.
#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub a: Ty,
    pub bx: Ty,
    pub by: Ty,
}

#[derive(Clone, Debug)]
pub struct Helper {
    pub name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
}

#[derive(Clone, Copy, PartialEq)]
enum Loop {
    /// `for`: `continue` and `break` are safe.
    For,
    /// `while`/`loop` with a counter: only `break` (a `continue` could skip the increment).
    Counted,
}

pub struct Gen {
    pub rng: Rng,
    pub vars: Vec<Var>,
    pub structs: Vec<StructDef>,
    pub enums: Vec<EnumDef>,
    pub helpers: Vec<Helper>,
    /// Rendered items (structs, enums, helpers), in definition order.
    items: Vec<String>,
    next: usize,
    /// The return type of the function being generated (`u64` for the body).
    ret: Ty,
    in_helper: bool,
    loops: Vec<Loop>,
    /// Constructs this program contains (its coverage).
    pub covered: BTreeSet<&'static str>,
    /// While a top-level statement of the body is generated: its sub-expressions (for cuts).
    recording: Option<Recording>,
    /// The helpers' bodies in parts (for cuts).
    helper_bodies: Vec<HelperBody>,
}

/// A helper function in parts: its item is `head`, the lines of `prelude` and `stmts`, `tail`
/// (the returned expression) and `}`.
#[derive(Clone, Debug)]
pub struct HelperBody {
    pub name: String,
    /// Its index in the program's items.
    pub item: usize,
    /// The attributes and the signature, up to the body's `{` and newline.
    pub head: String,
    /// `acc`.
    pub prelude: Vec<String>,
    /// The parameters.
    pub inputs: Vec<Var>,
    pub stmts: Vec<Stmt>,
    pub tail: String,
    pub ret: Ty,
}

/// The sub-expressions of the top-level statement being generated that read only the variables
/// in scope before it (the first `scope` of `Gen::vars`).
struct Recording {
    scope: usize,
    exprs: Vec<(Ty, String)>,
}

/// `value` of type `ty` as a u64 for the checksum (floats through their NaN-canonical bits).
pub fn to_u64(ty: Ty, value: &str) -> String {
    match ty {
        Ty::F32 => format!("(fbits32({value}) as u64)"),
        Ty::F64 => format!("fbits64({value})"),
        Ty::I128 | Ty::U128 => format!("w128(({value}) as u128)"),
        _ => format!("(({value}) as u64)"),
    }
}

/// A generated program: the module text, its kernel's name and the constructs it covers.
#[derive(Clone, Debug)]
pub struct Program {
    pub index: u64,
    /// The module's name: `p<index>` (a cut: `p<index>_c<k>`, crate::cut).
    pub module_name: String,
    pub kernel: String,
    pub module: String,
    pub covered: BTreeSet<&'static str>,
}

const MAX_HELPERS: usize = 4;
const EXPR_DEPTH: u32 = 3;

impl Gen {
    fn new(seed: u64) -> Self {
        Gen {
            rng: Rng::new(seed),
            vars: Vec::new(),
            structs: Vec::new(),
            enums: Vec::new(),
            helpers: Vec::new(),
            items: Vec::new(),
            next: 0,
            ret: Ty::U64,
            in_helper: false,
            loops: Vec::new(),
            covered: BTreeSet::new(),
            recording: None,
            helper_bodies: Vec::new(),
        }
    }

    pub fn cov(&mut self, what: &'static str) {
        self.covered.insert(what);
    }

    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    pub fn push(&mut self, name: &str, ty: VTy, mutable: bool) {
        self.vars.push(Var {
            name: name.to_owned(),
            ty,
            mutable,
        });
    }

    pub fn pop_to(&mut self, len: usize) {
        self.vars.truncate(len);
    }

    /// `value` of type `ty` as a u64 for the checksum (floats through their NaN-canonical bits).
    pub fn to_u64(&mut self, ty: Ty, value: &str) -> String {
        to_u64(ty, value)
    }

    /// Notes `text`, an expression of type `ty` just generated with `scope` variables in scope,
    /// as a sub-expression of the top-level statement being generated, when it reads only the
    /// variables in scope before that statement (none that the statement itself binds).
    pub(crate) fn note_expr(&mut self, scope: usize, ty: Ty, text: &str) {
        if self.in_helper {
            return;
        }
        if let Some(rec) = &mut self.recording
            && rec.scope == scope
            && !rec.exprs.iter().any(|(t, e)| *t == ty && e == text)
        {
            rec.exprs.push((ty, text.to_owned()));
        }
    }

    fn any_ty(&mut self) -> Ty {
        *self.rng.pick(&ty::ALL)
    }

    fn mutable_scalars(&self) -> Vec<(String, Ty)> {
        self.vars
            .iter()
            .filter_map(|v| match v.ty {
                VTy::S(t) if v.mutable => Some((v.name.clone(), t)),
                _ => None,
            })
            .collect()
    }

    /// A call of a helper returning `ty`: an existing one, or a new one when the body (not a
    /// helper, so there is no recursion) may still define one; else a plain expression.
    pub fn call(&mut self, ty: Ty, depth: u32) -> String {
        let existing: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| h.ret == ty)
            .cloned()
            .collect();
        let helper = if !existing.is_empty() && (self.in_helper || self.rng.chance(60)) {
            self.rng.pick(&existing).clone()
        } else if !self.in_helper && self.helpers.len() < MAX_HELPERS {
            self.define_helper(ty)
        } else {
            return self.leaf(ty);
        };
        self.cov("call of a generated helper");
        let args: Vec<String> = helper
            .params
            .clone()
            .into_iter()
            .map(|p| self.expr(p, depth - 1))
            .collect();
        format!("{}({})", helper.name, args.join(", "))
    }

    fn define_helper(&mut self, ret: Ty) -> Helper {
        let name = format!("h{}", self.helpers.len());
        let params: Vec<Ty> = (0..self.rng.range(1, 3)).map(|_| self.any_ty()).collect();
        let saved_vars = std::mem::take(&mut self.vars);
        let saved_loops = std::mem::take(&mut self.loops);
        let saved_ret = std::mem::replace(&mut self.ret, ret);
        self.in_helper = true;
        let mut sig = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let pname = format!("p{i}");
            sig.push(format!("mut {pname}: {}", p.name()));
            self.push(&pname, VTy::S(*p), true);
        }
        let prelude = vec!["    let mut acc: u64 = 0;".to_owned()];
        let inputs = self.vars.clone();
        let n = self.rng.range(2, 5);
        // One statement at a time (the same draws as `self.stmts(n, 1, ..)`), each kept for cuts.
        let mut stmts = Vec::with_capacity(n);
        for _ in 0..n {
            let mut lines = Vec::new();
            self.stmt(1, &mut lines);
            stmts.push(Stmt {
                lines,
                scope: self.vars.clone(),
                exprs: Vec::new(),
            });
        }
        let mut lines = prelude.clone();
        lines.extend(stmts.iter().flat_map(|s| s.lines.iter().cloned()));
        let result = self.expr(ret, EXPR_DEPTH);
        let tail = if ret.is_int() {
            format!("    {result} ^ (acc as {})", ret.name())
        } else if ret == Ty::Bool {
            format!("    {result} ^ (acc & 1 == 1)")
        } else {
            format!("    {result}")
        };
        let inline = if self.rng.chance(30) {
            self.cov("#[inline(never)] helper");
            "#[inline(never)]\n"
        } else {
            ""
        };
        let head = format!(
            "{inline}#[allow(unused_mut, unused_variables)]\nfn {name}({}) -> {} {{\n",
            sig.join(", "),
            ret.name(),
        );
        let text = format!("{head}{}\n{tail}\n}}\n", lines.join("\n"));
        self.in_helper = false;
        self.vars = saved_vars;
        self.loops = saved_loops;
        self.ret = saved_ret;
        let helper = Helper { name, params, ret };
        self.helpers.push(helper.clone());
        self.helper_bodies.push(HelperBody {
            name: helper.name.clone(),
            item: self.items.len(),
            head,
            prelude,
            inputs,
            stmts,
            tail,
            ret,
        });
        self.items.push(text);
        helper
    }

    fn define_struct(&mut self) -> usize {
        let id = self.structs.len();
        let name = format!("S{id}");
        let fields: Vec<Ty> = (0..self.rng.range(1, 3)).map(|_| self.any_ty()).collect();
        let arr = (self.any_ty(), self.rng.range(1, 5));
        let mut decl: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| format!("f{i}: {}", f.name()))
            .collect();
        decl.push(format!("arr: [{}; {}]", arr.0.name(), arr.1));
        let mut digest = "0u64".to_owned();
        for (i, f) in fields.iter().enumerate() {
            let v = self.to_u64(*f, &format!("self.f{i}"));
            digest = format!("fold({digest}, {v})");
        }
        let elem = self.to_u64(arr.0, "v");
        let bump = match fields[0] {
            Ty::Bool => "self.f0 ^= v;".to_owned(),
            Ty::F32 | Ty::F64 => "self.f0 = self.f0 * 0.5 + v;".to_owned(),
            _ => "self.f0 = self.f0.wrapping_add(v).rotate_left(3);".to_owned(),
        };
        self.items.push(format!(
            "#[derive(Clone, Copy)]\nstruct {name} {{ {} }}\n\nimpl {name} {{\n    fn digest(&self) -> u64 {{\n        self.arr.iter().fold({digest}, |a, &v| fold(a, {elem}))\n    }}\n    fn bump(&mut self, v: {}) {{\n        {bump}\n    }}\n}}\n",
            decl.join(", "),
            fields[0].name()
        ));
        self.structs.push(StructDef { name, fields, arr });
        id
    }

    fn define_enum(&mut self) -> usize {
        let id = self.enums.len();
        let def = EnumDef {
            name: format!("E{id}"),
            a: self.any_ty(),
            bx: self.any_ty(),
            by: self.any_ty(),
        };
        self.items.push(format!(
            "#[derive(Clone, Copy)]\nenum {} {{ A({}), B {{ x: {}, y: {} }}, C }}\n",
            def.name,
            def.a.name(),
            def.bx.name(),
            def.by.name()
        ));
        self.enums.push(def);
        id
    }

    /// `n` statements at indentation `level`, appended to `out`; variables they declare go out of
    /// scope with the caller's block.
    pub fn stmts(&mut self, n: usize, level: usize, out: &mut Vec<String>) {
        for _ in 0..n {
            self.stmt(level, out);
        }
    }

    fn block(&mut self, n: usize, level: usize, out: &mut Vec<String>) {
        let mark = self.vars.len();
        self.stmts(n, level, out);
        self.pop_to(mark);
    }

    fn stmt(&mut self, level: usize, out: &mut Vec<String>) {
        let pad = "    ".repeat(level);
        let nested = level < 3;
        let d = EXPR_DEPTH;
        match self.rng.below(100) {
            0..=19 => {
                let ty = self.any_ty();
                let v = self.fresh();
                let e = self.expr(ty, d);
                let m = self.rng.chance(60);
                self.cov("let");
                out.push(format!(
                    "{pad}let {}{v}: {} = {e};",
                    if m { "mut " } else { "" },
                    ty.name()
                ));
                self.push(&v, VTy::S(ty), m);
            }
            20..=31 => {
                let targets = self.mutable_scalars();
                if targets.is_empty() {
                    let line = self.fold_stmt(&pad);
                    out.push(line);
                    return;
                }
                let (v, ty) = self.rng.pick(&targets).clone();
                let e = self.expr(ty, d);
                let op = if ty.is_int() && self.rng.chance(40) {
                    self.cov("compound assignment");
                    *self.rng.pick(&["+=", "-=", "^=", "|=", "&=", "*="])
                } else {
                    self.cov("assignment");
                    "="
                };
                out.push(format!("{pad}{v} {op} {e};"));
            }
            32..=45 => {
                let line = self.fold_stmt(&pad);
                out.push(line);
            }
            46..=51 => self.let_array(&pad, out),
            52..=55 => self.let_struct(&pad, out),
            56..=58 => self.let_enum(&pad, out),
            59..=61 => {
                let ts: Vec<Ty> = (0..self.rng.range(2, 3)).map(|_| self.any_ty()).collect();
                let es: Vec<String> = ts.iter().map(|t| self.expr(*t, d)).collect();
                let v = self.fresh();
                self.cov("tuple");
                out.push(format!("{pad}let {v} = ({},);", es.join(", ")));
                self.push(&v, VTy::Tuple(ts), false);
            }
            62..=63 => {
                let ty = self.any_ty();
                let (c, e) = (self.expr(Ty::Bool, d), self.expr(ty, d));
                let v = self.fresh();
                self.cov("Option");
                out.push(format!(
                    "{pad}let {v}: Option<{}> = if {c} {{ Some({e}) }} else {{ None }};",
                    ty.name()
                ));
                self.push(&v, VTy::Opt(ty), false);
            }
            64..=67 => self.store(&pad, out),
            68..=75 if nested => {
                self.cov("if/else");
                let c = self.expr(Ty::Bool, d);
                out.push(format!("{pad}if {c} {{"));
                let n = self.rng.range(1, 3);
                self.block(n, level + 1, out);
                if self.rng.chance(60) {
                    out.push(format!("{pad}}} else {{"));
                    let n = self.rng.range(1, 3);
                    self.block(n, level + 1, out);
                }
                out.push(format!("{pad}}}"));
            }
            76..=85 if nested => self.loop_stmt(level, out),
            86..=89 if nested => {
                self.cov("match statement on int");
                let t = *self.rng.pick(&ty::INTS);
                let s = self.expr(t, d);
                out.push(format!("{pad}match ({s}) as u8 % 3 {{"));
                for arm in ["0", "1", "_"] {
                    out.push(format!("{pad}    {arm} => {{"));
                    let n = self.rng.range(1, 2);
                    self.block(n, level + 2, out);
                    out.push(format!("{pad}    }}"));
                }
                out.push(format!("{pad}}}"));
            }
            90..=93 => {
                self.cov("early return");
                let c = self.expr(Ty::Bool, d);
                let r = if self.in_helper {
                    self.expr(self.ret, d)
                } else {
                    let t = self.any_ty();
                    let e = self.expr(t, d);
                    let v = self.to_u64(t, &e);
                    format!("fold(acc, {v})")
                };
                out.push(format!("{pad}if {c} {{ return {r}; }}"));
            }
            94..=96 if !self.loops.is_empty() => {
                let c = self.expr(Ty::Bool, d);
                let kw = if self.loops.last() == Some(&Loop::For) && self.rng.chance(50) {
                    self.cov("continue");
                    "continue"
                } else {
                    self.cov("break");
                    "break"
                };
                out.push(format!("{pad}if {c} {{ {kw}; }}"));
            }
            _ => {
                let structs: Vec<(String, usize)> = self
                    .vars
                    .iter()
                    .filter_map(|v| match v.ty {
                        VTy::Struct(s) if v.mutable => Some((v.name.clone(), s)),
                        _ => None,
                    })
                    .collect();
                if structs.is_empty() {
                    let line = self.fold_stmt(&pad);
                    out.push(line);
                    return;
                }
                let (v, s) = self.rng.pick(&structs).clone();
                let e = self.expr(self.structs[s].fields[0], d);
                self.cov("method call through &mut self");
                out.push(format!("{pad}{v}.bump({e});"));
            }
        }
    }

    /// `acc = fold(acc, <a value of any type>)`, or the digest of an aggregate in scope.
    fn fold_stmt(&mut self, pad: &str) -> String {
        let aggregates: Vec<Var> = self
            .vars
            .iter()
            .filter(|v| !matches!(v.ty, VTy::S(_)))
            .cloned()
            .collect();
        if !aggregates.is_empty() && self.rng.chance(30) {
            let v = self.rng.pick(&aggregates).clone();
            let value = match &v.ty {
                VTy::Struct(_) => {
                    self.cov("method call through &self");
                    format!("{}.digest()", v.name)
                }
                VTy::Arr(t, _) => {
                    self.cov("iterator fold over an array");
                    let e = self.to_u64(*t, "e");
                    format!("{}.iter().fold(0u64, |a, &e| fold(a, {e}))", v.name)
                }
                VTy::Tuple(ts) => {
                    let parts: Vec<String> = ts
                        .clone()
                        .iter()
                        .enumerate()
                        .map(|(i, t)| self.to_u64(*t, &format!("{}.{i}", v.name)))
                        .collect();
                    parts.join(" ^ ")
                }
                VTy::Opt(t) => {
                    let inner = self.to_u64(*t, "o");
                    format!("{}.map_or(7, |o| {inner})", v.name)
                }
                VTy::Enum(_) | VTy::S(_) => {
                    let e = self.expr(Ty::U64, EXPR_DEPTH);
                    return format!("{pad}acc = fold(acc, {e});");
                }
            };
            return format!("{pad}acc = fold(acc, {value});");
        }
        let t = self.any_ty();
        let e = self.expr(t, EXPR_DEPTH);
        let v = self.to_u64(t, &e);
        format!("{pad}acc = fold(acc, {v});")
    }

    fn let_array(&mut self, pad: &str, out: &mut Vec<String>) {
        let ty = self.any_ty();
        let len = self.rng.range(1, 8);
        let v = self.fresh();
        let init = if len <= 4 && self.rng.chance(50) {
            let es: Vec<String> = (0..len).map(|_| self.expr(ty, 2)).collect();
            format!("[{}]", es.join(", "))
        } else {
            let e = self.expr(ty, 2);
            format!("[{e}; {len}]")
        };
        self.cov("array");
        out.push(format!(
            "{pad}let mut {v}: [{}; {len}] = {init};",
            ty.name()
        ));
        self.push(&v, VTy::Arr(ty, len), true);
    }

    fn let_struct(&mut self, pad: &str, out: &mut Vec<String>) {
        let s = if self.structs.is_empty() || self.rng.chance(30) {
            self.define_struct()
        } else {
            self.rng.below(self.structs.len())
        };
        let def = self.structs[s].clone();
        let mut fields: Vec<String> = def
            .fields
            .iter()
            .enumerate()
            .map(|(i, t)| format!("f{i}: {}", self.expr(*t, 2)))
            .collect();
        let e = self.expr(def.arr.0, 2);
        fields.push(format!("arr: [{e}; {}]", def.arr.1));
        let v = self.fresh();
        self.cov("struct");
        out.push(format!(
            "{pad}let mut {v} = {} {{ {} }};",
            def.name,
            fields.join(", ")
        ));
        self.push(&v, VTy::Struct(s), true);
    }

    fn let_enum(&mut self, pad: &str, out: &mut Vec<String>) {
        let e = if self.enums.is_empty() || self.rng.chance(30) {
            self.define_enum()
        } else {
            self.rng.below(self.enums.len())
        };
        let def = self.enums[e].clone();
        let (c1, c2) = (self.expr(Ty::Bool, 2), self.expr(Ty::Bool, 2));
        let (a, x, y) = (
            self.expr(def.a, 2),
            self.expr(def.bx, 2),
            self.expr(def.by, 2),
        );
        let v = self.fresh();
        let n = &def.name;
        self.cov("enum with payloads");
        out.push(format!(
            "{pad}let {v} = if {c1} {{ {n}::A({a}) }} else if {c2} {{ {n}::B {{ x: {x}, y: {y} }} }} else {{ {n}::C }};"
        ));
        self.push(&v, VTy::Enum(e), false);
    }

    /// A store into an array element or a struct field.
    fn store(&mut self, pad: &str, out: &mut Vec<String>) {
        let mut targets = Vec::new();
        for v in self.vars.iter().filter(|v| v.mutable) {
            match &v.ty {
                VTy::Arr(t, len) => targets.push((v.name.clone(), *t, *len)),
                VTy::Struct(s) => {
                    let def = &self.structs[*s];
                    for (i, t) in def.fields.iter().enumerate() {
                        targets.push((format!("{}.f{i}", v.name), *t, 0));
                    }
                    targets.push((format!("{}.arr", v.name), def.arr.0, def.arr.1));
                }
                _ => {}
            }
        }
        if targets.is_empty() {
            let line = self.fold_stmt(pad);
            out.push(line);
            return;
        }
        let (path, ty, len) = self.rng.pick(&targets).clone();
        let e = self.expr(ty, EXPR_DEPTH);
        if len == 0 {
            self.cov("struct field store");
            out.push(format!("{pad}{path} = {e};"));
        } else {
            self.cov("array element store");
            let i = self.expr(Ty::Usize, 2);
            out.push(format!("{pad}{path}[({i}) % {len}] = {e};"));
        }
    }

    fn loop_stmt(&mut self, level: usize, out: &mut Vec<String>) {
        let pad = "    ".repeat(level);
        let mark = self.vars.len();
        let body_len = self.rng.range(1, 3);
        match self.rng.below(5) {
            0 | 1 => {
                let j = self.fresh();
                let k = self.rng.range(1, 6);
                let range = match self.rng.below(4) {
                    0 => {
                        self.cov("for over a reversed range");
                        format!("(0_usize..{k}).rev()")
                    }
                    1 => {
                        self.cov("for with step_by");
                        format!("(0_usize..{}).step_by(2)", k * 2)
                    }
                    2 => {
                        self.cov("for with a data-dependent trip count");
                        let e = self.expr(Ty::Usize, 2);
                        format!("0_usize..(({e}) % {k})")
                    }
                    _ => {
                        self.cov("for over a range");
                        format!("0_usize..{k}")
                    }
                };
                out.push(format!("{pad}for {j} in {range} {{"));
                self.push(&j, VTy::S(Ty::Usize), false);
                self.loops.push(Loop::For);
            }
            2 => {
                let arrays: Vec<(String, Ty)> = self
                    .vars
                    .iter()
                    .filter_map(|v| match v.ty {
                        VTy::Arr(t, _) => Some((v.name.clone(), t)),
                        _ => None,
                    })
                    .collect();
                if arrays.is_empty() {
                    return self.let_array(&pad, out);
                }
                let (a, t) = self.rng.pick(&arrays).clone();
                let w = self.fresh();
                self.cov("for over an array's elements");
                // A copy: the body may store into the array it iterates.
                out.push(format!("{pad}for {w} in {a} {{"));
                self.push(&w, VTy::S(t), false);
                self.loops.push(Loop::For);
            }
            3 => {
                let c = self.fresh();
                let k = self.rng.range(1, 6);
                self.cov("while with a counter");
                out.push(format!("{pad}let mut {c}: u32 = 0;"));
                out.push(format!("{pad}while {c} < {k} {{"));
                out.push(format!("{pad}    {c} += 1;"));
                self.push(&c, VTy::S(Ty::U32), false);
                self.loops.push(Loop::Counted);
            }
            _ => {
                let c = self.fresh();
                let k = self.rng.range(1, 6);
                self.cov("loop with break");
                out.push(format!("{pad}let mut {c}: u8 = 0;"));
                out.push(format!("{pad}loop {{"));
                out.push(format!("{pad}    {c} += 1;"));
                out.push(format!("{pad}    if {c} > {k} {{ break; }}"));
                self.push(&c, VTy::S(Ty::U8), false);
                self.loops.push(Loop::Counted);
            }
        }
        self.stmts(body_len, level + 1, out);
        self.loops.pop();
        self.pop_to(mark);
        out.push(format!("{pad}}}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_and_index_give_one_program() {
        assert_eq!(generate(5, 11).module, generate(5, 11).module);
        assert_ne!(generate(5, 11).module, generate(5, 12).module);
        assert_ne!(generate(5, 11).module, generate(6, 11).module);
    }

    #[test]
    fn programs_cover_every_scalar_type_and_the_listed_constructs() {
        let programs: Vec<Program> = (0..200).map(|i| generate(1, i)).collect();
        let text: String = programs.iter().map(|p| p.module.as_str()).collect();
        for t in ty::ALL {
            assert!(
                text.contains(&format!(": {} =", t.name())),
                "no `{}` variable",
                t.name()
            );
        }
        let covered: BTreeSet<&str> = programs.iter().flat_map(|p| p.covered.clone()).collect();
        for construct in [
            "wrapping arithmetic",
            "checked arithmetic",
            "saturating arithmetic",
            "shifts and rotates",
            "cast float as int",
            "cast int as float",
            "to_bits of a float (NaN canonicalised)",
            "from_bits",
            "array index (reduced modulo length)",
            "struct",
            "match on enum",
            "tuple",
            "while with a counter",
            "loop with break",
            "call of a generated helper",
            "generic call with trait bound (gmix<T: Mix>)",
            "early return",
        ] {
            assert!(covered.contains(construct), "no program has {construct}");
        }
    }
}
