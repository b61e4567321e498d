//! The backend's floor plan, checked: each top-level module imports only modules on lower floors,
//! so the import graph between them has no circle, and a module can be read (and changed) with
//! only what lies beneath it in mind. A new module gets a floor here; an import that runs up
//! fails this test, naming the file.
//!
//! `cargo test -p oxide-codegen floor_plan -- --nocapture` prints the graph.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The floors, bottom first, each with what its modules are.
const FLOORS: &[(&str, &[&str])] = &[
    (
        "vocabulary: settings, error kinds, the mark keywords",
        &["config", "error", "marks"],
    ),
    (
        "context: what definitions mean (the registry), what a panic was compiling",
        &["registry", "ice"],
    ),
    ("MIR utilities", &["mir_util"]),
    ("the uniformity analysis", &["uniformity"]),
    ("the importer", &["import"]),
    (
        "the recursion check, over what the importer found",
        &["recursion"],
    ),
    ("orchestration: one crate's device path", &["device"]),
    ("the PTX into the host's objects", &["embed"]),
    ("the codegen backend", &["lib"]),
];

fn floor_of(module: &str) -> Option<usize> {
    FLOORS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src` belongs to: `import/calls.rs` is `import`'s, `device.rs`
/// is `device`.
fn module_of(src: &Path, file: &Path) -> String {
    let first = file
        .strip_prefix(src)
        .expect("under src")
        .components()
        .next()
        .expect("a path");
    let first = Path::new(first.as_os_str());
    first
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .into_owned()
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The top-level modules `code` names through `crate::`: `crate::a::b`, and each of
/// `crate::{a::x, b}`. Comments are left out (they name modules to explain, not to import).
fn imports(code: &str) -> BTreeSet<String> {
    let code: Vec<&str> = code
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect();
    let code = code.join("\n");
    let mut found = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => found.extend(group_heads(group)),
            None => {
                let name = identifier(rest);
                if !name.is_empty() {
                    found.insert(name.to_string());
                }
            }
        }
    }
    found
}

/// The first identifier of each element of a `{...}` group whose `{` was just read.
fn group_heads(text: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 1;
    let mut at_element = true;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_element = true,
            c if depth == 1 && at_element && (c.is_ascii_alphabetic() || c == '_') => {
                heads.push(identifier(&text[i..]).to_string());
                at_element = false;
            }
            _ => {}
        }
    }
    heads
}

#[test]
fn every_module_imports_only_lower_floors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let this_file = src.join("floor_plan.rs");
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| **f != this_file) {
        let from = module_of(&src, file);
        let Some(from_floor) = floor_of(&from) else {
            wrong.push(format!(
                "{}: the module `{from}` has no floor in FLOORS",
                file.display()
            ));
            continue;
        };
        let code = std::fs::read_to_string(file).expect("a source file");
        for to in imports(&code) {
            if to == from {
                continue;
            }
            match floor_of(&to) {
                Some(to_floor) if to_floor < from_floor => {}
                Some(to_floor) => wrong.push(format!(
                    "{}: `{from}` ({}) imports `{to}` ({}), which is not below it",
                    file.display(),
                    FLOORS[from_floor].0,
                    FLOORS[to_floor].0
                )),
                None => wrong.push(format!(
                    "{}: `{from}` imports `crate::{to}`, which has no floor in FLOORS",
                    file.display()
                )),
            }
            edges.insert((from.clone(), to));
        }
    }
    for (floor, (what, modules)) in FLOORS.iter().enumerate().rev() {
        println!("floor {}: {what}", floor + 1);
        for module in *modules {
            let to: Vec<&str> = edges
                .iter()
                .filter(|(f, _)| f == module)
                .map(|(_, t)| t.as_str())
                .collect();
            println!("  {module} -> {}", to.join(", "));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn imports_are_read_from_paths_and_groups() {
    let code = "use crate::error::DeviceResult; // crate::comment\n\
                use crate::{\n    a::{b, c},\n    // crate::no\n    d,\n};\n\
                let x = crate::e::f(crate::g::h);";
    let found: Vec<String> = imports(code).into_iter().collect();
    assert_eq!(found, ["a", "d", "e", "error", "g"]);
}
