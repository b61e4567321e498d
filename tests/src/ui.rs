//! The headers of a tests/ui case and the PTX checks of a passing one.
//!
//! A case is a kernel crate root. Lines starting with `//@` are directives:
//! - `//@ build-pass`: the crate must compile, its PTX must pass ptxas and every check below;
//!   `//@ build-fail` (the default): it must be rejected, with the stderr in `<name>.stderr`.
//! - `//@ ptx: <text>` / `//@ ptx-not: <text>`: `<text>` must (not) appear in the PTX.
//!   `//@ ptx(<entry>): ...` looks only in the body of the kernel entry `<entry>`. Runs of spaces
//!   and tabs count as one space (LLVM separates an instruction from its operands by a tab).
//! - `//@ compile-flags: <flags>`: more rustc flags, split at blanks (e.g. `-Coverflow-checks=off`
//!   for what a release build does; a case is compiled without `-O`, so with overflow checks).

use std::fmt;

/// Whether a case must compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    Pass,
    Fail,
}

/// One `//@ ptx` or `//@ ptx-not` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxCheck {
    /// `ptx` (must appear) or `ptx-not` (must not).
    pub present: bool,
    /// Only this kernel entry's body, or the whole PTX.
    pub entry: Option<String>,
    pub text: String,
    /// 1-based line of the directive in the case.
    pub line: usize,
}

/// What a case's directives say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directives {
    pub expect: Expect,
    pub checks: Vec<PtxCheck>,
    /// Extra rustc flags (`//@ compile-flags:`).
    pub flags: Vec<String>,
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
    let mut flags = Vec::new();
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
            _ => None,
        };
        if let Some(mode) = mode {
            if expect.replace(mode).is_some() {
                return Err(err("a second build-pass/build-fail".into()));
            }
            continue;
        }
        let (head, text) = directive.split_once(':').ok_or_else(|| {
            err(format!(
                "unknown directive `{directive}`; the directives are build-pass, build-fail, \
                 ptx: <text>, ptx-not: <text>, ptx(<entry>): <text>, compile-flags: <flags>"
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
        let present = match kind {
            "ptx" => true,
            "ptx-not" => false,
            other => return Err(err(format!("unknown directive `{other}`"))),
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(err(format!("`{kind}` has no text to look for")));
        }
        checks.push(PtxCheck {
            present,
            entry,
            text: text.to_owned(),
            line: line_no,
        });
    }
    let expect = expect.unwrap_or(Expect::Fail);
    if expect == Expect::Fail
        && let Some(check) = checks.first()
    {
        return Err(DirectiveError {
            line: check.line,
            message: "PTX checks need `//@ build-pass`: a failing case has no PTX".into(),
        });
    }
    Ok(Directives {
        expect,
        checks,
        flags,
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
        if squeeze(haystack).contains(&squeeze(&check.text)) != check.present {
            let verb = if check.present { "lacks" } else { "contains" };
            failures.push(format!(
                "line {}: {scope} {verb} `{}`",
                check.line, check.text
            ));
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
                    present: true,
                    entry: None,
                    text: "bar.sync 0".into(),
                    line: 3
                },
                PtxCheck {
                    present: false,
                    entry: Some("k_1d".into()),
                    text: "%tid.y".into(),
                    line: 4
                },
            ]
        );
        assert_eq!(directives("fn main() {}").unwrap().expect, Expect::Fail);
        let flags = directives("//@ build-pass\n//@ compile-flags: -Coverflow-checks=off  -O\n");
        assert_eq!(flags.unwrap().flags, ["-Coverflow-checks=off", "-O"]);
        assert_eq!(directives("//@ build-fail\n").unwrap().expect, Expect::Fail);
    }

    #[test]
    fn rejects_malformed_directives() {
        let line_of = |src: &str| directives(src).unwrap_err().line;
        assert_eq!(line_of("//@ build-pass\n//@ buidl-pass\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptx:\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptx(): x\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ ptxnot: x\n"), 2);
        assert_eq!(line_of("//@ build-pass\n//@ build-fail\n"), 2);
        // A failing case has no PTX to check.
        assert_eq!(line_of("//@ ptx: ret;\n"), 1);
    }

    #[test]
    fn scopes_checks_to_an_entry() {
        assert!(entry_body(PTX, "one").unwrap().contains("%tid.y"));
        assert!(!entry_body(PTX, "two").unwrap().contains("%tid.y"));
        assert!(entry_body(PTX, "three").is_none());
        let check = |present, entry: Option<&str>, text: &str| PtxCheck {
            present,
            entry: entry.map(str::to_owned),
            text: text.into(),
            line: 7,
        };
        let passing = [
            check(true, None, "%tid.y"),
            check(true, Some("one"), "%tid.y"),
            check(false, Some("two"), "%tid.y"),
            check(true, Some("one"), "mov.u32 %r1,  %tid.y;"),
        ];
        assert!(failed_checks(PTX, &passing).is_empty());
        let failing = [
            check(false, None, "%tid.y"),
            check(true, Some("two"), "%tid.y"),
            check(true, Some("three"), "ret;"),
        ];
        assert_eq!(
            failed_checks(PTX, &failing),
            [
                "line 7: the PTX contains `%tid.y`",
                "line 7: the body of `.entry two` lacks `%tid.y`",
                "line 7: the PTX has no `.entry three`",
            ]
        );
    }
}
