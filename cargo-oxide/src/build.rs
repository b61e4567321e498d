//! `cargo oxide build`: build the backend, then a kernel crate with it (docs/contracts.md,
//! "Backend configuration"), and say where the PTX and the host binary are.

use std::path::{Path, PathBuf};

use oxide_contract::{DEFAULT_ARCH, GpuArch, cfg};
use oxide_cuda_tools::{self as cuda, Ptxas, libdevice, ptxas};

use crate::backend;
use crate::cargo::{self, Artifact};
use crate::error::{Error, Result};
use crate::linked::{self, PtxImage};

/// The kernels' own target dir, below the workspace root.
pub const KERNEL_TARGET_DIR: &str = "target/oxide";

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The kernel crate's folder (holding its Cargo.toml).
    pub crate_dir: PathBuf,
    /// The GPU architecture, `sm_90` by default.
    pub arch: GpuArch,
    /// Release profile (the default for kernel crates) or dev.
    pub release: bool,
    /// Also dump every pipeline stage (`--cfg oxide_dump`).
    pub dump: bool,
}

impl BuildOptions {
    /// Release build of `crate_dir` for the default architecture (sm_90), without dumps.
    pub fn new(crate_dir: impl Into<PathBuf>) -> Self {
        BuildOptions {
            crate_dir: crate_dir.into(),
            arch: DEFAULT_ARCH,
            release: true,
            dump: false,
        }
    }
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildOutput {
    /// The kernel crate's workspace root.
    pub workspace: PathBuf,
    /// The backend library used: a snapshot of the built one (`backend::snapshot`).
    pub backend: PathBuf,
    /// The host triple the crate was built for.
    pub triple: String,
    /// `<workspace>/target/oxide`.
    pub target_dir: PathBuf,
    /// `<target_dir>/<triple>/<profile>/deps`, where the backend writes the PTX.
    pub deps_dir: PathBuf,
    /// The rustc crate name whose PTX this is (`vecadd`): the crate's own, or when it has no
    /// kernels, the first dependency's that has.
    pub crate_name: String,
    /// That crate's PTX as linked: `<deps_dir>/<stem>.ptx` (`vecadd-<hash>.ptx`), compiled with
    /// the artifacts this build used (`linked`).
    pub ptx: PathBuf,
    /// Every crate of the build that has kernels, its PTX as linked; the one above first.
    pub images: Vec<PtxImage>,
    /// The ptxas that assembled every image, or `None` when there is none (then nothing was
    /// assembled, and a note said so).
    pub ptxas: Option<Ptxas>,
    /// The crate's host binaries, sorted by name (none for a library).
    pub binaries: Vec<Binary>,
    /// Every artifact cargo reported (the kernel crate's and its dependencies', e.g. `oxide`).
    pub artifacts: Vec<Artifact>,
}

/// One host binary of the crate: its target's name and the executable cargo made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    pub name: String,
    pub path: PathBuf,
}

impl BuildOutput {
    /// `<deps_dir>/<stem>.pipeline/` of the crate of `ptx`, where `--cfg oxide_dump` puts the
    /// stages.
    pub fn pipeline_dir(&self) -> PathBuf {
        self.ptx.with_extension("pipeline")
    }

