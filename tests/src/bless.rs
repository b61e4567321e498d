//! The one bless switch of the repository's expected-output tests: `OXIDE_BLESS=1` makes each of
//! them write what it got instead of comparing (tests/ui .stderr files, the pipeline snapshots,
//! the corpus case list here; device-std's trybuild tests map it to `TRYBUILD=overwrite`).

use std::path::Path;

/// The variable.
pub const ENV: &str = "OXIDE_BLESS";

/// Whether `OXIDE_BLESS` is set to something other than empty or `0`.
pub fn enabled() -> bool {
    std::env::var_os(ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the file at `expected` (a missing file counts as empty); with
/// `OXIDE_BLESS`, writes `actual` there instead. The error shows where they first differ.
pub fn check_file(expected: &Path, actual: &str) -> Result<(), String> {
    if enabled() {
        std::fs::write(expected, actual)
            .map_err(|e| format!("blessing {}: {e}", expected.display()))?;
        eprintln!("blessed {}", expected.display());
        return Ok(());
    }
    let old = std::fs::read_to_string(expected).unwrap_or_default();
    if old == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs from the output:\n{}\nIf the new output is right, rerun with {ENV}=1 and review the diff.",
        expected.display(),
        first_difference(&old, actual)
    ))
}

/// The first line where `expected` and `actual` differ, with a little context.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let at = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let mut out = format!("first difference at line {}:\n", at + 1);
    for line in &old[at.saturating_sub(3)..at] {
        out.push_str(&format!("  {line}\n"));
    }
    for line in old.iter().skip(at).take(4) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in new.iter().skip(at).take(4) {
        out.push_str(&format!("+ {line}\n"));
    }
    if old == new {
        out.push_str("(only line endings or the final newline differ)\n");
    } else if old.len() != new.len() {
        out.push_str(&format!(
            "({} lines expected, {} now)\n",
            old.len(),
            new.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_where_texts_part() {
        let diff = first_difference("a\nb\nc\n", "a\nB\nc\nd\n");
        assert!(
            diff.starts_with("first difference at line 2:\n  a\n- b\n"),
            "{diff}"
        );
        assert!(diff.contains("+ B") && !diff.contains("- a"), "{diff}");
        assert!(diff.contains("(3 lines expected, 4 now)"), "{diff}");
        let newline = first_difference("a\n", "a");
        assert!(newline.contains("final newline"), "{newline}");
        let appended = first_difference("a\n", "a\nb\n");
        assert!(
            appended.contains("line 2") && appended.contains("+ b"),
            "{appended}"
        );
    }

    #[test]
    fn a_mismatch_fails_and_a_match_passes() {
        if enabled() {
            // Blessing writes instead of comparing; what this test checks does not apply.
            return;
        }
        let dir = std::env::temp_dir().join(format!("oxide-bless-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("expected.txt");
        std::fs::write(&file, "one\n").unwrap();
        assert_eq!(check_file(&file, "one\n"), Ok(()));
        let err = check_file(&file, "two\n").unwrap_err();
        assert!(
            err.contains("expected.txt differs") && err.contains("OXIDE_BLESS=1"),
            "{err}"
        );
        assert!(check_file(&dir.join("missing.txt"), "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
