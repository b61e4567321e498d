//! Cuts of a program, to find the statement a GPU difference comes from (docs/fuzzing.md, "Cuts
//! of a program"): the same program with its body truncated after each top-level statement, with
//! one helper truncated after each of its statements, and each body statement's sub-expressions
//! evaluated on their own, all in one batch, each its own kernel that the batch harness compares
//! with the same body run as plain Rust.
//!
//! For program `i` (module `p<i>`, kernel `k<i>`), the batch holds, in this order:
//! - `k<i>`: the program itself, unchanged;
//! - `k<i>_c<k>` for `k` in `0..=n` (`n` top-level statements): the body's first `k` statements
//!   (`c0`: only the variables made from the inputs), then every variable in scope (scalars and
//!   aggregates) folded into the checksum, which is returned;
//! - `k<i>_h<m>_c<k>` for each helper `h<m>` and `k` in `0..=` its statement count: the whole
//!   program with that helper's body cut after its `k`-th statement, what is in scope there
//!   folded into its `acc`, which it returns as its type (so the body's statements inside loops,
//!   which the body's cuts cannot split, are split where they call helpers);
//! - `k<i>_s<k>_e<j>`, with sub-cuts: the first `k - 1` statements, then the `j`-th
//!   sub-expression of statement `k` folded into the checksum, then the variables in scope folded
//!   as in cut `k - 1`. Only sub-expressions over the variables in scope before the statement are
//!   taken (not those inside a loop body, which read its counter, or inside a block after a
//!   `let`), and they are evaluated once, with the values the variables have after statement
//!   `k - 1` (inside an `if` or a loop the statement may see others).
//!
//! So when `k<i>_c<k-1>` agrees with plain Rust and `k<i>_c<k>` does not, statement `k` computes
//! the first value that differs, and its failing sub-cuts (the innermost first) say which part.
//! A cut is a different kernel, optimised on its own: a difference that needs the code after the
//! cut to appear does not show in it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use oxide_cuda_tools::Ptxas;

use crate::batch::{self, Workspace};

use crate::generator::{HelperBody, Parts, Program, Stmt, VTy, Var, generate_parts, to_u64};
use crate::ty::Ty;

