//! The headers of a tests/ui case and the PTX checks of a passing one.
//!
//! A case is a kernel crate root. Lines starting with `//@` are directives:
//! - `//@ build-pass`: the crate must compile, its PTX must pass ptxas and every check below;
//!   `//@ build-fail` (the default): it must be rejected, with the stderr in `<name>.stderr`;
//!   `//@ build-warn`: it must compile with warnings, the stderr in `<name>.stderr`, and its PTX
//!   must pass ptxas and every check below.
//! - `//@ ptx: <text>` / `//@ ptx-not: <text>`: `<text>` must (not) appear in the PTX;
//!   `//@ ptx-count: <n> <text>`: exactly `n` times.
//!   `//@ ptx(<entry>): ...` looks only in the body of the kernel entry `<entry>`. Runs of spaces
//!   and tabs count as one space (LLVM separates an instruction from its operands by a tab).
//! - `//@ compile-flags: <flags>`: more rustc flags, split at blanks (e.g. `-Coverflow-checks=off`
//!   for what a release build does; a case is compiled without `-O`, so with overflow checks).
//! - `//@ llvm-attrs(<fn>): <attr>...` / `//@ llvm-attrs-not(<fn>): <attr>...`: the function of
//!   the LLVM IR the backend built (before LLVM's passes) whose name contains `<fn>` has (has not)
//!   each attribute, e.g. `convergent`, `noinline`.
//! - `//@ aux-crate: <file>`: a dependency of the case, tests/ui/auxiliary/<file>, compiled as an
//!   rlib by plain rustc, without the backend (so without the backend's checks, as a crate built
//!   by other means would be), and passed as `--extern <file's stem>`.

use std::fmt;

/// Whether a case must compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Pass,
    Fail,
    /// Compiles, with warnings.
    Warn,
}

/// How often a `//@ ptx` line's text must occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occurs {
    /// `ptx`: at least once.
    Present,
    /// `ptx-not`: never.
    Absent,
    /// `ptx-count: <n> <text>`: exactly `n` times (non-overlapping).
    Times(usize),
}

/// One `//@ ptx`, `//@ ptx-not` or `//@ ptx-count` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxCheck {
    pub occurs: Occurs,
    /// Only this kernel entry's body, or the whole PTX.
    pub entry: Option<String>,
    pub text: String,
    /// 1-based line of the directive in the case.
    pub line: usize,
}

/// One attribute of one `//@ llvm-attrs` or `//@ llvm-attrs-not` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnAttrCheck {
    /// `llvm-attrs` (must have it) or `llvm-attrs-not` (must not).
    pub present: bool,
    /// A part of the LLVM function's name (device functions have mangled names).
    pub function: String,
    pub attribute: String,
    /// `llvm-define`: `attribute` is text of the function's `define` line (its parameters'
    /// attributes, `ptr noalias readonly`), not one function attribute.
    pub in_define: bool,
    /// 1-based line of the directive in the case.
    pub line: usize,
}

/// What a case's directives say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directives {
    pub expect: Expect,
    pub checks: Vec<PtxCheck>,
    /// `//@ llvm-attrs` checks: they make the case compile with the pipeline dump.
    pub fn_attrs: Vec<FnAttrCheck>,
    /// Extra rustc flags (`//@ compile-flags:`).
    pub flags: Vec<String>,
    /// Dependencies compiled without the backend (`//@ aux-crate:`), files of tests/ui/auxiliary.
    pub aux: Vec<String>,
}

