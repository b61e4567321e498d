//! The call graph of a PTX module as ptxas sees it: each defined function, the local frame LLVM
//! gave it (`__local_depot`) and the functions it calls. Read from the PTX text because that is
//! what ptxas sizes stacks from: LLVM may have turned a recursion into a loop (a tail call) or
//! inlined part of it, and only what is left in the PTX can run past a thread's stack.

use std::collections::BTreeMap;

/// A function defined in the PTX.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PtxFunction {
    /// Bytes of local memory its frame declares (its `__local_depot`), 0 without one.
    pub(crate) frame: u64,
    /// The functions it calls by name, in order, repeats included (indirect calls are left
    /// out: the backend rejects function pointers before PTX is made).
    pub(crate) calls: Vec<String>,
}

/// Every function (`.entry` and `.func`) the PTX defines, by name; declarations are left out.
pub(crate) fn functions(ptx: &str) -> BTreeMap<String, PtxFunction> {
    let mut out = BTreeMap::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let Some(name) = header_name(line) else {
            continue;
        };
        // The parameter list runs on until `{` (a definition) or `;` (a declaration).
        let mut defined = line.trim_end().ends_with('{');
        if !defined && !line.trim_end().ends_with(';') {
            for next in lines.by_ref() {
                let next = next.trim();
                if next == "{" {
                    defined = true;
                    break;
                }
                if next.ends_with(';') {
                    break;
                }
            }
        }
        if !defined {
            continue;
        }
        let mut body = String::new();
        let mut depth = 1usize;
        for next in lines.by_ref() {
            depth += next.matches('{').count();
            depth = depth.saturating_sub(next.matches('}').count());
            if depth == 0 {
                break;
            }
            body.push_str(next);
            body.push('\n');
        }
        out.insert(
            name.to_string(),
            PtxFunction {
                frame: frame(&body),
                calls: callees(&body),
            },
        );
    }
    out
}

/// The name a function header (`.visible .entry k(`, `.func (.param .b32 r) f(`) declares.
fn header_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for linkage in [".visible ", ".weak ", ".extern "] {
        rest = rest.strip_prefix(linkage).unwrap_or(rest).trim_start();
    }
    let rest = rest
        .strip_prefix(".entry ")
        .or_else(|| rest.strip_prefix(".func "))?
        .trim_start();
    // A `.func` may start with its return parameters in parentheses.
    let rest = match rest.strip_prefix('(') {
        Some(params) => params.split_once(')')?.1.trim_start(),
        None => rest,
    };
    let name = identifier(rest);
    (!name.is_empty()).then_some(name)
}

/// The PTX identifier `text` starts with (`[A-Za-z_$%][A-Za-z0-9_$]*`), or "".
fn identifier(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || (i == 0 && c == '%'))
        })
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

/// The bytes of the `__local_depot` arrays a body declares.
fn frame(body: &str) -> u64 {
    body.lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("__local_depot")?;
            let (_, size) = rest.split_once('[')?;
            size.split_once(']')?.0.trim().parse::<u64>().ok()
        })
        .sum()
}

/// The functions a body calls: after each `call` or `call.uni`, the optional return list in
/// parentheses, then the callee's name (LLVM may break a call over several lines).
fn callees(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("call") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "call".len()..];
        rest = after;
        let opcode = before.is_none_or(char::is_whitespace)
            && after.starts_with(|c: char| c == '.' || c.is_whitespace());
        if !opcode {
            continue;
        }
        // Modifiers (`.uni`), then the operands.
        let operands = after.trim_start_matches(|c: char| c == '.' || c.is_ascii_alphanumeric());
        let mut operands = operands.trim_start();
        if let Some(returns) = operands.strip_prefix('(') {
            let Some((_, after_returns)) = returns.split_once(')') else {
                continue;
            };
            operands = after_returns
                .trim_start()
                .trim_start_matches(',')
                .trim_start();
        }
        let callee = identifier(operands);
        // `%rd4`: a call through a register.
        if !callee.is_empty() && !callee.starts_with('%') {
            out.push(callee.to_string());
        }
    }
    out
}