/// One kernel of a cut batch and what it computes.
#[derive(Clone, Debug)]
pub struct Cut {
    pub program: Program,
    pub kind: CutKind,
    /// The statement (1-based; 0 for the prelude) after which the body (a helper cut: the
    /// helper) is cut, or whose sub-expression a sub-cut evaluates.
    pub stmt: usize,
    /// A sub-cut's expression and its type.
    pub expr: Option<(String, &'static str)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutKind {
    /// The program unchanged.
    Program,
    /// The body cut after a statement.
    Cut,
    /// A sub-expression of a statement, after the statements before it.
    Sub,
    /// The program with one helper cut after a statement of its own.
    Helper,
}

/// The cuts of program `index` of seed `seed` (with each statement's sub-cuts when `subcuts`).
pub fn cuts(seed: u64, index: u64, subcuts: bool) -> Vec<Cut> {
    let parts = generate_parts(seed, index);
    let mut out = vec![Cut {
        program: crate::generate(seed, index),
        kind: CutKind::Program,
        stmt: parts.stmts.len(),
        expr: None,
    }];
    for k in 0..=parts.stmts.len() {
        let mut body = prefix(&parts.prelude, &parts.stmts, k);
        body.extend(fold_scope(
            &parts,
            scope_after(&parts.inputs, &parts.stmts, k),
        ));
        let module = format!("p{index}_c{k}");
        let doc = format!("Program {index}, cut after statement {k} (seed {seed}).");
        out.push(Cut {
            program: parts.render(&module, &doc, &body),
            kind: CutKind::Cut,
            stmt: k,
            expr: None,
        });
    }
    let full = prefix(&parts.prelude, &parts.stmts, parts.stmts.len())
        .into_iter()
        .chain(parts.tail.iter().cloned())
        .collect::<Vec<_>>();
    for h in &parts.helpers {
        for k in 0..=h.stmts.len() {
            let mut items = parts.items.clone();
            items[h.item] = helper_cut(&parts, h, k);
            let module = format!("p{index}_{}_c{k}", h.name);
            let doc = format!(
                "Program {index} with helper {} cut after its statement {k} (seed {seed}).",
                h.name
            );
            out.push(Cut {
                program: parts.render_with(&module, &doc, &full, &items),
                kind: CutKind::Helper,
                stmt: k,
                expr: None,
            });
        }
    }
    if subcuts {
        for (k, stmt) in parts.stmts.iter().enumerate().map(|(i, s)| (i + 1, s)) {
            for (j, (ty, e)) in stmt.exprs.iter().enumerate().map(|(j, x)| (j + 1, x)) {
                let mut body = prefix(&parts.prelude, &parts.stmts, k - 1);
                body.push(format!("    acc = fold(acc, {});", to_u64(*ty, e)));
                body.extend(fold_scope(
                    &parts,
                    scope_after(&parts.inputs, &parts.stmts, k - 1),
                ));
                let module = format!("p{index}_s{k}_e{j}");
                let doc = format!(
                    "Program {index}, expression {j} of statement {k} after statement {} (seed {seed}).",
                    k - 1
                );
                out.push(Cut {
                    program: parts.render(&module, &doc, &body),
                    kind: CutKind::Sub,
                    stmt: k,
                    expr: Some((e.clone(), ty.name())),
                });
            }
        }
    }
    out
}

/// The prelude and the first `k` statements' lines.
fn prefix(prelude: &[String], stmts: &[Stmt], k: usize) -> Vec<String> {
    let mut body = prelude.to_vec();
    for s in &stmts[..k] {
        body.extend(s.lines.iter().cloned());
    }
    body
}

/// The variables in scope after statement `k` (0: after the prelude, `inputs`).
fn scope_after<'a>(inputs: &'a [Var], stmts: &'a [Stmt], k: usize) -> &'a [Var] {
    match k {
        0 => inputs,
        _ => &stmts[k - 1].scope,
    }
}

/// Helper `h`'s item cut after its statement `k`: what it computed so far folded into its `acc`,
/// returned as its type.
fn helper_cut(parts: &Parts, h: &HelperBody, k: usize) -> String {
    let mut lines = prefix(&h.prelude, &h.stmts, k);
    lines.extend(fold_scope(parts, scope_after(&h.inputs, &h.stmts, k)));
    let t = h.ret.name();
    let ret = match h.ret {
        Ty::Bool => "acc & 1 == 1".to_owned(),
        _ => format!("acc as {t}"),
    };
    format!("{}{}\n    {ret}\n}}\n", h.head, lines.join("\n"))
}

/// Lines folding every variable of `scope` into `acc`: scalars as the body's end does,
/// aggregates through all their elements (an enum through its variant and payload).
fn fold_scope(parts: &Parts, scope: &[Var]) -> Vec<String> {
    let fold = |value: String| format!("    acc = fold(acc, {value});");
    let mut lines = Vec::new();
    for v in scope {
        let n = &v.name;
        match &v.ty {
            VTy::S(t) => lines.push(fold(to_u64(*t, n))),
            VTy::Arr(t, _) => lines.push(fold(format!(
                "{n}.iter().fold(0u64, |a, &e| fold(a, {}))",
                to_u64(*t, "e")
            ))),
            VTy::Struct(_) => lines.push(fold(format!("{n}.digest()"))),
            VTy::Tuple(ts) => {
                for (i, t) in ts.iter().enumerate() {
                    lines.push(fold(to_u64(*t, &format!("{n}.{i}"))));
                }
            }
            VTy::Opt(t) => lines.push(fold(format!(
                "{n}.map_or(7, |o| fold(8, {}))",
                to_u64(*t, "o")
            ))),
            VTy::Enum(e) => {
                let d = &parts.enums[*e];
                let en = &d.name;
                lines.push(fold(format!(
                    "match {n} {{ {en}::A(ea) => fold(1, {}), {en}::B {{ x: ex, y: ey }} => fold(fold(2, {}), {}), {en}::C => 3 }}",
                    to_u64(d.a, "ea"),
                    to_u64(d.bx, "ex"),
                    to_u64(d.by, "ey")
                )));
            }
        }
    }
    lines
}

/// What each kernel of `cuts` computes, to read the GPU's `FAIL` lines against: the program's
/// statements, numbered, each under the header of its cut (`== <kernel>: ...`) and followed by
/// its sub-cuts (`-- <kernel> (<type>): <expression>`); then each helper's, under its cuts'
/// headers. ci/gpu-cut/run.sh prints from it the section of the first cut that fails: the lines
/// from its header to the next `==` or `--` line.
pub fn listing(seed: u64, index: u64, cuts: &[Cut]) -> String {
    let parts = generate_parts(seed, index);
    let count = |kind: CutKind| cuts.iter().filter(|c| c.kind == kind).count();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# seed {seed}, program {index}: {} top-level statements. Kernels: k{index} (the program); k{index}_c<k> (the body cut after statement k, what is in scope folded in and returned), k = 0..={}; {} helper cuts k{index}_h<n>_c<k> (the program with helper h<n> cut after its statement k, returning what it computed so far); {} sub-cuts k{index}_s<k>_e<j> (expression j of statement k folded in after statement k-1, the body cut there).",
        parts.stmts.len(),
        parts.stmts.len(),
        count(CutKind::Helper),
        count(CutKind::Sub)
    );
    let _ = writeln!(s, "== k{index}_c0: the inputs");
    for l in &parts.prelude {
        let _ = writeln!(s, "{l}");
    }
    for (k, stmt) in parts.stmts.iter().enumerate().map(|(i, s)| (i + 1, s)) {
        let subs: Vec<&Cut> = cuts
            .iter()
            .filter(|c| c.kind == CutKind::Sub && c.stmt == k)
            .collect();
        let _ = writeln!(
            s,
            "== k{index}_c{k}: statement {k} of the body ({} sub-cuts)",
            subs.len()
        );
        for l in &stmt.lines {
            let _ = writeln!(s, "{l}");
        }
        for c in subs {
            if let Some((e, ty)) = &c.expr {
                let _ = writeln!(s, "-- {} ({ty}): {e}", c.program.kernel);
            }
        }
    }
    let _ = writeln!(s, "== k{index}: the end of the body (only in the program)");
    for l in &parts.tail {
        let _ = writeln!(s, "{l}");
    }
    for h in &parts.helpers {
        let name = &h.name;
        let _ = writeln!(s, "== k{index}_{name}_c0: helper {name}, its parameters");
        let _ = write!(s, "{}", h.head);
        for l in &h.prelude {
            let _ = writeln!(s, "{l}");
        }
        for (k, stmt) in h.stmts.iter().enumerate().map(|(i, s)| (i + 1, s)) {
            let _ = writeln!(s, "== k{index}_{name}_c{k}: helper {name}, statement {k}");
            for l in &stmt.lines {
                let _ = writeln!(s, "{l}");
            }
        }
        let _ = writeln!(
            s,
            "== k{index}_{name}: helper {name}, what it returns (only in the program)"
        );
        let _ = writeln!(s, "{}\n}}", h.tail);
    }
    s
}

