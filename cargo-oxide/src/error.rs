//! The one error type of cargo-oxide. Every message says what to do next, on one line where it can.

use std::io;
use std::path::PathBuf;

/// Everything that can stop a cargo-oxide command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error(
        "no Cargo.toml in {0}: pass the folder of a kernel crate, e.g. `cargo oxide build kernels/vecadd`"
    )]
    NoManifest(PathBuf),

    #[error(
        "cannot find the oxide repository (the folder with codegen-backend/): run from inside it or set OXIDE_ROOT"
    )]
    NoOxideRoot,

    #[error(
        "the oxide-codegen backend did not build (errors above); fix them, then run `cargo build -p oxide-codegen` to check"
    )]
    BackendBuild,

    #[error(
        "cargo built oxide-codegen but reported no liboxide_codegen.so; is codegen-backend's crate-type still cdylib?"
    )]
    BackendArtifactMissing,

    #[error("building {krate} with the oxide backend failed (errors above)")]
    KernelBuild { krate: String },

    #[error(
        "{krate} built but has no binary target: a kernel crate needs a src/main.rs that launches its kernels"
    )]
    NoBinary { krate: String },

    #[error(
        "{krate} built no Python extension module: its Cargo.toml needs `[lib] crate-type = \
         [\"cdylib\", \"rlib\"]`, `oxide` with `features = [\"python\"]`, and its lib.rs \
         `oxide::python_module!(<lib name>: <kernels>)` (docs/python.md)"
    )]
    NotAPythonModule { krate: String },

    #[error("no wheel platform tag for {triple}: `cargo oxide python` writes Linux wheels")]
    NoWheelTag { triple: String },

    #[error(
        "{krate} has several binaries ({names}): choose one with `--bin NAME`, or set \
         `default-run` in its Cargo.toml's [package]"
    )]
    SeveralBinaries { krate: String, names: String },

    #[error("{krate} has no binary `{name}`; its binaries are: {names}")]
    NoSuchBinary {
        krate: String,
        name: String,
        names: String,
    },

    #[error(
        "the backend wrote no PTX at {0}, nor for a dependency: does the crate have a `#[kernel]` fn? (try `cargo oxide pipeline`)"
    )]
    NoPtx(PathBuf),

    #[error("no `.entry {name}` in {ptx}; its kernels are: {available}")]
    NoKernel {
        name: String,
        ptx: PathBuf,
        available: String,
    },

    #[error(
        "no pipeline dump in {0}: the backend writes it when built with --cfg oxide_dump; is this backend new enough?"
    )]
    NoPipelineDump(PathBuf),

    #[error("no stage `{stage}` in {dir}; stages there: {available}")]
    NoStage {
        stage: String,
        dir: PathBuf,
        available: String,
    },

    /// A command that could not start (`Spawn`), exited non-zero (`CommandFailed`) or printed
    /// nothing understood (`UnexpectedOutput`); finding or running ptxas, finding libdevice.
    /// These variants are oxide-cuda-tools' and exist only there (tests/ and llvm-emit's tests
    /// use that crate without this one).
    #[error(transparent)]
    Tool(#[from] oxide_cuda_tools::Error),

    #[error("cargo printed a line that is not valid JSON ({reason}): {line}")]
    BadCargoMessage { reason: String, line: String },

    #[error(
        "rustup could not install {toolchain} (output above); check the network, or install it by hand: rustup toolchain install {toolchain} -c rustc-dev,rust-src,llvm-tools"
    )]
    ToolchainInstall { toolchain: String },

    #[error(
        "cargo-oxide is built for {built}, but {root} pins {pinned}: install cargo-oxide from that checkout (cargo install --path <it>/cargo-oxide)"
    )]
    ToolchainMismatch {
        built: String,
        pinned: String,
        root: PathBuf,
    },

    #[error("check-port: {0}")]
    CheckPortSpec(String),

    #[error("{0} already exists: pick another name, or remove it first")]
    AlreadyExists(PathBuf),

    #[error("`{name}` cannot name a crate: {why}; pick another name (e.g. `my-kernels`)")]
    BadCrateName { name: String, why: String },

    #[error("{0} required check(s) failed above; ci/setup.sh installs what is missing")]
    DoctorFailed(usize),
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}
