//! Running cargo and rustc: finding the workspace, the host triple, and reading cargo's JSON
//! messages while its rendered diagnostics stream to the user unchanged.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use oxide_cuda_tools::Error as ToolError;

use crate::error::{Error, Result};
use crate::json::Json;
use crate::toolchain;

/// The cargo to run: the pinned toolchain's (`rustup run <pin> cargo`, [`toolchain::command`]),
/// so that a project on another toolchain still builds with the one the backend links; without
/// rustup, `$CARGO` (set when we run under cargo) or `cargo` from PATH.
pub fn cargo() -> Command {
    toolchain::command("cargo").unwrap_or_else(|| {
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
    })
}

/// The rustc to ask about the toolchain: `$RUSTC` if set, else the pinned toolchain's, else
/// `rustc` from PATH.
pub fn rustc() -> Command {
    match std::env::var_os("RUSTC") {
        Some(rustc) => Command::new(rustc),
        None => toolchain::command("rustc").unwrap_or_else(|| Command::new("rustc")),
    }
}

/// A one-line rendering of a command for messages (oxide-cuda-tools', so that every message
/// renders commands alike).
pub use oxide_cuda_tools::describe;

/// Runs `cmd` to completion and returns its stdout; fails with its stderr if it exits non-zero.
pub fn output(cmd: &mut Command) -> Result<String> {
    tracing::debug!("running {}", describe(cmd));
    Ok(oxide_cuda_tools::output(cmd)?)
}

/// The root folder of the workspace that `manifest` belongs to (`cargo locate-project --workspace`).
pub fn workspace_root(manifest: &Path) -> Result<PathBuf> {
    let out = output(
        cargo()
            .args(["locate-project", "--workspace", "--message-format", "plain"])
            .arg("--manifest-path")
            .arg(manifest),
    )?;
    let root_manifest = PathBuf::from(out.trim());
    root_manifest
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| ToolError::UnexpectedOutput("cargo locate-project".into()).into())
}

/// The `default-run` binary of the package whose manifest is `manifest` (`cargo metadata`), if
/// it sets one.
pub fn default_run(manifest: &Path) -> Result<Option<String>> {
    let out = output(
        cargo()
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .arg("--manifest-path")
            .arg(manifest),
    )?;
    let metadata = Json::parse(out.trim())
        .map_err(|_| ToolError::UnexpectedOutput("cargo metadata".into()))?;
    let packages = metadata
        .get("packages")
        .and_then(Json::as_array)
        .unwrap_or_default();
    let same = |p: &&Json| {
        p.get("manifest_path")
            .and_then(Json::as_str)
            .is_some_and(|m| Path::new(m) == manifest)
    };
    Ok(packages
        .iter()
        .find(same)
        .and_then(|p| p.get("default_run"))
        .and_then(Json::as_str)
        .map(str::to_owned))
}

/// `rustc -vV`, as key/value pairs (`host`, `release`, `commit-date`, ...), run in `dir` so that
/// the rust-toolchain.toml there picks the toolchain.
pub fn rustc_version(dir: &Path) -> Result<Vec<(String, String)>> {
    let out = output(rustc().arg("-vV").current_dir(dir))?;
    Ok(out
        .lines()
        .filter_map(|line| line.split_once(": "))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect())
}

/// The host target triple (`host:` of `rustc -vV`).
pub fn host_triple(dir: &Path) -> Result<String> {
    rustc_version(dir)?
        .into_iter()
        .find(|(k, _)| k == "host")
        .map(|(_, v)| v)
        .ok_or_else(|| ToolError::UnexpectedOutput("rustc -vV".into()).into())
}

/// One `compiler-artifact` message of cargo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub package_id: String,
    pub manifest_path: PathBuf,
    /// The target's name as cargo spells it (`vecadd`, `oxide_macros`).
    pub target_name: String,
    /// `bin`, `lib`, `rlib`, `cdylib`, `proc-macro`, ...
    pub kinds: Vec<String>,
    pub filenames: Vec<PathBuf>,
    pub executable: Option<PathBuf>,
}

impl Artifact {
    fn from_json(msg: &Json) -> Option<Artifact> {
        let target = msg.get("target")?;
        Some(Artifact {
            package_id: msg.get("package_id")?.as_str()?.to_owned(),
            manifest_path: PathBuf::from(msg.get("manifest_path")?.as_str()?),
            target_name: target.get("name")?.as_str()?.to_owned(),
            kinds: target.get("kind").map(Json::strings).unwrap_or_default(),
            filenames: msg
                .get("filenames")
                .map(Json::strings)
                .unwrap_or_default()
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            executable: msg
                .get("executable")
                .and_then(Json::as_str)
                .map(PathBuf::from),
        })
    }