/// What building one program's cut batch gave.
#[derive(Debug)]
pub struct Built {
    pub index: u64,
    pub kernels: usize,
    /// `<out>/bin/cut-s<seed>-p<index>` (stripped), when it built and assembled.
    pub binary: Option<PathBuf>,
    /// `<out>/cut-s<seed>-p<index>.txt`: the listing.
    pub listing: PathBuf,
    /// The emulator's `ok`/`FAIL` lines and summary (or why there are none).
    pub cpu: String,
    /// Whether every kernel built, assembled and agreed with plain Rust on the emulator.
    pub passed: bool,
    pub seconds: f64,
}

/// Builds the cut batch of program `index` in `ws` exactly as the campaign builds a batch (the
/// backend, then ptxas), runs it on the emulator, and keeps the stripped binary and the listing
/// in `out`.
pub fn build(
    ws: &Workspace,
    ptxas: &Ptxas,
    seed: u64,
    index: u64,
    subcuts: bool,
    out: &Path,
) -> std::io::Result<Built> {
    let start = Instant::now();
    let cuts = cuts(seed, index, subcuts);
    let name = format!("cut-s{seed}-p{index:06}");
    std::fs::create_dir_all(out.join("bin"))?;
    let listing_path = out.join(format!("{name}.txt"));
    std::fs::write(&listing_path, listing(seed, index, &cuts))?;
    let programs: Vec<Program> = cuts.iter().map(|c| c.program.clone()).collect();
    ws.write(&programs)?;
    let built = ws.build()?;
    let mut result = Built {
        index,
        kernels: cuts.len(),
        binary: None,
        listing: listing_path,
        cpu: String::new(),
        passed: false,
        seconds: 0.0,
    };
    if !built.success {
        let (_, message) = crate::campaign::classify(&built.stderr, built.crashed);
        result.cpu = format!("the batch did not build:\n{message}");
    } else if let Err(e) = ptxas.check(&built.ptx, ws.arch.name()) {
        result.cpu = format!("ptxas rejected the batch's PTX:\n{e}");
    } else {
        let (_, stdout) = batch::run_cpu(&built.binary)?;
        let ok = stdout.lines().filter(|l| l.starts_with("ok ")).count();
        result.passed = ok == cuts.len() && !stdout.lines().any(|l| l.starts_with("FAIL "));
        result.cpu = stdout;
        let dest = out.join("bin").join(&name);
        std::fs::copy(&built.binary, &dest)?;
        let status = Command::new("strip").arg(&dest).status()?;
        if !status.success() {
            eprintln!(
                "oxide-fuzz: strip {} failed; kept unstripped",
                dest.display()
            );
        }
        result.binary = Some(dest);
    }
    result.seconds = start.elapsed().as_secs_f64();
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::generate;

    fn body_lines(module: &str) -> Vec<&str> {
        let start = module.find("pub fn body(").expect("a body");
        let end = module.find("\n#[oxide::kernel").expect("a kernel");
        module[start..end].lines().collect()
    }

    #[test]
    fn cuts_truncate_the_body_after_each_statement() {
        for index in [1, 620, 2224] {
            let parts = generate_parts(1, index);
            let program = generate(1, index);
            let cuts = cuts(1, index, true);
            let n = parts.stmts.len();
            assert_eq!(
                cuts[0].program.module, program.module,
                "the program unchanged"
            );
            let plain: Vec<&Cut> = cuts.iter().filter(|c| c.kind == CutKind::Cut).collect();
            assert_eq!(
                plain.len(),
                n + 1,
                "a cut after each statement and one before all"
            );
            let full = body_lines(&program.module);
            for (k, c) in plain.iter().enumerate() {
                assert_eq!(c.stmt, k);
                assert_eq!(c.program.kernel, format!("k{index}_c{k}"));
                assert_eq!(c.program.module_name, format!("p{index}_c{k}"));
                let lines = body_lines(&c.program.module);
                // The cut's body is a prefix of the program's: its prelude and first k
                // statements, then folds and `acc`.
                let kept = 1
                    + parts.prelude.len()
                    + parts.stmts[..k]
                        .iter()
                        .map(|s| s.lines.len())
                        .sum::<usize>();
                assert_eq!(lines[..kept], full[..kept], "cut {k} of program {index}");
                assert!(
                    lines[kept..lines.len() - 2]
                        .iter()
                        .all(|l| l.starts_with("    acc = fold(acc, "))
                );
                assert_eq!(lines[lines.len() - 2..], ["    acc", "}"]);
                // The helpers, structs and enums are the program's.
                assert!(
                    parts
                        .items
                        .iter()
                        .all(|i| c.program.module.contains(i.as_str()))
                );
            }
            // The statements are the body's, in order, and nothing else is.
            let mut rebuilt = parts.prelude.clone();
            rebuilt.extend(parts.stmts.iter().flat_map(|s| s.lines.clone()));
            rebuilt.extend(parts.tail.clone());
            assert_eq!(full[1..full.len() - 2], rebuilt[..]);
            // Sub-cuts: each after the statements before its own, one expression folded in.
            let subs: Vec<&Cut> = cuts.iter().filter(|c| c.kind == CutKind::Sub).collect();
            assert!(!subs.is_empty(), "program {index} has sub-expressions");
            for c in subs {
                let (e, _) = c.expr.as_ref().expect("a sub-cut's expression");
                let lines = body_lines(&c.program.module);
                let kept = 1
                    + parts.prelude.len()
                    + parts.stmts[..c.stmt - 1]
                        .iter()
                        .map(|s| s.lines.len())
                        .sum::<usize>();
                assert_eq!(lines[..kept], full[..kept]);
                assert!(lines[kept].contains(e.as_str()));
                assert!(
                    parts.stmts[c.stmt - 1]
                        .lines
                        .iter()
                        .any(|l| l.contains(e.as_str())),
                    "a sub-expression is part of its statement"
                );
            }
            let mut names: Vec<&str> = cuts.iter().map(|c| c.program.kernel.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), cuts.len(), "kernel names are unique");
        }
    }

    #[test]
    fn sub_expressions_read_only_what_is_in_scope_before_their_statement() {
        // A statement that binds variables (a loop counter, a block's `let`): only expressions
        // outside those bindings are taken.
        for index in 0..200 {
            let parts = generate_parts(1, index);
            for (k, stmt) in parts.stmts.iter().enumerate() {
                let before: Vec<&str> = if k == 0 {
                    parts.inputs.iter().map(|v| v.name.as_str()).collect()
                } else {
                    parts.stmts[k - 1]
                        .scope
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect()
                };
                for (_, e) in &stmt.exprs {
                    for name in identifiers(e).filter(|n| n.starts_with('v')) {
                        // Bound inside the expression itself (a block's `let`, a match arm).
                        let bound_inside = [
                            format!("let {name}:"),
                            format!("Some({name})"),
                            format!("({name})"),
                            format!(": {name},"),
                            format!(": {name} }}"),
                        ]
                        .iter()
                        .any(|b| e.contains(b.as_str()));
                        assert!(
                            before.contains(&name) || bound_inside,
                            "program {index}, statement {}: `{name}` not in scope in `{e}`",
                            k + 1
                        );
                    }
                }
            }
        }
    }

    fn identifiers(e: &str) -> impl Iterator<Item = &str> {
        e.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.len() > 1 && w[1..].chars().all(|c| c.is_ascii_digit()))
    }

    #[test]
    fn helper_cuts_truncate_one_helper_and_keep_the_rest() {
        for index in [620, 2224] {
            let parts = generate_parts(1, index);
            let program = generate(1, index);
            let cuts = cuts(1, index, false);
            assert!(!parts.helpers.is_empty());
            let helper_cuts: Vec<&Cut> =
                cuts.iter().filter(|c| c.kind == CutKind::Helper).collect();
            assert_eq!(
                helper_cuts.len(),
                parts
                    .helpers
                    .iter()
                    .map(|h| h.stmts.len() + 1)
                    .sum::<usize>()
            );
            assert_eq!(
                cuts.len(),
                1 + parts.stmts.len() + 1 + helper_cuts.len(),
                "without sub-cuts: the program, its cuts and its helpers' cuts"
            );
            for h in &parts.helpers {
                let original = &parts.items[h.item];
                assert!(
                    original.starts_with(&h.head)
                        && original.ends_with(&format!("{}\n}}\n", h.tail))
                );
                for k in 0..=h.stmts.len() {
                    let c = helper_cuts
                        .iter()
                        .find(|c| c.program.kernel == format!("k{index}_{}_c{k}", h.name))
                        .expect("a cut of each helper after each of its statements");
                    let item = helper_cut(&parts, h, k);
                    let kept: String = prefix(&h.prelude, &h.stmts, k)
                        .iter()
                        .map(|l| format!("{l}\n"))
                        .collect();
                    assert!(item.starts_with(&format!("{}{kept}", h.head)));
                    assert!(!item.contains(&h.tail));
                    // The body is the program's; every other item too.
                    assert!(c.program.module.contains(&item));
                    assert_eq!(body_lines(&c.program.module), body_lines(&program.module));
                    for (i, other) in parts.items.iter().enumerate() {
                        assert_eq!(i == h.item, !c.program.module.contains(other.as_str()));
                    }
                }
            }
        }
    }

    #[test]
    fn the_programs_the_gpu_findings_name_are_unchanged() {
        // Cutting a program must not change it: `generate` renders the parts cuts are made of.
        // docs/fuzzing.md names GPU findings by seed and index; these pin two of them (FNV-1a of
        // the module text, as generated before the cuts existed).
        let fnv = |s: &str| {
            s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            })
        };
        assert_eq!(fnv(&generate(1, 620).module), 0xcf07_9197_fd10_60c2);
        assert_eq!(fnv(&generate(1, 2224).module), 0x7eb5_8900_0260_63cd);
    }

    #[test]
    fn the_listing_names_every_kernel() {
        let cuts = cuts(1, 620, true);
        let text = listing(1, 620, &cuts);
        for c in &cuts {
            let k = &c.program.kernel;
            let header = match c.kind {
                CutKind::Sub => format!("\n-- {k} ("),
                _ => format!("\n== {k}: "),
            };
            assert!(text.contains(&header), "{k} not in the listing");
        }
    }
}
