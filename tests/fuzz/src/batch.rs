//! A batch crate: many generated programs in one crate, so that one backend build covers them
//! all. Lives in a work folder of its own (its own cargo workspace and target dir), so a long
//! campaign never holds the lock of the repository's `target/oxide`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cargo_oxide::build::rustflags;
use oxide_contract::GpuArch;

use crate::generator::Program;

const COMMON: &str = include_str!("../template/common.rs");
const MAIN: &str = include_str!("../template/main.rs");
/// The batch crate's name (and so its PTX's: `<deps>/fuzz_batch.ptx`).
pub const CRATE: &str = "fuzz_batch";

/// Where batches are built and with what.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The work folder: `<dir>/Cargo.toml` (a workspace of one member), `<dir>/batch/`,
    /// `<dir>/target/`.
    pub dir: PathBuf,
    /// The oxide repository (for the `oxide` dependency's path and Cargo.lock).
    pub repo: PathBuf,
    /// The backend library passed to `-Zcodegen-backend`.
    pub backend: PathBuf,
    pub triple: String,
    pub arch: GpuArch,
}

/// What building a batch gave.
#[derive(Debug)]
pub struct Built {
    pub success: bool,
    /// rustc's rendered diagnostics (and any backend panic), as cargo printed them.
    pub stderr: String,
    /// Whether rustc died of a signal (a crash inside LLVM, a stack overflow).
    pub crashed: bool,
    pub ptx: PathBuf,
    pub binary: PathBuf,
    pub seconds: f64,
}

/// Each program's first and last line in programs.rs (1-based, inclusive), to map a diagnostic's
/// span back to its program.
pub type LineMap = Vec<(u64, u64, u64)>;

impl Workspace {
    pub fn batch_dir(&self) -> PathBuf {
        self.dir.join("batch")
    }

    pub fn programs_file(&self) -> PathBuf {
        self.batch_dir().join("src/programs.rs")
    }

    fn profile_dir(&self) -> PathBuf {
        self.dir.join("target").join(&self.triple).join("release")
    }

    /// Writes the workspace (once) and the batch crate holding `programs`.
    pub fn write(&self, programs: &[Program]) -> std::io::Result<LineMap> {
        let src = self.batch_dir().join("src");
        std::fs::create_dir_all(&src)?;
        let oxide = self.repo.join("device-std/oxide");
        write_if_changed(
            &self.dir.join("Cargo.toml"),
            "[workspace]\nresolver = \"3\"\nmembers = [\"batch\"]\n\n[profile.release]\n# The host side (plain-Rust reference, emulator, harness) needs no O3; the backend runs its own\n# pipeline on the kernels, and MIR is optimised the same from opt-level 1 up.\nopt-level = 1\ndebug = 0\nincremental = false\n",
        )?;
        let lock = self.dir.join("Cargo.lock");
        if !lock.exists() {
            // The repository's lock pins the same dependency versions as its own builds.
            std::fs::copy(self.repo.join("Cargo.lock"), &lock)?;
        }
        write_if_changed(
            &self.batch_dir().join("Cargo.toml"),
            &format!(
                "[package]\nname = \"{CRATE}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\noxide = {{ path = {:?} }}\n\n[lints.rust]\nunexpected_cfgs = {{ level = \"warn\", check-cfg = ['cfg(oxide_backend)'] }}\n",
                oxide.display().to_string()
            ),
        )?;
        write_if_changed(&src.join("common.rs"), COMMON)?;
        write_if_changed(&src.join("main.rs"), MAIN)?;
        let (text, map) = programs_rs(programs);
        std::fs::write(self.programs_file(), text)?;
        Ok(map)
    }