    /// The rustc crate name: the target name with `-` replaced by `_`.
    pub fn crate_name(&self) -> String {
        self.target_name.replace('-', "_")
    }

    pub fn has_kind(&self, kind: &str) -> bool {
        self.kinds.iter().any(|k| k == kind)
    }

    /// The first output file whose name ends with `suffix` (`.rlib`, `.so`).
    pub fn file_ending(&self, suffix: &str) -> Option<&Path> {
        self.filenames
            .iter()
            .find(|f| f.to_string_lossy().ends_with(suffix))
            .map(PathBuf::as_path)
    }
}

/// What a cargo build with JSON messages produced.
#[derive(Debug, Default)]
pub struct CargoRun {
    pub success: bool,
    pub artifacts: Vec<Artifact>,
}

/// Runs `cmd` (a cargo build given `--message-format=json-render-diagnostics`): cargo renders
/// rustc's diagnostics onto our stderr itself; we read the artifacts from its stdout and pass any
/// non-JSON line through.
pub fn run_json(cmd: &mut Command) -> Result<CargoRun> {
    let program = describe(cmd);
    tracing::debug!("running {program}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| ToolError::Spawn {
            program: program.clone(),
            source,
        })?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut run = CargoRun::default();
    let mut reported_success = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(Error::io(&program))?;
        if !line.starts_with('{') {
            // Not a message: a build script or tool wrote to stdout; show it.
            println!("{line}");
            continue;
        }
        let msg = Json::parse(&line).map_err(|reason| Error::BadCargoMessage {
            reason,
            line: line.clone(),
        })?;
        match msg.get("reason").and_then(Json::as_str) {
            Some("compiler-artifact") => {
                if let Some(artifact) = Artifact::from_json(&msg) {
                    tracing::trace!(?artifact, "artifact");
                    run.artifacts.push(artifact);
                }
            }
            Some("build-finished") => {
                reported_success = msg.get("success").and_then(Json::as_bool);
            }
            _ => {}
        }
    }
    let status = child.wait().map_err(Error::io(&program))?;
    run.success = status.success() && reported_success.unwrap_or(true);
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_from_message() {
        let msg = Json::parse(
            r#"{"reason":"compiler-artifact","package_id":"path+file:///r/device-std/macros#oxide-macros@0.1.0","manifest_path":"/r/device-std/macros/Cargo.toml","target":{"kind":["proc-macro"],"name":"oxide_macros"},"filenames":["/r/target/oxide/release/deps/liboxide_macros-0123.so"],"executable":null,"fresh":true}"#,
        )
        .unwrap();
        let a = Artifact::from_json(&msg).unwrap();
        assert!(a.has_kind("proc-macro"));
        assert_eq!(a.executable, None);
        assert_eq!(
            a.file_ending(".so"),
            Some(Path::new(
                "/r/target/oxide/release/deps/liboxide_macros-0123.so"
            ))
        );
        assert_eq!(a.file_ending(".rlib"), None);
        assert_eq!(a.crate_name(), "oxide_macros");
    }

    #[test]
    fn json_build_passes_lines_and_reads_artifacts() {
        // A stand-in for cargo: a shell printing two messages and one plain line.
        let script = r#"printf '%s\n' 'hello' '{"reason":"compiler-artifact","package_id":"p","manifest_path":"/m/Cargo.toml","target":{"kind":["bin"],"name":"my-kernel"},"filenames":["/t/my-kernel"],"executable":"/t/my-kernel"}' '{"reason":"build-finished","success":true}'"#;
        let run = run_json(Command::new("sh").args(["-c", script])).unwrap();
        assert!(run.success);
        assert_eq!(run.artifacts.len(), 1);
        assert_eq!(run.artifacts[0].crate_name(), "my_kernel");
        assert_eq!(
            run.artifacts[0].executable.as_deref(),
            Some(Path::new("/t/my-kernel"))
        );

        let failed = run_json(Command::new("sh").args([
            "-c",
            r#"echo '{"reason":"build-finished","success":false}'"#,
        ]))
        .unwrap();
        assert!(!failed.success);
    }
}
