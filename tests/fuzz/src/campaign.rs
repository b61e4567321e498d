//! The campaign: generate programs in batches, build each batch through the backend and ptxas,
//! run it on the emulator against plain Rust, and isolate every failing program (by the spans of
//! its diagnostics, else by bisection) into a standalone reproducer.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use oxide_cuda_tools::Ptxas;

use crate::batch::{self, Workspace};
use crate::generator::{Program, generate};

/// What went wrong with one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The backend panicked or crashed (an internal compiler error).
    Ice,
    /// ptxas rejected the PTX the backend produced.
    PtxasRejected,
    /// The emulator's checksums differ from plain Rust's (or the emulator failed).
    Mismatch,
    /// The backend reported a construct it does not support: a coverage gap, not a failure.
    Unsupported,
    /// rustc rejected the program before the backend (a bug of the generator, not of oxide).
    GeneratorBug,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ice => "ice",
            Kind::PtxasRejected => "ptxas",
            Kind::Mismatch => "mismatch",
            Kind::Unsupported => "unsupported",
            Kind::GeneratorBug => "generator",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: Kind,
    pub index: u64,
    /// The relevant lines of the diagnostic or of the comparison.
    pub message: String,
    pub reproducer: PathBuf,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub programs: u64,
    /// Programs per batch crate.
    pub batch: u64,
    /// Index of the first program (to resume a campaign).
    pub start: u64,
    /// Where reproducers and report.txt go.
    pub out: PathBuf,
    /// Copy each batch's (stripped) binary into `<dir>/bin/` for the GPU run.
    pub keep_bins: Option<PathBuf>,
}

#[derive(Debug, Default)]
pub struct Summary {
    pub generated: u64,
    /// Programs the backend compiled and ptxas accepted.
    pub compiled: u64,
    /// Programs run on the emulator and compared with plain Rust.
    pub compared: u64,
    pub passed: u64,
    pub findings: Vec<Finding>,
    /// Programs containing each construct.
    pub coverage: BTreeMap<&'static str, u64>,
    pub builds: u64,
    pub build_seconds: f64,
    pub run_seconds: f64,
    pub wall_seconds: f64,
}

impl Summary {
    pub fn count(&self, kind: Kind) -> usize {
        self.findings.iter().filter(|f| f.kind == kind).count()
    }

    /// Findings that are oxide's bugs (not coverage gaps or generator bugs).
    pub fn bugs(&self) -> usize {
        self.count(Kind::Ice) + self.count(Kind::PtxasRejected) + self.count(Kind::Mismatch)
    }

    pub fn render(&self, opts: &Options) -> String {
        let mut s = String::new();
        let minutes = self.wall_seconds / 60.0;
        let _ = writeln!(
            s,
            "oxide-fuzz --seed {} --start {} --programs {} --batch {}",
            opts.seed, opts.start, opts.programs, opts.batch
        );
        let _ = writeln!(s, "programs generated:            {}", self.generated);
        let _ = writeln!(s, "compiled (backend + ptxas):    {}", self.compiled);
        let _ = writeln!(s, "run on the emulator vs Rust:   {}", self.compared);
        let _ = writeln!(s, "passed:                        {}", self.passed);
        let _ = writeln!(
            s,
            "backend ICEs/panics:           {}",
            self.count(Kind::Ice)
        );
        let _ = writeln!(
            s,
            "ptxas rejections:              {}",
            self.count(Kind::PtxasRejected)
        );
        let _ = writeln!(
            s,
            "emulator-vs-Rust mismatches:   {}",
            self.count(Kind::Mismatch)
        );
        let _ = writeln!(
            s,
            "unsupported (coverage gaps):   {}",
            self.count(Kind::Unsupported)
        );
        let _ = writeln!(
            s,
            "generator bugs (rustc errors): {}",
            self.count(Kind::GeneratorBug)
        );
        let _ = writeln!(
            s,
            "time: {:.1} min wall, {} builds ({:.0} s), runs {:.0} s; {:.1} programs/minute",
            minutes,
            self.builds,
            self.build_seconds,
            self.run_seconds,
            if minutes > 0.0 {
                self.generated as f64 / minutes
            } else {
                0.0
            }
        );
        let _ = writeln!(s, "\ncoverage (programs containing the construct):");
        let mut cov: Vec<_> = self.coverage.iter().collect();
        cov.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (what, n) in cov {
            let pct = 100.0 * *n as f64 / self.generated.max(1) as f64;
            let _ = writeln!(s, "  {pct:5.1}%  {what}");
        }
        let _ = writeln!(s, "\nfindings:");
        for f in &self.findings {
            let _ = writeln!(
                s,
                "- {} program {} ({}):\n    {}",
                f.kind.name(),
                f.index,
                f.reproducer.display(),
                f.message.replace('\n', "\n    ")
            );
        }
        s
    }
}