    /// `cargo build --release` of the batch with the backend.
    pub fn build(&self) -> std::io::Result<Built> {
        let libdevice = oxide_cuda_tools::libdevice::find().ok();
        let flags = rustflags(&self.backend, self.arch, false, libdevice.as_deref());
        let start = Instant::now();
        let out = cargo_oxide::cargo::cargo()
            .args(["build", "--release", "--quiet", "--target", &self.triple])
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET_DIR")
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let crashed = stderr.contains("(signal: ")
            || stderr.contains("SIGSEGV")
            || stderr.contains("stack overflow");
        Ok(Built {
            success: out.status.success(),
            stderr,
            crashed,
            ptx: self.profile_dir().join("deps").join(format!("{CRATE}.ptx")),
            binary: self.profile_dir().join(CRATE),
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// Runs `binary --cpu` and returns its stdout (the per-program lines and the summary).
pub fn run_cpu(binary: &Path) -> std::io::Result<(bool, String)> {
    let out = Command::new(binary).arg("--cpu").output()?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// programs.rs: the programs' modules and `ALL`, the harness's list of them.
pub fn programs_rs(programs: &[Program]) -> (String, LineMap) {
    let mut text =
        String::from("//! Generated by oxide-fuzz: do not edit.\n\nuse crate::Program;\n\n");
    let mut map = Vec::new();
    for p in programs {
        let first = text.lines().count() as u64 + 1;
        text.push_str(&p.module);
        map.push((p.index, first, text.lines().count() as u64));
        text.push('\n');
    }
    text.push_str("pub const ALL: &[Program] = &[\n");
    for p in programs {
        let (m, k) = (&p.module_name, &p.kernel);
        text.push_str(&format!(
            "    Program {{ name: \"{k}\", body: {m}::body, \
             launch: |gpu, cfg, input, out| {m}::{k}::launch(gpu, cfg, input, out), \
             emulate: |cfg, input, out| {m}::{k}::emulate(cfg, input, out) }},\n"
        ));
    }
    text.push_str("];\n");
    (text, map)
}

/// One program as a standalone `src/main.rs` (with `oxide` as its one dependency): the batch
/// harness with only this program, which `--cpu` compares on the emulator and `--gpu` on the GPU.
pub fn standalone(program: &Program) -> String {
    let (programs, _) = programs_rs(std::slice::from_ref(program));
    let indent = |s: &str| {
        s.lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("    {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let common: String = COMMON
        .lines()
        .filter(|l| !l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let programs: String = programs
        .lines()
        .filter(|l| !l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    MAIN.replace(
        "mod common;\nmod programs;\n",
        &format!(
            "#[allow(dead_code)]\nmod common {{\n{}\n}}\n#[rustfmt::skip]\nmod programs {{\n{}\n}}\n",
            indent(&common),
            indent(&programs)
        ),
    )
}

/// The programs (by index) that a build's diagnostics point into: spans in programs.rs mapped
/// through `map`, and kernel names `k<index>` the backend's messages mention.
pub fn implicated(stderr: &str, map: &LineMap) -> Vec<u64> {
    let mut found = Vec::new();
    for line in error_blocks(stderr) {
        if let Some(pos) = line.find("programs.rs:") {
            let rest = &line[pos + "programs.rs:".len()..];
            let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = number.parse::<u64>()
                && let Some((index, _, _)) = map.iter().find(|(_, a, b)| (*a..=*b).contains(&n))
            {
                found.push(*index);
            }
        }
        for (index, _, _) in map {
            let names = [
                format!("`k{index}`"),
                format!("p{index}::"),
                format!("k{index}::"),
            ];
            if names.iter().any(|n| line.contains(n.as_str())) {
                found.push(*index);
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The lines of the error diagnostics in `stderr` (each from its `error` line to the blank line
/// that ends it), without the warnings.
pub fn error_blocks(stderr: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut in_error = false;
    for line in stderr.lines() {
        if line.starts_with("error") || line.contains("panicked at") {
            in_error = true;
        } else if line.starts_with("warning") || line.trim().is_empty() {
            in_error = false;
        }
        if in_error {
            lines.push(line);
        }
    }
    lines
}

/// The programs whose PTX functions a ptxas message points at (`line N` of the PTX file).
pub fn implicated_in_ptx(ptxas_stderr: &str, ptx: &str) -> Vec<u64> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut found = Vec::new();
    for msg in ptxas_stderr.lines() {
        let Some(pos) = msg.find("line ") else {
            continue;
        };
        let number: String = msg[pos + 5..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let Ok(n) = number.parse::<usize>() else {
            continue;
        };
        // The enclosing function: the last `.entry`/`.func` header at or above the line; its
        // name holds `k<index>` (an entry) or `p<index>` (a mangled helper path).
        let header = lines[..n.min(lines.len())]
            .iter()
            .rev()
            .find(|l| l.contains(".entry") || l.contains(".func"));
        if let Some(index) = header.and_then(|h| program_in_symbol(h)) {
            found.push(index);
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The program of a PTX function header: an entry `k<index>`, or a function whose mangled path
/// runs through `programs::p<index>` (v0 mangling: `8programs3p17...`).
fn program_in_symbol(header: &str) -> Option<u64> {
    let digits = |s: &str| -> String { s.chars().take_while(char::is_ascii_digit).collect() };
    if let Some(pos) = header.find(".entry k") {
        return digits(&header[pos + ".entry k".len()..]).parse().ok();
    }
    let rest = &header[header.find("8programs")? + "8programs".len()..];
    let len = digits(rest);
    let name = rest[len.len()..].get(..len.parse::<usize>().ok()?)?;
    name.strip_prefix('p')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::generate;

    #[test]
    fn diagnostics_map_to_programs_by_span_and_kernel_name() {
        let programs: Vec<Program> = (3..6).map(|i| generate(7, i)).collect();
        let (text, map) = programs_rs(&programs);
        let (index, first, last) = map[1];
        assert_eq!(index, 4);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[first as usize - 1].contains("Program 4."));
        assert_eq!(lines[last as usize - 1], "}");
        let stderr = format!(
            "warning: unused\n  --> batch/src/programs.rs:{first}:1\n\nerror: oxide: unsupported\n  --> batch/src/programs.rs:{}:5\n   = note: in kernel `k5`\n",
            first + 2
        );
        assert_eq!(implicated(&stderr, &map), vec![4, 5]);
    }

    #[test]
    fn ptxas_lines_map_to_the_enclosing_function() {
        let ptx = ".visible .entry k12(\n  add.s32 %r1, %r2, %r3;\n}\n.func _RNvNtNtCs4C_10fuzz_batch8programs3p172h0\n  bad;\n";
        let err = "ptxas /x.ptx, line 5; error   : Unknown instruction 'bad'";
        assert_eq!(implicated_in_ptx(err, ptx), vec![17]);
        assert_eq!(
            implicated_in_ptx("ptxas /x.ptx, line 2; error", ptx),
            vec![12]
        );
    }

    #[test]
    fn a_standalone_reproducer_holds_one_program() {
        let p = generate(1, 9);
        let text = standalone(&p);
        assert!(text.contains("pub mod p9 {") && text.contains("p9::k9::emulate"));
        assert!(!text.contains("mod programs;") && !text.contains("mod common;"));
    }
}
