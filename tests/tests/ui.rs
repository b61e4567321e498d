//! The backend on small kernel crates: tests/ui/<topic>/<name>.rs, each compiled with the backend
//! the way cargo compiles a kernel crate's main.rs, each its own test case `<topic>::<name>`.
//! Its `//@` header says what must happen (oxide_tests::ui has the syntax):
//! - `//@ build-fail` (the default): rejected, with stderr (paths normalised, device-std's line
//!   numbers hidden) equal to <name>.stderr beside it;
//! - `//@ build-pass`: compiles without a diagnostic, ptxas accepts its PTX, and each
//!   `//@ ptx: <text>` / `//@ ptx-not: <text>` line holds for it;
//! - `//@ build-warn`: compiles with warnings, stderr equal to <name>.stderr, and the PTX as for
//!   `build-pass`;
//! - `//@ aux-crate: <file>`: tests/ui/auxiliary/<file> is a dependency compiled without the
//!   backend.
//!
//! A libtest-style harness (libtest-mimic, `harness = false`), so cases run in parallel and the
//! usual filters pick them: `cargo test -p oxide-tests --test ui -- barrier::` runs one topic,
//! `-- --exact warp::pass_warp_vote` one case, `-- --list` names them all without building
//! anything. `OXIDE_BLESS=1` rewrites the .stderr files of the cases it runs from what the
//! compiler prints now.
//!
//! device-std is built with the backend once, by the first case that runs (the others wait for
//! it): that build is what takes the time; each case is one rustc of a fraction of a second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use cargo_oxide::build::{self, BuildOptions, CargoBuild};
use cargo_oxide::cargo;
use libtest_mimic::{Arguments, Failed, Trial};
use oxide_contract::DEFAULT_ARCH;
use oxide_cuda_tools::{Ptxas, libdevice};
use oxide_tests::ui::{self, Directives, Expect};
use oxide_tests::{bless, normalize, repo_root};

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let dir = repo_root().join("tests").join("ui");
    let trials = cases(&dir)
        .into_iter()
        .map(|(name, case)| {
            Trial::test(name, move || {
                let cx = Cx::shared()?;
                cx.run(&case)
                    .map_err(|e| Failed::from(format!("{}: {e}", case.display())))
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// Every case under `dir` but auxiliary/, by test name (`barrier::barrier_divergent_if` for
/// barrier/barrier_divergent_if.rs). A case sits in a topic folder, and no two cases share a
/// file name: the stem is the case's crate name, and its PTX is target/oxide/ui/<stem>.ptx
/// (ci/build-gpu-probes.sh reads one), so two of one stem would overwrite each other's output
/// when they run in parallel.
fn cases(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut cases = BTreeMap::new();
    let mut stems = BTreeMap::new();
    for path in oxide_tests::rust_files(dir) {
        let relative = path.strip_prefix(dir).expect("under tests/ui");
        let parts: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if parts.first().is_some_and(|p| p == "auxiliary") {
            continue;
        }
        assert!(
            parts.len() > 1,
            "{}: put the case in a topic folder of tests/ui (barrier/, warp/, ...)",
            path.display()
        );
        if let Some(other) = stems.insert(parts[parts.len() - 1].clone(), path.clone()) {
            panic!(
                "{} and {}: two cases with one file name (it is the case's crate name, and names \
                 its output in target/oxide/ui/); rename one",
                other.display(),
                path.display()
            );
        }
        cases.insert(parts.join("::"), path);
    }
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    cases
}

/// What every case needs, made once per run.
struct Cx {
    root: PathBuf,
    /// device-std built with the backend: its rlibs are the cases' dependencies.
    device: CargoBuild,
    sysroot: Option<PathBuf>,
    ptxas: Ptxas,
    /// For the math cases; the others ignore it.
    libdevice: Option<PathBuf>,
}

/// What compiling a case gave.
struct Compiled {
    success: bool,
    stderr: String,
    /// Where the backend writes the PTX (beside the output, named after the crate).
    ptx: PathBuf,
}

impl Cx {
    /// The run's one `Cx`, made by the first case that asks while the others wait. When it
    /// cannot be made every case fails with the reason; it is not tried again per case.
    fn shared() -> Result<&'static Cx, Failed> {
        static CX: OnceLock<Result<Cx, String>> = OnceLock::new();
        CX.get_or_init(Cx::new).as_ref().map_err(Failed::from)
    }

    fn new() -> Result<Cx, String> {
        let root = repo_root();
        let ptxas = oxide_tests::find_ptxas()?;
        // The device library compiled with the backend (what any kernel crate build does first).
        let device = build::cargo_build(&BuildOptions::new(root.join("device-std").join("oxide")))
            .map_err(|e| format!("building device-std with the backend: {e}"))?;
        let sysroot = cargo::output(
            cargo::rustc()
                .args(["--print", "sysroot"])
                .current_dir(&root),
        )
        .ok()
        .map(|s| PathBuf::from(s.trim()));
        Ok(Cx {
            root,
            device,
            sysroot,
            ptxas,
            libdevice: libdevice::find().ok(),
        })
    }

    /// Compiles `case` and checks what its directives ask for.
    fn run(&self, case: &Path) -> Result<(), String> {
        let source = std::fs::read_to_string(case).map_err(|e| e.to_string())?;
        let Directives {
            expect,
            checks,
            fn_attrs,
            flags,
            aux,
        } = ui::directives(&source).map_err(|e| e.to_string())?;
        let externs = aux
            .iter()
            .map(|file| self.compile_aux(case, file))
            .collect::<Result<Vec<_>, _>>()?;
        let compiled = self.compile(case, &flags, !fn_attrs.is_empty(), &externs);
        let stderr = normalize(&compiled.stderr, &self.root, self.sysroot.as_deref());
        match expect {
            Expect::Fail if compiled.success => Err(format!(
                "compiled without error; a `//@ build-fail` case must use something the backend \
                 rejects (or say `//@ build-pass`)\n{stderr}"
            )),
            Expect::Fail => bless::check_file(&case.with_extension("stderr"), &stderr),
            Expect::Pass | Expect::Warn if !compiled.success => Err(format!(
                "a `//@ build-pass` or `//@ build-warn` case must compile; rustc said:\n{stderr}"
            )),
            Expect::Pass if !stderr.is_empty() => Err(format!(
                "a `//@ build-pass` case must compile without diagnostics (`//@ build-warn` for \
                 warnings); rustc said:\n{stderr}"
            )),
            Expect::Pass if case.with_extension("stderr").exists() => Err(format!(
                "a `//@ build-pass` case has no expected stderr; remove {}",
                case.with_extension("stderr").display()
            )),
            Expect::Warn if stderr.is_empty() => Err(
                "a `//@ build-warn` case must warn; it compiled without a diagnostic (say \
                 `//@ build-pass`)"
                    .to_string(),
            ),
            Expect::Warn => {
                bless::check_file(&case.with_extension("stderr"), &stderr)?;
                self.check_ptx(&compiled, &checks, &fn_attrs)
            }
            Expect::Pass => self.check_ptx(&compiled, &checks, &fn_attrs),
        }
    }

    /// ptxas accepts the PTX of a case that compiled, and its `//@ ptx` and `//@ llvm-attrs`
    /// checks hold.
    fn check_ptx(
        &self,
        compiled: &Compiled,
        checks: &[ui::PtxCheck],
        fn_attrs: &[ui::FnAttrCheck],
    ) -> Result<(), String> {
        let ptx = std::fs::read_to_string(&compiled.ptx)
            .map_err(|e| format!("reading {}: {e}", compiled.ptx.display()))?;
        self.ptxas
            .check(&compiled.ptx, DEFAULT_ARCH.name())
            .map_err(|e| e.to_string())?;
        let mut failed = ui::failed_checks(&ptx, checks);
        if !fn_attrs.is_empty() {
            let ir = compiled.ptx.with_extension("pipeline").join("5-llvm-ir.ll");
            let ir = std::fs::read_to_string(&ir)
                .map_err(|e| format!("reading {}: {e}", ir.display()))?;
            failed.extend(ui::failed_fn_attrs(&ir, fn_attrs));
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{}\n(the PTX is {})",
                failed.join("\n"),
                compiled.ptx.display()
            ))
        }
    }

    /// Compiles one case with the backend as cargo would compile a kernel crate's main.rs, up to
    /// the object file: linking adds nothing the backend does.
    /// With `dump`, the backend also writes every pipeline stage beside the PTX
    /// (`<name>.pipeline/`).
    /// `externs` are more `--extern name=path` dependencies (`//@ aux-crate:`).
    fn compile(
        &self,
        case: &Path,
        flags: &[String],
        dump: bool,
        externs: &[(String, PathBuf)],
    ) -> Compiled {
        let device = &self.device;
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let oxide = device
            .library("oxide")
            .and_then(|a| a.file_ending(".rlib"))
            .expect("cargo reported no liboxide-*.rlib");
        let macros = device
            .library("oxide_macros")
            .and_then(|a| a.file_ending(std::env::consts::DLL_SUFFIX))
            .expect("cargo reported no liboxide_macros-*.so");
        let out_dir = device.target_dir.join("ui");
        std::fs::create_dir_all(&out_dir).unwrap();
        let ptx = out_dir.join(format!("{name}.ptx"));
        // A stale PTX (or dump) of an earlier run must not pass for this one's.
        let _ = std::fs::remove_file(&ptx);
        let _ = std::fs::remove_dir_all(ptx.with_extension("pipeline"));

        let mut cmd = cargo::rustc();
        cmd.current_dir(&self.root)
            .args(["--edition", "2024", "--crate-type", "bin"])
            .args(["--emit", "obj", "--color", "never"])
            .args(["--crate-name", &name])
            .args(build::rustflags(
                &device.backend,
                DEFAULT_ARCH,
                dump,
                self.libdevice.as_deref(),
            ))
            .args(flags);
        // The device crates' dependencies, and the proc macro's (built for the host, without
        // --target, so in the other deps folder).
        let host_deps = macros.parent().unwrap_or(&device.deps_dir);
        for dir in [&*device.deps_dir, host_deps] {
            cmd.arg("-L").arg(format!("dependency={}", dir.display()));
        }
        cmd.arg("--extern")
            .arg(format!("oxide={}", oxide.display()))
            .arg("--extern")
            .arg(format!("oxide_macros={}", macros.display()));
        for (crate_name, rlib) in externs {
            cmd.arg("--extern")
                .arg(format!("{crate_name}={}", rlib.display()));
        }
        cmd.arg("-o")
            .arg(out_dir.join(format!("{name}.o")))
            .arg(case.strip_prefix(&self.root).unwrap_or(case))
            // What cargo tells `#[kernel]` (it names the PTX symbol after the crate).
            .env("CARGO_CRATE_NAME", &name)
            .env("CARGO_PKG_NAME", &name)
            // Deterministic output: no ICE files in the repo, no backtraces.
            .env("RUSTC_ICE", "0")
            .env("RUST_BACKTRACE", "0");
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", cargo::describe(&cmd)));
        Compiled {
            success: out.status.success(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            ptx,
        }
    }
}

impl Cx {
    /// Compiles tests/ui/auxiliary/`file` as an rlib with plain rustc: no backend, so none of its
    /// checks, as a dependency built by other means would be (`-Zalways-encode-mir` as under
    /// `cargo oxide`, so that its functions' MIR is there for the backend). Its crate name and
    /// the rlib. Each case gets its own copy: two cases of one auxiliary crate may run at once.
    fn compile_aux(&self, case: &Path, file: &str) -> Result<(String, PathBuf), String> {
        let source = self
            .root
            .join("tests")
            .join("ui")
            .join("auxiliary")
            .join(file);
        let crate_name = file.trim_end_matches(".rs").to_owned();
        let case_name = case.file_stem().unwrap_or_default();
        let out_dir = self
            .device
            .target_dir
            .join("ui")
            .join("auxiliary")
            .join(case_name);
        std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let rlib = out_dir.join(format!("lib{crate_name}.rlib"));
        let mut cmd = cargo::rustc();
        cmd.current_dir(&self.root)
            .args([
                "--edition",
                "2024",
                "--crate-type",
                "rlib",
                "--color",
                "never",
            ])
            .args(["--crate-name", &crate_name, "-Zalways-encode-mir", "-o"])
            .arg(&rlib)
            .arg(source.strip_prefix(&self.root).unwrap_or(&source));
        let out = cmd
            .output()
            .map_err(|e| format!("running {}: {e}", cargo::describe(&cmd)))?;
        if !out.status.success() {
            return Err(format!(
                "the auxiliary crate {file} does not compile:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok((crate_name, rlib))
    }
}
