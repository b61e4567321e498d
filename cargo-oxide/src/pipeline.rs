//! `cargo oxide pipeline`: build with `--cfg oxide_dump` and show every stage the backend wrote to
//! `<deps>/<crate>.pipeline/` (`1-rustc-mir.txt` ... `7-ptx.ptx`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::build::{self, BuildOptions};
use crate::error::{Error, Result};

/// One dumped stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// The file name without its extension, e.g. `5-llvm-ir`.
    pub name: String,
    pub path: PathBuf,
}

impl Stage {
    /// Whether `query` names this stage: the whole name (`5-llvm-ir`), the name without its
    /// number (`llvm-ir`), or the number (`5`).
    pub fn matches(&self, query: &str) -> bool {
        let (number, bare) = self.name.split_once('-').unwrap_or(("", &self.name));
        query == self.name || query == bare || query == number
    }
}

/// The stages in `dir`, in pipeline order (by their leading number, then name).
pub fn stages(dir: &Path) -> Result<Vec<Stage>> {
    let entries = std::fs::read_dir(dir).map_err(|_| Error::NoPipelineDump(dir.to_path_buf()))?;
    let mut stages: Vec<Stage> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter_map(|path| {
            let name = path.file_stem()?.to_string_lossy().into_owned();
            Some(Stage { name, path })
        })
        .collect();
    stages.sort_by_key(|s| {
        let number = s
            .name
            .split('-')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(u32::MAX);
        (number, s.name.clone())
    });
    if stages.is_empty() {
        return Err(Error::NoPipelineDump(dir.to_path_buf()));
    }
    Ok(stages)
}

/// Builds the crate with dumps on and returns the text to print: every stage (or the one named
/// by `only`) under a `== <stage> ==` header.
pub fn pipeline(opts: &BuildOptions, only: Option<&str>) -> Result<String> {
    let opts = BuildOptions {
        dump: true,
        ..opts.clone()
    };
    let out = build::build(&opts)?;
    render(&out.pipeline_dir(), only)
}

/// The text of the stages in `dir`.
pub fn render(dir: &Path, only: Option<&str>) -> Result<String> {
    let all = stages(dir)?;
    let chosen: Vec<&Stage> = match only {
        None => all.iter().collect(),
        Some(query) => all.iter().filter(|s| s.matches(query)).collect(),
    };
    if chosen.is_empty() {
        return Err(Error::NoStage {
            stage: only.unwrap_or_default().to_owned(),
            dir: dir.to_path_buf(),
            available: all
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut text = String::new();
    for stage in chosen {
        let body = std::fs::read_to_string(&stage.path).map_err(Error::io(&stage.path))?;
        let _ = writeln!(text, "== {} ==", stage.name);
        text.push_str(&body);
        if !body.ends_with('\n') {
            text.push('\n');
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn dump_dir(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "cargo-oxide-pipeline-{}-{}",
            std::process::id(),
            files.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, body) in files {
            std::fs::write(dir.join(name), body).unwrap();
        }
        dir
    }

    #[test]
    fn renders_stages_in_order_and_selects_one() {
        let dir = dump_dir(&[
            ("6-ptx.ptx", ".entry k()\n"),
            ("1-rustc-mir.txt", "fn k() {}"),
            ("5-llvm-ir.ll", "define void @k()\n"),
        ]);
        expect![[r#"
            == 1-rustc-mir ==
            fn k() {}
            == 5-llvm-ir ==
            define void @k()
            == 6-ptx ==
            .entry k()
        "#]]
        .assert_eq(&render(&dir, None).unwrap());
        for query in ["llvm-ir", "5", "5-llvm-ir"] {
            assert_eq!(
                render(&dir, Some(query)).unwrap(),
                "== 5-llvm-ir ==\ndefine void @k()\n"
            );
        }
        let err = render(&dir, Some("mir-dialect")).unwrap_err().to_string();
        assert!(
            err.ends_with("stages there: 1-rustc-mir, 5-llvm-ir, 6-ptx"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_dump_says_so() {
        let err = render(Path::new("/nonexistent/k.pipeline"), None).unwrap_err();
        assert!(matches!(err, Error::NoPipelineDump(_)));
    }
}