pub struct Campaign<'a> {
    pub ws: &'a Workspace,
    pub ptxas: &'a Ptxas,
    pub opts: Options,
    pub summary: Summary,
    started: Instant,
}

impl<'a> Campaign<'a> {
    pub fn new(ws: &'a Workspace, ptxas: &'a Ptxas, opts: Options) -> Self {
        Campaign {
            ws,
            ptxas,
            opts,
            summary: Summary::default(),
            started: Instant::now(),
        }
    }

    /// Runs every batch, writing `<out>/report.txt` after each.
    pub fn run(&mut self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.opts.out)?;
        let end = self.opts.start + self.opts.programs;
        let mut first = self.opts.start;
        while first < end {
            let last = (first + self.opts.batch).min(end);
            let programs: Vec<Program> =
                (first..last).map(|i| generate(self.opts.seed, i)).collect();
            self.run_batch(programs)?;
            self.summary.wall_seconds = self.started.elapsed().as_secs_f64();
            std::fs::write(
                self.opts.out.join("report.txt"),
                self.summary.render(&self.opts),
            )?;
            eprintln!(
                "oxide-fuzz: programs {first}..{last}: {} generated, {} compiled, {} passed, {} findings ({} bugs), {:.1} min",
                self.summary.generated,
                self.summary.compiled,
                self.summary.passed,
                self.summary.findings.len(),
                self.summary.bugs(),
                self.summary.wall_seconds / 60.0
            );
            first = last;
        }
        Ok(())
    }

    fn run_batch(&mut self, programs: Vec<Program>) -> std::io::Result<()> {
        self.summary.generated += programs.len() as u64;
        for p in &programs {
            for c in &p.covered {
                *self.summary.coverage.entry(c).or_default() += 1;
            }
        }
        let Some((built, good)) = self.build_isolating(programs)? else {
            return Ok(());
        };
        self.summary.compiled += good.len() as u64;
        let start = Instant::now();
        let (_, stdout) = batch::run_cpu(&built)?;
        self.summary.run_seconds += start.elapsed().as_secs_f64();
        let mut reported = 0;
        for line in stdout.lines() {
            if line.starts_with("ok ") {
                reported += 1;
                self.summary.passed += 1;
            } else if let Some(rest) = line.strip_prefix("FAIL k") {
                reported += 1;
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let (Ok(index), Some(p)) = (
                    digits.parse::<u64>(),
                    good.iter().find(|p| Some(p.index) == digits.parse().ok()),
                ) {
                    let kind = if line.contains("plain-Rust body panicked") {
                        Kind::GeneratorBug
                    } else {
                        Kind::Mismatch
                    };
                    self.record(kind, index, line.to_owned(), p)?;
                }
            }
        }
        self.summary.compared += reported;
        if reported != good.len() as u64 {
            let first = &good[0];
            self.record(
                Kind::Mismatch,
                first.index,
                format!(
                    "the batch harness reported {reported} of {} programs (it crashed?):\n{}",
                    good.len(),
                    tail(&stdout, 10)
                ),
                first,
            )?;
        }
        if let Some(dir) = &self.opts.keep_bins {
            keep_binary(&built, dir, self.opts.seed, &good)?;
        }
        Ok(())
    }

    /// Builds `programs`, removing each program that fails to build or to assemble (recording
    /// it), until the rest builds: returns that binary and the programs in it.
    fn build_isolating(
        &mut self,
        mut programs: Vec<Program>,
    ) -> std::io::Result<Option<(PathBuf, Vec<Program>)>> {
        while !programs.is_empty() {
            let map = self.ws.write(&programs)?;
            let built = self.build()?;
            let suspects = if built.success {
                match self.ptxas.check(&built.ptx, self.ws.arch.name()) {
                    Ok(()) => return Ok(Some((built.binary, programs))),
                    Err(e) => {
                        let ptx = std::fs::read_to_string(&built.ptx).unwrap_or_default();
                        batch::implicated_in_ptx(&e.to_string(), &ptx)
                    }
                }
            } else {
                batch::implicated(&built.stderr, &map)
            };
            let mut removed = false;
            for index in suspects {
                if let Some(p) = programs.iter().find(|p| p.index == index).cloned()
                    && self.isolate(&p)?
                {
                    programs.retain(|p| p.index != index);
                    removed = true;
                }
            }
            if !removed {
                // No diagnostic named a program that fails alone: halve until one is found.
                let index = self.bisect(&programs)?;
                let p = programs.iter().find(|p| p.index == index).cloned();
                if let Some(p) = p
                    && !self.isolate(&p)?
                {
                    self.record(
                        Kind::Ice,
                        index,
                        "fails only together with other programs of its batch (builds alone)"
                            .into(),
                        &p,
                    )?;
                }
                programs.retain(|p| p.index != index);
            }
        }
        Ok(None)
    }

    fn build(&mut self) -> std::io::Result<batch::Built> {
        let built = self.ws.build()?;
        self.summary.builds += 1;
        self.summary.build_seconds += built.seconds;
        Ok(built)
    }

    /// Whether `programs` build and assemble.
    fn builds(&mut self, programs: &[Program]) -> std::io::Result<bool> {
        self.ws.write(programs)?;
        let built = self.build()?;
        Ok(built.success && self.ptxas.check(&built.ptx, self.ws.arch.name()).is_ok())
    }

    /// One program whose presence makes `programs` fail, by halving.
    fn bisect(&mut self, programs: &[Program]) -> std::io::Result<u64> {
        let mut range = programs;
        while range.len() > 1 {
            let (a, b) = range.split_at(range.len() / 2);
            range = if !self.builds(a)? { a } else { b };
        }
        Ok(range[0].index)
    }

    /// Builds `program` alone and records why it fails; false when it builds and assembles.
    fn isolate(&mut self, program: &Program) -> std::io::Result<bool> {
        self.ws.write(std::slice::from_ref(program))?;
        let built = self.build()?;
        if !built.success {
            let (kind, message) = classify(&built.stderr, built.crashed);
            self.record(kind, program.index, message, program)?;
            return Ok(true);
        }
        if let Err(e) = self.ptxas.check(&built.ptx, self.ws.arch.name()) {
            let message = tail(&e.to_string(), 12);
            self.record(Kind::PtxasRejected, program.index, message, program)?;
            return Ok(true);
        }
        Ok(false)
    }

    fn record(
        &mut self,
        kind: Kind,
        index: u64,
        message: String,
        p: &Program,
    ) -> std::io::Result<()> {
        let dir = self.opts.out.join("repro");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!(
            "{}-seed{}-p{index}.rs",
            kind.name(),
            self.opts.seed
        ));
        let header: String = message.lines().map(|l| format!("// {l}\n")).collect();
        std::fs::write(
            &path,
            format!(
                "// oxide-fuzz finding: {} (seed {}, program {index}).\n// Regenerate: cargo run -p oxide-fuzz -- show --seed {} --index {index}\n// As a crate: this file is src/main.rs, with `oxide` as the one dependency; build it with\n// `cargo oxide build`, then run the binary with --cpu (emulator) or --gpu.\n{header}\n{}",
                kind.name(),
                self.opts.seed,
                self.opts.seed,
                batch::standalone(p)
            ),
        )?;
        eprintln!(
            "oxide-fuzz: {} in program {index}: {}",
            kind.name(),
            path.display()
        );
        self.summary.findings.push(Finding {
            kind,
            index,
            message,
            reproducer: path,
        });
        Ok(())
    }
}