    /// The binary to run, as `cargo run` picks it: `wanted` (`--bin NAME`), else the only one,
    /// else the package's `default-run` (`default_run`, read only when it is needed); an error
    /// naming them all when several remain.
    pub fn binary(
        &self,
        krate: &Path,
        wanted: Option<&str>,
        default_run: impl FnOnce() -> Result<Option<String>>,
    ) -> Result<&Binary> {
        let krate = krate.display().to_string();
        let names = || {
            self.binaries
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let by_name = |name: &str| self.binaries.iter().find(|b| b.name == name);
        match (wanted, self.binaries.as_slice()) {
            (_, []) => Err(Error::NoBinary { krate }),
            (Some(name), _) => by_name(name).ok_or_else(|| Error::NoSuchBinary {
                krate,
                name: name.to_owned(),
                names: names(),
            }),
            (None, [only]) => Ok(only),
            (None, _) => match default_run()? {
                Some(name) => by_name(&name).ok_or_else(|| Error::NoSuchBinary {
                    krate,
                    name,
                    names: names(),
                }),
                None => Err(Error::SeveralBinaries {
                    krate,
                    names: names(),
                }),
            },
        }
    }
}

/// The rustc flags that select the backend (docs/contracts.md). `libdevice` is NVIDIA's math
/// library ([`oxide_cuda_tools::libdevice::find`]); without it, kernels that call math functions fail to build.
pub fn rustflags(
    backend: &Path,
    arch: GpuArch,
    dump: bool,
    libdevice: Option<&Path>,
) -> Vec<String> {
    let mut flags = vec![
        format!("-Zcodegen-backend={}", backend.display()),
        "--cfg".into(),
        cfg::BACKEND.into(),
        "--cfg".into(),
        cfg::arch_flag(arch),
        "-Zalways-encode-mir".into(),
        "-Zmir-enable-passes=-JumpThreading".into(),
    ];
    if let Some(libdevice) = libdevice {
        flags.extend(["--cfg".into(), cfg::libdevice_flag(libdevice)]);
    }
    if dump {
        flags.extend(["--cfg".into(), cfg::DUMP.into()]);
    }
    flags
}

/// The crate's Cargo.toml, or a message saying what to pass instead.
pub fn manifest_of(crate_dir: &Path) -> Result<PathBuf> {
    // `kernels/vecadd/Cargo.toml` names the crate as well as its folder does.
    let manifest = if crate_dir.file_name().is_some_and(|n| n == "Cargo.toml") {
        crate_dir.to_path_buf()
    } else {
        crate_dir.join("Cargo.toml")
    };
    if manifest.is_file() {
        manifest.canonicalize().map_err(Error::io(manifest))
    } else {
        Err(Error::NoManifest(crate_dir.to_path_buf()))
    }
}

/// A crate compiled with the backend: where everything went, before looking for PTX.
#[derive(Debug, Clone)]
pub struct CargoBuild {
    pub manifest: PathBuf,
    pub workspace: PathBuf,
    pub backend: PathBuf,
    pub triple: String,
    pub target_dir: PathBuf,
    pub deps_dir: PathBuf,
    pub artifacts: Vec<Artifact>,
}

impl CargoBuild {
    /// The artifact of the library target `name` (e.g. `oxide`, `oxide_macros`).
    pub fn library(&self, name: &str) -> Option<&Artifact> {
        self.artifacts
            .iter()
            .find(|a| a.target_name == name && !a.has_kind("bin"))
    }
}

/// Builds the backend, then the crate at `opts.crate_dir` and its dependencies with it, in
/// `<workspace>/target/oxide` for the host triple. Rendered diagnostics go to stderr as they come.
pub fn cargo_build(opts: &BuildOptions) -> Result<CargoBuild> {
    cargo_build_with(opts, &[])
}

/// [`cargo_build`] with `env` set for cargo and the build (`cargo oxide python`'s
/// `PYO3_BUILD_EXTENSION_MODULE`).
pub fn cargo_build_with(opts: &BuildOptions, env: &[(&str, &str)]) -> Result<CargoBuild> {
    let manifest = manifest_of(&opts.crate_dir)?;
    let workspace = cargo::workspace_root(&manifest)?;
    let oxide_root = backend::oxide_root(Some(&workspace))?;
    let built_backend = backend::ensure_backend(&oxide_root)?;
    let triple = cargo::host_triple(&workspace)?;
    let target_dir = workspace.join(KERNEL_TARGET_DIR);
    let backend = backend::snapshot(&built_backend, &target_dir)?;
    let profile_dir = if opts.release { "release" } else { "debug" };
    let deps_dir = target_dir.join(&triple).join(profile_dir).join("deps");

    // Without libdevice, only kernels that call math functions fail, with an error saying so.
    let libdevice = libdevice::find().ok();
    let mut flags = rustflags(&backend, opts.arch, opts.dump, libdevice.as_deref());
    // Keep the user's own RUSTFLAGS, after ours.
    if let Ok(extra) = std::env::var("RUSTFLAGS") {
        flags.extend(extra.split_whitespace().map(str::to_owned));
    }
    tracing::info!("building {} with rustflags {flags:?}", manifest.display());

    let mut cmd = cargo::cargo();
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--target", &triple])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(&workspace)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env_remove("CARGO_BUILD_TARGET_DIR")
        // The encoded form keeps a backend path with spaces in one piece; it takes precedence
        // over RUSTFLAGS, whose words were copied above.
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
        .env_remove("RUSTFLAGS")
        .envs(env.iter().copied());
    if opts.release {
        cmd.arg("--release");
    }
    let run = cargo::run_json(&mut cmd)?;
    if !run.success {
        return Err(Error::KernelBuild {
            krate: opts.crate_dir.display().to_string(),
        });
    }
    Ok(CargoBuild {
        manifest,
        workspace,
        backend,
        triple,
        target_dir,
        deps_dir,
        artifacts: run.artifacts,
    })
}

/// Builds the backend, then the kernel crate with it, finds its PTX and host binary, and
/// assembles every crate's PTX with ptxas when there is one: an assembler error fails the build
/// here rather than at load time. Without ptxas a note says so, once, on stderr.
pub fn build(opts: &BuildOptions) -> Result<BuildOutput> {
    let built = cargo_build(opts)?;
    let krate = opts.crate_dir.display().to_string();
    let deps_dir = &built.deps_dir;
    let own: Vec<&Artifact> = built
        .artifacts
        .iter()
        .filter(|a| same_file(&a.manifest_path, &built.manifest))
        .collect();
    let bin = own.iter().find(|a| a.has_kind("bin"));
    // Every binary, in a fixed order: cargo reports them in the order they finish building.
    let mut binaries: Vec<Binary> = own
        .iter()
        .filter(|a| a.has_kind("bin"))
        .filter_map(|a| {
            Some(Binary {
                name: a.target_name.clone(),
                path: a.executable.clone()?,
            })
        })
        .collect();
    binaries.sort_by(|a, b| a.name.cmp(&b.name));
    binaries.dedup();
    // The crate's own PTX first: the binary's, else a library's; then its dependencies', by name.
    let mut images = linked::images(&built.artifacts, deps_dir);
    let own_rank = |image: &PtxImage| {
        let owner = own
            .iter()
            .filter(|a| a.crate_name() == image.crate_name)
            .map(|a| if a.has_kind("bin") { 0 } else { 1 })
            .min();
        owner.unwrap_or(2)
    };
    images.sort_by_cached_key(|image| (own_rank(image), image.crate_name.clone()));
    let Some(first) = images.first() else {
        let owner = bin.or(own.first()).ok_or(Error::NoBinary { krate })?;
        return Err(Error::NoPtx(
            deps_dir.join(format!("{}.ptx", owner.crate_name())),
        ));
    };
    let (crate_name, ptx) = (first.crate_name.clone(), first.ptx());
    for image in &images {
        image
            .refresh_crate_ptx()
            .map_err(Error::io(image.crate_ptx()))?;
    }
    let ptxas = assemble(&images, opts.arch)?;
    Ok(BuildOutput {
        workspace: built.workspace,
        backend: built.backend,
        triple: built.triple,
        target_dir: built.target_dir,
        deps_dir: built.deps_dir.clone(),
        crate_name,
        ptx,
        images,
        ptxas,
        binaries,
        artifacts: built.artifacts.clone(),
    })
}

/// Assembles each image for `arch` with the ptxas `ptxas::find` finds; `None` (after a note)
/// when there is none. `OXIDE_PTXAS` naming no executable is an error, not a missing ptxas.
fn assemble(images: &[PtxImage], arch: GpuArch) -> Result<Option<Ptxas>> {
    let ptxas = match ptxas::find() {
        Ok(ptxas) => ptxas,
        Err(cuda::Error::PtxasNotFound) => {
            eprintln!("{}", missing_ptxas_note());
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    for image in images {
        tracing::info!("assembling {} for {arch}", image.ptx().display());
        ptxas.check(&image.ptx(), arch.name())?;
    }
    Ok(Some(ptxas))
}

/// What `build` prints when no ptxas is found.
pub fn missing_ptxas_note() -> String {
    format!(
        "note: {}; the PTX was not assembled, so an assembler error would only show when the driver loads it",
        cuda::Error::PtxasNotFound
    )
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_contract() {
        let flags = rustflags(
            Path::new("/r/target/debug/liboxide_codegen.so"),
            DEFAULT_ARCH,
            false,
            None,
        );
        assert_eq!(
            flags,
            [
                "-Zcodegen-backend=/r/target/debug/liboxide_codegen.so",
                "--cfg",
                "oxide_backend",
                "--cfg",
                "oxide_arch=\"sm_90\"",
                "-Zalways-encode-mir",
                "-Zmir-enable-passes=-JumpThreading",
            ]
        );
        let dump = rustflags(
            Path::new("/b.so"),
            "sm_80".parse().unwrap(),
            true,
            Some(Path::new("/cuda/nvvm/libdevice/libdevice.10.bc")),
        );
        assert_eq!(&dump[dump.len() - 2..], ["--cfg", "oxide_dump"]);
        assert!(
            dump.contains(&r#"oxide_libdevice="/cuda/nvvm/libdevice/libdevice.10.bc""#.to_owned())
        );
        assert!(dump.contains(&"oxide_arch=\"sm_80\"".to_owned()));
    }

    #[test]
    fn a_folder_without_manifest_is_refused_before_building() {
        let err = build(&BuildOptions::new("/nonexistent/kernel")).unwrap_err();
        assert!(matches!(err, Error::NoManifest(_)), "{err}");
        assert!(err.to_string().contains("cargo oxide build kernels/vecadd"));
    }

    fn output_with(binaries: &[&str]) -> BuildOutput {
        BuildOutput {
            workspace: "/w".into(),
            backend: "/b.so".into(),
            triple: "x86_64-unknown-linux-gnu".into(),
            target_dir: "/w/target/oxide".into(),
            deps_dir: "/w/deps".into(),
            crate_name: "k".into(),
            ptx: "/w/deps/k.ptx".into(),
            images: Vec::new(),
            ptxas: None,
            binaries: binaries
                .iter()
                .map(|n| Binary {
                    name: n.to_string(),
                    path: format!("/w/target/{n}").into(),
                })
                .collect(),
            artifacts: Vec::new(),
        }
    }

    /// Issue 18: a crate with two binaries printed one `binary:` line (which one changed between
    /// builds), and `run` could not choose.
    #[test]
    fn the_binary_to_run_is_chosen_as_cargo_run_does() {
        let k = Path::new("k");
        let no_default = || Ok(None);
        let one = output_with(&["only"]);
        assert_eq!(one.binary(k, None, no_default).unwrap().name, "only");
        let two = output_with(&["a", "b"]);
        let e = two.binary(k, None, no_default).unwrap_err();
        assert!(matches!(e, Error::SeveralBinaries { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("(a, b): choose one with `--bin NAME`"),
            "{e}"
        );
        assert_eq!(two.binary(k, Some("b"), no_default).unwrap().name, "b");
        let default_b = || Ok(Some("b".to_owned()));
        assert_eq!(two.binary(k, None, default_b).unwrap().name, "b");
        let e = two.binary(k, Some("c"), no_default).unwrap_err();
        assert_eq!(e.to_string(), "k has no binary `c`; its binaries are: a, b");
        // `default-run` is read only when it decides.
        let unread = || -> Result<Option<String>> { panic!("read") };
        assert_eq!(one.binary(k, None, unread).unwrap().name, "only");
        let none = output_with(&[]);
        assert!(matches!(
            none.binary(k, Some("a"), no_default),
            Err(Error::NoBinary { .. })
        ));
    }

    #[test]
    fn a_manifest_path_names_its_crate() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let from_dir = manifest_of(root).unwrap();
        assert_eq!(manifest_of(&root.join("Cargo.toml")).unwrap(), from_dir);
        assert!(from_dir.ends_with("cargo-oxide/Cargo.toml"));
    }
}
