//! Command-line arguments (clap derive) and the dispatch to each subcommand.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand};
use oxide_contract::{DEFAULT_ARCH, GpuArch};

use crate::build::{self, BuildOptions};
use crate::error::Result;
use crate::{backend, doctor, inspect, pipeline, run};

/// Build, run and inspect Rust GPU kernel crates with the oxide codegen backend.
#[derive(Debug, Parser)]
#[command(name = "cargo-oxide", bin_name = "cargo oxide", version)]
pub struct Cli {
    /// More logging: -v info, -vv debug, -vvv trace (RUST_LOG, when set, wins).
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Build the backend, then the kernel crate with it, assemble its PTX with ptxas; print where
    /// the PTX and binary are.
    Build(KernelArgs),
    /// Build, then run the host binary (on a machine without an NVIDIA driver too: the
    /// program then runs without a GPU, e.g. on the CPU emulator).
    Run(RunArgs),
    /// Build, then print the PTX (all of it, or one kernel).
    Inspect(InspectArgs),
    /// Build with every pipeline stage dumped, then print the stages.
    Pipeline(PipelineArgs),
    /// Build a kernel crate whose library is a Python extension module
    /// (`oxide::python_module!`) and write its abi3 wheel; print where it is.
    Python(KernelArgs),
    /// Check the toolchain, components, backend, ptxas and GPU.
    Doctor,
    /// Make a new kernel crate (a kernel, a host program that checks it, an emulator test) in
    /// the folder PATH, a workspace of its own.
    New(NewArgs),
    /// Run a CUDA C++ kernel and its oxide port on the same generated inputs, compare their
    /// outputs and time both (needs nvcc and a GPU; says so where they are missing).
    CheckPort(Box<crate::check_port::CheckPortArgs>),
}

#[derive(Debug, Clone, Args)]
pub struct NewArgs {
    /// The new crate's folder; its last component is the crate's name.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

/// Which kernel crate, and how to build it.
#[derive(Debug, Clone, Args)]
pub struct KernelArgs {
    /// The kernel crate's folder (holding its Cargo.toml).
    #[arg(value_name = "CRATE", default_value = ".")]
    pub crate_dir: PathBuf,

    /// GPU architecture to compile for (one that both LLVM 22 and ptxas 13.0 support).
    #[arg(long, default_value_t = DEFAULT_ARCH)]
    pub arch: GpuArch,

    /// Build in release (the default for kernel crates).
    #[arg(long, overrides_with = "debug")]
    pub release: bool,

    /// Build in debug instead.
    #[arg(long, overrides_with = "release")]
    pub debug: bool,
}

impl KernelArgs {
    pub fn options(&self) -> BuildOptions {
        BuildOptions {
            crate_dir: self.crate_dir.clone(),
            arch: self.arch,
            release: !self.debug,
            dump: false,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,

    /// The binary to run, when the crate has several (as `cargo run --bin`).
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,

    /// Arguments for the host binary, after `--`.
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<OsString>,
}

#[derive(Debug, Clone, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,

    /// Print only this kernel's `.entry` function.
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernel_name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct PipelineArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,

    /// Print only this stage: `llvm-ir`, `5` or `5-llvm-ir`.
    #[arg(long, value_name = "STAGE")]
    pub stage: Option<String>,
}

/// Parses the arguments, accepting both `cargo-oxide <cmd>` and the cargo subcommand form
/// `cargo-oxide oxide <cmd>` (what `cargo oxide <cmd>` runs when cargo-oxide is installed).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if args.get(1).is_some_and(|a| a == "oxide") {
        args.remove(1);
    }
    Cli::try_parse_from(args)
}