/// The kind of a failed build and the lines that say why.
pub fn classify(stderr: &str, crashed: bool) -> (Kind, String) {
    let relevant: Vec<&str> = batch::error_blocks(stderr)
        .into_iter()
        .filter(|l| {
            l.starts_with("error")
                || l.contains("panicked at")
                || l.contains("internal error")
                || l.contains("note: ")
                || l.contains("signal")
                || l.trim_start().starts_with("-->")
        })
        .take(16)
        .collect();
    let message = if relevant.is_empty() {
        tail(stderr, 16)
    } else {
        relevant.join("\n")
    };
    let kind = if crashed
        || stderr.contains("panicked at")
        || stderr.contains("internal compiler error")
        || stderr.contains("internal error")
    {
        Kind::Ice
    } else if stderr.contains("unsupported") || stderr.contains("not supported") {
        Kind::Unsupported
    } else {
        Kind::GeneratorBug
    };
    (kind, message)
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Copies a batch's binary, stripped, to `<dir>/bin/fuzz-s<seed>-<first>-<last>`.
fn keep_binary(binary: &Path, dir: &Path, seed: u64, programs: &[Program]) -> std::io::Result<()> {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin)?;
    let (first, last) = (programs[0].index, programs[programs.len() - 1].index);
    let dest = bin.join(format!("fuzz-s{seed}-{first:06}-{last:06}"));
    std::fs::copy(binary, &dest)?;
    let status = std::process::Command::new("strip").arg(&dest).status()?;
    if !status.success() {
        eprintln!(
            "oxide-fuzz: strip {} failed; kept unstripped",
            dest.display()
        );
    }
    Ok(())
}
