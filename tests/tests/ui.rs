//! The backend on small kernel crates: tests/ui/<name>.rs, each compiled with the backend the way
//! cargo compiles a kernel crate's main.rs. Its `//@` header says what must happen
//! (oxide_tests::ui has the syntax):
//! - `//@ build-fail` (the default): rejected, with stderr (paths normalised) equal to
//!   tests/ui/<name>.stderr;
//! - `//@ build-pass`: compiles without a diagnostic, ptxas accepts its PTX, and each
//!   `//@ ptx: <text>` / `//@ ptx-not: <text>` line holds for it;
//! - `//@ build-warn`: compiles with warnings, stderr equal to tests/ui/<name>.stderr, and the
//!   PTX as for `build-pass`;
//! - `//@ aux-crate: <file>`: tests/ui/auxiliary/<file> is a dependency compiled without the
//!   backend.
//!
//! `OXIDE_BLESS=1 cargo test -p oxide-tests --test ui` rewrites the .stderr files from what the
//! compiler prints now; `OXIDE_UI=<text>` runs only the cases whose name contains it.

use std::path::{Path, PathBuf};

use cargo_oxide::build::{self, BuildOptions, CargoBuild};
use cargo_oxide::cargo;
use oxide_contract::DEFAULT_ARCH;
use oxide_cuda_tools::Ptxas;
use oxide_tests::ui::{self, Directives, Expect};
use oxide_tests::{bless, normalize, ptxas_or_fail, repo_root};

#[test]
fn ui() {
    let root = repo_root();
    let cases = cases(&root.join("tests").join("ui"));
    assert!(!cases.is_empty(), "no tests/ui/*.rs");
    let ptxas = ptxas_or_fail();

    // The device library compiled with the backend (what any kernel crate build does first).
    let device = build::cargo_build(&BuildOptions::new(root.join("device-std").join("oxide")))
        .unwrap_or_else(|e| panic!("building device-std with the backend: {e}"));
    let sysroot = cargo::output(
        cargo::rustc()
            .args(["--print", "sysroot"])
            .current_dir(&root),
    )
    .ok()
    .map(|s| PathBuf::from(s.trim()));
    let cx = Cx {
        root: &root,
        device: &device,
        sysroot: sysroot.as_deref(),
        ptxas: &ptxas,
    };

    // One rustc per case, each a fraction of a second: building device-std above is what
    // takes the time.
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            cx.run(case)
                .err()
                .map(|e| format!("{}: {e}", case.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// tests/ui/*.rs, sorted.
fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| match std::env::var("OXIDE_UI") {
            Ok(only) => p.to_string_lossy().contains(&only),
            Err(_) => true,
        })
        .collect();
    cases.sort();
    cases
}

/// What every case needs.
struct Cx<'a> {
    root: &'a Path,
    device: &'a CargoBuild,
    sysroot: Option<&'a Path>,
    ptxas: &'a Ptxas,
}

/// What compiling a case gave.
struct Compiled {
    success: bool,
    stderr: String,
    /// Where the backend writes the PTX (beside the output, named after the crate).
    ptx: PathBuf,
}

impl Cx<'_> {
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
            .map(|file| self.compile_aux(file))
            .collect::<Result<Vec<_>, _>>()?;
        let compiled = self.compile(case, &flags, !fn_attrs.is_empty(), &externs);
        let stderr = normalize(&compiled.stderr, self.root, self.sysroot);
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
        let device = self.device;
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
        cmd.current_dir(self.root)
            .args(["--edition", "2024", "--crate-type", "bin"])
            .args(["--emit", "obj", "--color", "never"])
            .args(["--crate-name", &name])
            .args(build::rustflags(
                &device.backend,
                DEFAULT_ARCH,
                dump,
                libdevice().as_deref(),
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
            .arg(case.strip_prefix(self.root).unwrap_or(case))
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

impl Cx<'_> {
    /// Compiles tests/ui/auxiliary/`file` as an rlib with plain rustc: no backend, so none of its
    /// checks, as a dependency built by other means would be (`-Zalways-encode-mir` as under
    /// `cargo oxide`, so that its functions' MIR is there for the backend). Its crate name and
    /// the rlib.
    fn compile_aux(&self, file: &str) -> Result<(String, PathBuf), String> {
        let source = self
            .root
            .join("tests")
            .join("ui")
            .join("auxiliary")
            .join(file);
        let crate_name = file.trim_end_matches(".rs").to_owned();
        let out_dir = self.device.target_dir.join("ui").join("auxiliary");
        std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let rlib = out_dir.join(format!("lib{crate_name}.rlib"));
        let mut cmd = cargo::rustc();
        cmd.current_dir(self.root)
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
            .arg(source.strip_prefix(self.root).unwrap_or(&source));
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

/// libdevice, found once for all cases (math cases need it; the others ignore it).
fn libdevice() -> &'static Option<std::path::PathBuf> {
    static FOUND: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| oxide_cuda_tools::libdevice::find().ok())
}