/// Runs the command; returns the process exit code.
pub fn execute(cli: &Cli) -> Result<i32> {
    match &cli.command {
        Cmd::Build(k) => {
            let out = build::build(&k.options())?;
            // The crate's own PTX first, then each dependency's that has kernels.
            for image in &out.images {
                println!("ptx: {}", image.ptx().display());
            }
            // Every binary, sorted by name.
            for bin in &out.binaries {
                println!("binary: {}", bin.path.display());
            }
            if out.binaries.is_empty() {
                println!("binary: none (the crate has no bin target)");
            }
            Ok(0)
        }
        Cmd::Run(r) => run::run(&r.kernel.options(), r.bin.as_deref(), &r.args),
        Cmd::Python(k) => {
            println!("wheel: {}", crate::python::python(&k.options())?.display());
            Ok(0)
        }
        Cmd::Inspect(i) => {
            emit(&inspect::inspect(
                &i.kernel.options(),
                i.kernel_name.as_deref(),
            )?);
            Ok(0)
        }
        Cmd::Pipeline(p) => {
            emit(&pipeline::pipeline(
                &p.kernel.options(),
                p.stage.as_deref(),
            )?);
            Ok(0)
        }
        Cmd::CheckPort(c) => crate::check_port::check_port(c),
        Cmd::New(n) => {
            let root = backend::oxide_root(None)?;
            crate::new::create(&n.path, &root)?;
            // Its `cargo test` needs the toolchain even before any `cargo oxide build`.
            crate::toolchain::ensure_installed()?;
            let shown = n.path.display();
            println!(
                "created {shown}, a kernel crate depending on oxide at {}",
                root.display()
            );
            println!(
                "  cd {shown} && cargo oxide run    # build with the backend, run (GPU or emulator)"
            );
            println!(
                "  cd {shown} && cargo test         # the kernel on the CPU emulator, no GPU needed"
            );
            Ok(0)
        }
        Cmd::Doctor => {
            // The oxide checkout around the current folder, else the one cargo-oxide came from.
            let here = std::env::current_dir().ok();
            let around = here
                .as_deref()
                .and_then(|d| d.ancestors().find(|a| backend::is_oxide_root(a)));
            let root = backend::oxide_root(around)?;
            doctor::doctor(&root)?;
            Ok(0)
        }
    }
}

/// Prints `text` ending in one newline; a closed pipe (`| head`) is not an error.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let newline: &[u8] = if text.ends_with('\n') { b"" } else { b"\n" };
    let _ = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(newline));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        parse_from(args.iter().copied()).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    #[test]
    fn both_invocation_forms() {
        for argv in [
            &["cargo-oxide", "build"][..],
            &["cargo-oxide", "oxide", "build"],
        ] {
            let Cmd::Build(k) = parse(argv).command else {
                panic!("{argv:?}")
            };
            assert_eq!(k.crate_dir, PathBuf::from("."));
            assert_eq!(k.arch, DEFAULT_ARCH);
            assert!(k.options().release);
        }
    }

    #[test]
    fn kernel_args() {
        let Cmd::Build(k) =
            parse(&["c", "build", "kernels/vecadd", "--arch", "sm_80", "--debug"]).command
        else {
            panic!()
        };
        assert_eq!(k.crate_dir, PathBuf::from("kernels/vecadd"));
        assert_eq!(k.arch.name(), "sm_80");
        assert!(!k.options().release);
        let Cmd::Build(k) = parse(&["c", "build", "--debug", "--release"]).command else {
            panic!()
        };
        assert!(k.options().release);
        for bad in ["90", "sm_", "sm_20", "sm_70", "sm_1000"] {
            let e = parse_from(["c", "build", "--arch", bad]).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{bad}");
            assert!(
                e.to_string()
                    .contains("the supported architectures are sm_75, sm_80,"),
                "{bad}: {e}"
            );
        }
        assert!(parse_from(["c", "build", "--arch", "sm_90a"]).is_ok());
        assert!(parse_from(["c", "build", "--arch", "sm_120"]).is_ok());
    }

    #[test]
    fn run_passes_trailing_args() {
        let Cmd::Run(r) =
            parse(&["c", "oxide", "run", "kernels/saxpy", "--", "1024", "-x"]).command
        else {
            panic!()
        };
        assert_eq!(r.kernel.crate_dir, PathBuf::from("kernels/saxpy"));
        assert_eq!(r.args, ["1024", "-x"]);
        assert_eq!(r.bin, None);
        let Cmd::Run(r) = parse(&["c", "run", "--bin", "second", "--", "--bin"]).command else {
            panic!()
        };
        assert_eq!(r.bin.as_deref(), Some("second"));
        assert_eq!(r.args, ["--bin"]);
    }

    #[test]
    fn python_takes_a_crate() {
        let Cmd::Python(k) = parse(&["c", "oxide", "python", "kernels/pyops", "--debug"]).command
        else {
            panic!()
        };
        assert_eq!(k.crate_dir, PathBuf::from("kernels/pyops"));
        assert!(!k.options().release);
    }

    #[test]
    fn inspect_and_pipeline_options() {
        let Cmd::Inspect(i) = parse(&["c", "inspect", "k", "--kernel", "vecadd", "-v"]).command
        else {
            panic!()
        };
        assert_eq!(i.kernel_name.as_deref(), Some("vecadd"));
        let cli = parse(&["c", "-vv", "pipeline", "--stage", "llvm-ir"]);
        assert_eq!(cli.verbose, 2);
        let Cmd::Pipeline(p) = cli.command else {
            panic!()
        };
        assert_eq!(p.stage.as_deref(), Some("llvm-ir"));
        assert!(matches!(
            parse(&["c", "oxide", "doctor"]).command,
            Cmd::Doctor
        ));
    }
}