/// A directive that cannot be read, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads the `//@` directives of a case's source.
pub fn directives(source: &str) -> Result<Directives, DirectiveError> {
    let mut expect = None;
    let mut checks = Vec::new();
    let mut fn_attrs = Vec::new();
    let mut flags = Vec::new();
    let mut aux = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let line_no = i + 1;
        let Some(directive) = line.trim_start().strip_prefix("//@") else {
            continue;
        };
        let err = |message: String| DirectiveError {
            line: line_no,
            message,
        };
        let directive = directive.trim();
        let mode = match directive {
            "build-pass" => Some(Expect::Pass),
            "build-fail" => Some(Expect::Fail),
            "build-warn" => Some(Expect::Warn),
            _ => None,
        };
        if let Some(mode) = mode {
            if expect.replace(mode).is_some() {
                return Err(err("a second build-pass/build-fail/build-warn".into()));
            }
            continue;
        }
        let (head, text) = directive.split_once(':').ok_or_else(|| {
            err(format!(
                "unknown directive `{directive}`; the directives are build-pass, build-fail, build-warn, \
                 ptx: <text>, ptx-not: <text>, ptx-count: <n> <text>, ptx(<entry>): <text>, compile-flags: <flags>, \
                 llvm-attrs(<fn>): <attrs>, llvm-attrs-not(<fn>): <attrs>, \
                 llvm-define(<fn>): <text>, llvm-define-not(<fn>): <text>"
            ))
        })?;
        let (kind, entry) = match head.trim().split_once('(') {
            Some((kind, rest)) => {
                let entry = rest
                    .strip_suffix(')')
                    .filter(|e| !e.trim().is_empty())
                    .ok_or_else(|| err(format!("`{head}` should read `{kind}(<entry>)`")))?;
                (kind.trim(), Some(entry.trim().to_owned()))
            }
            None => (head.trim(), None),
        };
        if kind == "compile-flags" && entry.is_none() {
            flags.extend(text.split_whitespace().map(str::to_owned));
            continue;
        }
        if kind == "aux-crate" && entry.is_none() {
            let file = text.trim();
            // A file name of tests/ui/auxiliary, whose stem names the crate.
            let stem = file.strip_suffix(".rs").unwrap_or_default();
            if stem.is_empty() || !stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(err(format!(
                    "`aux-crate` takes a file of tests/ui/auxiliary named `<crate>.rs`, not `{file}`"
                )));
            }
            aux.push(file.to_owned());
            continue;
        }
        if let ("llvm-attrs" | "llvm-attrs-not", Some(function)) = (kind, &entry) {
            let attributes: Vec<&str> = text.split_whitespace().collect();
            if attributes.is_empty() {
                return Err(err(format!("`{kind}` names no attribute")));
            }
            fn_attrs.extend(attributes.into_iter().map(|attribute| FnAttrCheck {
                present: kind == "llvm-attrs",
                function: function.clone(),
                attribute: attribute.to_owned(),
                in_define: false,
                line: line_no,
            }));
            continue;
        }
        if let ("llvm-define" | "llvm-define-not", Some(function)) = (kind, &entry) {
            let text = text.trim();
            if text.is_empty() {
                return Err(err(format!("`{kind}` has no text to look for")));
            }
            fn_attrs.push(FnAttrCheck {
                present: kind == "llvm-define",
                function: function.clone(),
                attribute: text.to_owned(),
                in_define: true,
                line: line_no,
            });
            continue;
        }
        let (occurs, text) = match kind {
            "ptx" => (Occurs::Present, text),
            "ptx-not" => (Occurs::Absent, text),
            "ptx-count" => {
                let (n, rest) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
                let n = n.parse().map_err(|_| {
                    err(format!(
                        "`ptx-count` reads `ptx-count: <n> <text>`, not `{text}`"
                    ))
                })?;
                (Occurs::Times(n), rest)
            }
            other => return Err(err(format!("unknown directive `{other}`"))),
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(err(format!("`{kind}` has no text to look for")));
        }
        checks.push(PtxCheck {
            occurs,
            entry,
            text: text.to_owned(),
            line: line_no,
        });
    }
    let expect = expect.unwrap_or(Expect::Fail);
    let first_check = checks
        .iter()
        .map(|c| c.line)
        .chain(fn_attrs.iter().map(|c| c.line))
        .min();
    if expect == Expect::Fail
        && let Some(line) = first_check
    {
        return Err(DirectiveError {
            line,
            message: "PTX and LLVM IR checks need `//@ build-pass` or `//@ build-warn`: a \
                      failing case has neither"
                .into(),
        });
    }
    Ok(Directives {
        expect,
        checks,
        fn_attrs,
        flags,
        aux,
    })
}