/// The groups of functions that recurse: each a strongly connected component of the call graph
/// with a cycle in it (two or more functions, or one that calls itself), members sorted.
pub(crate) fn recursive_groups(functions: &BTreeMap<String, PtxFunction>) -> Vec<Vec<String>> {
    let names: Vec<&String> = functions.keys().collect();
    let index: BTreeMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let succs: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            functions[*n]
                .calls
                .iter()
                .filter_map(|c| index.get(c.as_str()).copied())
                .collect()
        })
        .collect();
    let mut preds = vec![Vec::new(); names.len()];
    for (from, tos) in succs.iter().enumerate() {
        for &to in tos {
            preds[to].push(from);
        }
    }
    // Kosaraju: finishing order on the graph, then components on the reversed graph. Both
    // walks keep their own stacks: a call graph may be deep.
    let mut seen = vec![false; names.len()];
    let mut order = Vec::with_capacity(names.len());
    for root in 0..names.len() {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((node, next)) = stack.last_mut() {
            if let Some(&succ) = succs[*node].get(*next) {
                *next += 1;
                if !seen[succ] {
                    seen[succ] = true;
                    stack.push((succ, 0));
                }
            } else {
                order.push(*node);
                stack.pop();
            }
        }
    }
    let mut component = vec![usize::MAX; names.len()];
    let mut groups = Vec::new();
    for &root in order.iter().rev() {
        if component[root] != usize::MAX {
            continue;
        }
        let id = groups.len();
        component[root] = id;
        let mut members = vec![root];
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            for &pred in &preds[node] {
                if component[pred] == usize::MAX {
                    component[pred] = id;
                    members.push(pred);
                    stack.push(pred);
                }
            }
        }
        groups.push(members);
    }
    let mut recursive: Vec<Vec<String>> = groups
        .into_iter()
        .filter(|members| members.len() > 1 || succs[members[0]].contains(&members[0]))
        .map(|members| {
            let mut names: Vec<String> = members.iter().map(|&m| names[m].clone()).collect();
            names.sort();
            names
        })
        .collect();
    recursive.sort();
    recursive
}

/// The functions reachable from `root` through calls, `root` included, in breadth-first order.
pub(crate) fn reachable<'a>(
    functions: &'a BTreeMap<String, PtxFunction>,
    root: &'a str,
) -> Vec<&'a str> {
    let mut order = vec![root];
    let mut at = 0;
    while let Some(&name) = order.get(at) {
        at += 1;
        let Some(function) = functions.get(name) else {
            continue;
        };
        for callee in &function.calls {
            if functions.contains_key(callee) && !order.contains(&callee.as_str()) {
                order.push(callee);
            }
        }
    }
    order
}

/// A shortest cycle of calls from `start` back to it inside `group`: the functions in call
/// order, `start` first (one function for a function that calls itself).
pub(crate) fn cycle_from(
    functions: &BTreeMap<String, PtxFunction>,
    group: &[String],
    start: &str,
) -> Vec<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(name) = queue.pop_front() {
        for callee in functions.get(name).map_or(&[][..], |f| &f.calls[..]) {
            if callee == start {
                let mut path = vec![name.to_string()];
                let mut at = name;
                while let Some(&prev) = came_from.get(at) {
                    path.push(prev.to_string());
                    at = prev;
                }
                path.reverse();
                return path;
            }
            let member = group.iter().any(|g| g == callee);
            if member && !came_from.contains_key(callee.as_str()) {
                came_from.insert(callee, name);
                queue.push_back(callee);
            }
        }
    }
    vec![start.to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What LLVM 22 prints: declarations first, a kernel calling a recursive function with a
    /// local array, mutual recursion, and a call split over lines as older LLVMs print it.
    const PTX: &str = "\
.func  (.param .b32 func_retval0) big
(
\t.param .b32 big_param_0
)
;
.extern .func  (.param .b32 func_retval0) vprintf
(
\t.param .b64 vprintf_param_0
)
;
.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.reg .b32 \t%r<4>;
\t{ // callseq 0, 0
\t.param .b32 \tparam0;
\tcall.uni (retval0), big, (param0);
\t} // callseq 0
\tcall.uni (retval0), vprintf, (param0, param1);
\tret;

}
.func  (.param .b32 func_retval0) big(
\t.param .b32 big_param_0
)
{
\t.local .align 4 .b8 \t__local_depot1[65536];
\tcall.uni (retval0), big, (param0);
\tcall.uni (retval0), even, (param0);
\tret;

}
.func even()
{
\tcall.uni 
\todd, 
\t(
\t);
\tret;
}
.func odd()
{
\tcall.uni even, ();
\tcall (retval0), %rd4, (param0), prototype_3;
\tret;
}
.func leaf()
{
\tret;
}
";

    #[test]
    fn reads_definitions_frames_and_calls() {
        let f = functions(PTX);
        assert_eq!(
            f.keys().map(String::as_str).collect::<Vec<_>>(),
            ["big", "even", "k", "leaf", "odd"]
        );
        assert_eq!(f["k"].calls, ["big", "vprintf"]);
        assert_eq!(f["k"].frame, 0);
        assert_eq!(f["big"].frame, 65536);
        assert_eq!(f["big"].calls, ["big", "even"]);
        assert_eq!(f["even"].calls, ["odd"]);
        assert_eq!(f["odd"].calls, ["even"]);
        assert!(f["leaf"].calls.is_empty());
    }

    #[test]
    fn finds_direct_and_mutual_recursion() {
        let f = functions(PTX);
        assert_eq!(
            recursive_groups(&f),
            [vec!["big".to_string()], vec!["even".into(), "odd".into()]]
        );
        assert_eq!(cycle_from(&f, &["big".into()], "big"), ["big"]);
        let pair = ["even".to_string(), "odd".to_string()];
        assert_eq!(cycle_from(&f, &pair, "odd"), ["odd", "even"]);
        assert_eq!(reachable(&f, "k"), ["k", "big", "even", "odd"]);
        assert_eq!(reachable(&f, "leaf"), ["leaf"]);
    }
}
