//! A generated program in parts (its prelude, top-level statements and tail), which `generate`
//! renders and the cuts (crate::cut) truncate. A child of the generator, so that it drives the
//! generator's private state one statement at a time.

use std::collections::BTreeSet;

use super::{EnumDef, Gen, HelperBody, Program, Recording, StructDef, VTy, Var, to_u64};
use crate::rng::Rng;
use crate::ty::Ty;

/// One top-level statement of a program's body.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Its lines, indented as in the body (a compound statement spans several).
    pub lines: Vec<String>,
    /// The variables in scope after it.
    pub scope: Vec<Var>,
    /// Its sub-expressions (with their types) that read only variables in scope before it, each
    /// once, inner ones first: they can be evaluated on their own after the statements before
    /// it. Leaves (a variable, a literal, a cast of a variable) are left out.
    pub exprs: Vec<(Ty, String)>,
}

/// A program before it is rendered: what `generate` renders as the module, and what cuts
/// (crate::cut) truncate.
#[derive(Clone, Debug)]
pub struct Parts {
    pub index: u64,
    /// The structs, enums and helpers, rendered, in definition order.
    pub items: Vec<String>,
    /// The helpers in parts (each also rendered in `items`).
    pub helpers: Vec<HelperBody>,
    /// The body's first lines: `acc` and the variables made from the inputs.
    pub prelude: Vec<String>,
    /// The variables in scope after the prelude.
    pub inputs: Vec<Var>,
    /// The body's top-level statements.
    pub stmts: Vec<Stmt>,
    /// The final fold of the scalars still in scope.
    pub tail: Vec<String>,
    pub structs: Vec<StructDef>,
    pub enums: Vec<EnumDef>,
    pub covered: BTreeSet<&'static str>,
}

/// Program `index` of the campaign seeded `seed`, as module `p<index>` with kernel `k<index>`.
pub fn generate(seed: u64, index: u64) -> Program {
    let parts = generate_parts(seed, index);
    let mut body = parts.prelude.clone();
    for s in &parts.stmts {
        body.extend(s.lines.iter().cloned());
    }
    body.extend(parts.tail.iter().cloned());
    parts.render(&format!("p{index}"), &format!("Program {index}."), &body)
}

/// Program `index` of the campaign seeded `seed` in parts (`generate` renders them).
pub fn generate_parts(seed: u64, index: u64) -> Parts {
    let mut g = Gen::new(Rng::program_seed(seed, index));
    let mut prelude = vec!["    let mut acc: u64 = x ^ 0x243f_6a88_85a3_08d3;".to_owned()];
    // Inputs of every kind, derived from the thread's two input words.
    for _ in 0..g.rng.range(2, 4) {
        let ty = g.any_ty();
        let v = g.fresh();
        let word = if g.rng.chance(50) { "x" } else { "y" };
        let shift = g.rng.below(40);
        let init = match ty {
            Ty::Bool => format!("({word} >> {shift}) & 1 == 1"),
            Ty::F32 => format!("f32::from_bits(({word} >> {shift}) as u32)"),
            Ty::F64 if g.rng.chance(50) => format!("f64::from_bits({word}.rotate_left({shift}))"),
            Ty::F64 => format!("(({word} >> {shift}) as i32) as f64 * 0.125"),
            _ => format!("({word}.rotate_left({shift}) as {})", ty.name()),
        };
        prelude.push(format!("    let mut {v}: {} = {init};", ty.name()));
        g.push(&v, VTy::S(ty), true);
    }
    let inputs = g.vars.clone();
    let n = g.rng.range(6, 14);
    // One statement at a time (the same draws as `g.stmts(n, 1, ..)`), recording each.
    let mut stmts = Vec::with_capacity(n);
    for _ in 0..n {
        let mut lines = Vec::new();
        g.recording = Some(Recording {
            scope: g.vars.len(),
            exprs: Vec::new(),
        });
        g.stmt(1, &mut lines);
        let exprs = g.recording.take().map(|r| r.exprs).unwrap_or_default();
        stmts.push(Stmt {
            lines,
            scope: g.vars.clone(),
            exprs,
        });
    }
    // Fold what is still in scope, so no computation is dead.
    let tail = g
        .vars
        .iter()
        .filter_map(|v| match v.ty {
            VTy::S(t) => Some(format!("    acc = fold(acc, {});", to_u64(t, &v.name))),
            _ => None,
        })
        .collect();
    Parts {
        index,
        items: g.items,
        helpers: g.helper_bodies,
        prelude,
        inputs,
        stmts,
        tail,
        structs: g.structs,
        enums: g.enums,
        covered: g.covered,
    }
}

impl Parts {
    /// The program as module `module` (its kernel `k` + the module's name after the `p`), with
    /// `body` (lines) as the body of `body`, which returns `acc` after them.
    pub fn render(&self, module: &str, doc: &str, body: &[String]) -> Program {
        self.render_with(module, doc, body, &self.items)
    }

    /// `render` with other items (a helper cut, crate::cut).
    pub fn render_with(
        &self,
        module: &str,
        doc: &str,
        body: &[String],
        items: &[String],
    ) -> Program {
        let kernel = format!("k{}", module.strip_prefix('p').unwrap_or(module));
        let text = format!(
            "/// {doc}\n#[allow(unused, unused_mut, unused_parens, unused_braces, unused_assignments, unreachable_code, arithmetic_overflow, clippy::all)]\npub mod {module} {{\nuse crate::common::*;\nuse oxide::prelude::*;\n\n{items}\npub fn body(x: u64, y: u64) -> u64 {{\n{body}\n    acc\n}}\n\n#[oxide::kernel(strict_float)]\npub fn {kernel}(input: &[u64], mut out: DisjointSlice<u64>) {{\n    let idx = ThreadIndex::linear();\n    let i = idx.get();\n    let y = input[(i + 1) % input.len()];\n    if let Some(o) = out.get_mut(idx) {{\n        *o = body(input[i], y);\n    }}\n}}\n}}\n",
            items = items.join("\n"),
            body = body.join("\n"),
        );
        Program {
            index: self.index,
            module_name: module.to_owned(),
            kernel,
            module: text,
            covered: self.covered.clone(),
        }
    }
}