/// The text of kernel entry `name` in `ptx`: from its `.entry name(` line to the `}` that closes
/// its body (LLVM prints that brace alone on its line).
pub fn entry_body<'p>(ptx: &'p str, name: &str) -> Option<&'p str> {
    let header = format!(".entry {name}(");
    let start = ptx.find(&header)?;
    let rest = &ptx[start..];
    let end = rest.find("\n}").map_or(rest.len(), |i| i + 2);
    Some(&rest[..end])
}

/// The checks `ptx` fails, each described on one line.
pub fn failed_checks(ptx: &str, checks: &[PtxCheck]) -> Vec<String> {
    let mut failures = Vec::new();
    for check in checks {
        let (scope, haystack) = match &check.entry {
            Some(entry) => match entry_body(ptx, entry) {
                Some(body) => (format!("the body of `.entry {entry}`"), body),
                None => {
                    failures.push(format!(
                        "line {}: the PTX has no `.entry {entry}`",
                        check.line
                    ));
                    continue;
                }
            },
            None => ("the PTX".to_owned(), ptx),
        };
        let found = squeeze(haystack).matches(&squeeze(&check.text)).count();
        let failure = match check.occurs {
            Occurs::Present if found == 0 => Some("lacks".to_owned()),
            Occurs::Absent if found > 0 => Some("contains".to_owned()),
            Occurs::Times(n) if found != n => Some(format!("has {found}, not {n}, of")),
            _ => None,
        };
        if let Some(verb) = failure {
            failures.push(format!(
                "line {}: {scope} {verb} `{}`",
                check.line, check.text
            ));
        }
    }
    failures
}

/// The attributes of the one function defined in `ir` whose name contains `function`: those
/// written on its `define` line and those of its attribute groups (`#0`).
pub fn function_attributes(ir: &str, function: &str) -> Result<Vec<String>, String> {
    let define = define_line(ir, function)?;
    // What follows the parameter list: `unnamed_addr #0 {`.
    let after_params = define.rsplit_once(')').map_or("", |(_, rest)| rest);
    let mut attributes = Vec::new();
    for word in after_params.split_whitespace() {
        match word.strip_prefix('#') {
            Some(_) => {
                let header = format!("attributes {word} = {{ ");
                let group = ir
                    .lines()
                    .find_map(|l| l.strip_prefix(&header))
                    .ok_or_else(|| format!("no `attributes {word}` in the IR"))?;
                let group = group.trim_end().trim_end_matches('}');
                attributes.extend(group.split_whitespace().map(str::to_owned));
            }
            None if word != "{" => attributes.push(word.to_owned()),
            None => {}
        }
    }
    Ok(attributes)
}

/// The `define` line of the one function of `ir` whose name contains `function`.
pub fn define_line<'a>(ir: &'a str, function: &str) -> Result<&'a str, String> {
    let defines: Vec<&str> = ir
        .lines()
        .filter(|l| l.starts_with("define "))
        .filter(|l| {
            l.split_once('@')
                .and_then(|(_, rest)| rest.split_once('('))
                .is_some_and(|(name, _)| name.contains(function))
        })
        .collect();
    match defines[..] {
        [one] => Ok(one),
        [] => Err(format!("no function whose name contains `{function}`")),
        _ => Err(format!(
            "{} functions have names containing `{function}`",
            defines.len()
        )),
    }
}

/// The `//@ llvm-attrs` checks `ir` fails, each described on one line.
pub fn failed_fn_attrs(ir: &str, checks: &[FnAttrCheck]) -> Vec<String> {
    let mut failures = Vec::new();
    for check in checks {
        if check.in_define {
            match define_line(ir, &check.function) {
                Err(e) => failures.push(format!("line {}: {e}", check.line)),
                Ok(define) if define.contains(&check.attribute) != check.present => {
                    let verb = if check.present { "lacks" } else { "has" };
                    failures.push(format!(
                        "line {}: the `define` line of `{}` {verb} `{}`: {define}",
                        check.line, check.function, check.attribute
                    ));
                }
                Ok(_) => {}
            }
            continue;
        }
        match function_attributes(ir, &check.function) {
            Err(e) => failures.push(format!("line {}: {e}", check.line)),
            Ok(attributes) => {
                if attributes.contains(&check.attribute) != check.present {
                    let verb = if check.present { "lacks" } else { "has" };
                    failures.push(format!(
                        "line {}: the function `{}` {verb} `{}` (its attributes: {})",
                        check.line,
                        check.function,
                        check.attribute,
                        attributes.join(" ")
                    ));
                }
            }
        }
    }
    failures
}

/// `text` with each run of spaces and tabs made one space.
fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let blank = c == ' ' || c == '\t';
        if !(blank && out.ends_with(' ')) {
            out.push(if blank { ' ' } else { c });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.visible .entry one(
\t.param .u64 one_param_0
)
{
\tmov.u32 \t%r1, %tid.y;
\tret;

}
\t// .globl\ttwo
.visible .entry two(
)
{
\tret;

}
";

    #[test]
    fn reads_directives() {
        let src = "//@ build-pass\n//! doc\n//@ ptx: bar.sync 0\n//@ ptx-not(k_1d): %tid.y\nfn main() {}\n";
        let d = directives(src).unwrap();
        assert_eq!(d.expect, Expect::Pass);
        assert_eq!(
            d.checks,
            [
                PtxCheck {
                    occurs: Occurs::Present,
                    entry: None,
                    text: "bar.sync 0".into(),
                    line: 3
                },
                PtxCheck {
                    occurs: Occurs::Absent,
                    entry: Some("k_1d".into()),
                    text: "%tid.y".into(),
                    line: 4
                },
            ]
        );
        let count = directives("//@ build-pass\n//@ ptx-count(k): 2 bar.sync 0\n").unwrap();
        assert_eq!(
            count.checks,
            [PtxCheck {
                occurs: Occurs::Times(2),
                entry: Some("k".into()),
                text: "bar.sync 0".into(),
                line: 2
            }]
        );
        assert!(directives("//@ build-pass\n//@ ptx-count: many bar.sync\n").is_err());
        assert_eq!(directives("fn main() {}").unwrap().expect, Expect::Fail);
        let flags = directives("//@ build-pass\n//@ compile-flags: -Coverflow-checks=off  -O\n");
        assert_eq!(flags.unwrap().flags, ["-Coverflow-checks=off", "-O"]);
        assert_eq!(directives("//@ build-fail\n").unwrap().expect, Expect::Fail);
        let aux = directives("//@ aux-crate: unchecked_marks.rs\n").unwrap();
        assert_eq!(
            (aux.expect, aux.aux),
            (Expect::Fail, vec!["unchecked_marks.rs".into()])
        );
        let warn = directives("//@ build-warn\n//@ ptx: call.uni\n").unwrap();
        assert_eq!((warn.expect, warn.checks.len()), (Expect::Warn, 1));
    }

    #[test]
    fn rejects_malformed_directives() {
        let line_of = |src: &str| directives(src).unwrap_err().line;
        assert_eq!(line_of("//@ build-pass\n//@ buidl-pass\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptx:\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptx(): x\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptxnot: x\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ build-fail\n"), 2);
        assert_eq!(line_of("//@ aux-crate: ../escape.rs\n"), 1);
        assert_eq!(line_of("//@ aux-crate: helpers\n"), 1);
        // A failing case has no PTX to check.
        assert_eq!(line_of("//@ ptx: ret;\n"), 1);
    }

    #[test]
    fn reads_function_attribute_checks() {
        let src = "//@ build-pass\n//@ llvm-attrs(step): convergent noinline\n//@ llvm-attrs-not(k): noinline\n";
        let d = directives(src).unwrap();
        let check = |present, function: &str, attribute: &str, line| FnAttrCheck {
            present,
            function: function.into(),
            attribute: attribute.into(),
            in_define: false,
            line,
        };
        assert_eq!(
            d.fn_attrs,
            [
                check(true, "step", "convergent", 2),
                check(true, "step", "noinline", 2),
                check(false, "k", "noinline", 3),
            ]
        );
        let line_of = |src: &str| directives(src).unwrap_err().line;
        assert_eq!(line_of("//@ build-pass\n//@ llvm-attrs(step):\n"), 2);
        assert_eq!(line_of("//@ llvm-attrs(step): convergent\n"), 1);
    }

    #[test]
    fn finds_a_functions_attribute_groups() {
        let ir = "\
define internal void @_ZN4case4step17h0123E() unnamed_addr #0 {
define ptx_kernel void @k(ptr noalias %0) #1 {
define internal void @_ZN4case9step_twice17hE() #1 {
attributes #0 = { convergent noinline }
attributes #1 = { nounwind }
";
        assert_eq!(
            function_attributes(ir, "4step").unwrap(),
            ["unnamed_addr", "convergent", "noinline"]
        );
        assert_eq!(
            function_attributes(ir, "@k").unwrap_err(),
            "no function whose name contains `@k`"
        );
        assert!(
            function_attributes(ir, "step")
                .unwrap_err()
                .contains("2 functions")
        );
        let check = |present, function: &str, attribute: &str| FnAttrCheck {
            present,
            function: function.into(),
            attribute: attribute.into(),
            in_define: false,
            line: 9,
        };
        let passing = [
            check(true, "4step", "convergent"),
            check(false, "k", "noinline"),
        ];
        assert!(failed_fn_attrs(ir, &passing).is_empty());
        assert_eq!(
            failed_fn_attrs(ir, &[check(true, "k", "convergent")]),
            ["line 9: the function `k` lacks `convergent` (its attributes: nounwind)"]
        );
        let define = |present, text: &str| FnAttrCheck {
            in_define: true,
            ..check(present, "k", text)
        };
        assert!(
            failed_fn_attrs(
                ir,
                &[define(true, "ptr noalias"), define(false, "readonly")]
            )
            .is_empty()
        );
        assert_eq!(
            failed_fn_attrs(ir, &[define(true, "readonly")]),
            [
                "line 9: the `define` line of `k` lacks `readonly`: define ptx_kernel void @k(ptr noalias %0) #1 {"
            ]
        );
        let d = directives("//@ build-pass\n//@ llvm-define-not(k): ptr noalias\n").unwrap();
        assert_eq!(
            d.fn_attrs,
            [FnAttrCheck {
                line: 2,
                ..define(false, "ptr noalias")
            }]
        );
    }

    #[test]
    fn scopes_checks_to_an_entry() {
        assert!(entry_body(PTX, "one").unwrap().contains("%tid.y"));
        assert!(!entry_body(PTX, "two").unwrap().contains("%tid.y"));
        assert!(entry_body(PTX, "three").is_none());
        let check = |occurs, entry: Option<&str>, text: &str| PtxCheck {
            occurs,
            entry: entry.map(str::to_owned),
            text: text.into(),
            line: 7,
        };
        use Occurs::{Absent, Present, Times};
        let passing = [
            check(Present, None, "%tid.y"),
            check(Present, Some("one"), "%tid.y"),
            check(Absent, Some("two"), "%tid.y"),
            check(Present, Some("one"), "mov.u32 %r1,  %tid.y;"),
            check(Times(1), Some("one"), "%tid.y"),
            check(Times(0), Some("two"), "%tid.y"),
        ];
        assert!(failed_checks(PTX, &passing).is_empty());
        let failing = [
            check(Absent, None, "%tid.y"),
            check(Present, Some("two"), "%tid.y"),
            check(Present, Some("three"), "ret;"),
            check(Times(2), Some("one"), "%tid.y"),
        ];
        assert_eq!(
            failed_checks(PTX, &failing),
            [
                "line 7: the PTX contains `%tid.y`",
                "line 7: the body of `.entry two` lacks `%tid.y`",
                "line 7: the PTX has no `.entry three`",
                "line 7: the body of `.entry one` has 1, not 2, of `%tid.y`",
            ]
        );
    }
}
