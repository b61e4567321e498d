//! `cargo oxide check-port`: a differential check of a port. The CUDA C++ kernel (built by nvcc)
//! and the oxide kernel (its PTX, built here or given) run in one program on the same generated
//! inputs; their outputs are compared (exactly or within a tolerance) and both are timed. Where
//! there is no nvcc or no GPU it says what it would need. docs/check-port.md has the spec.

pub mod data;
pub mod harness;
pub mod limits;
pub mod ptx;
pub mod spec;
pub mod terms;
pub mod values;

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use oxide_contract::{DEFAULT_ARCH, GpuArch};

use crate::build::{self, BuildOptions};
use crate::error::{Error, Result};
use crate::{cargo, driver};
use oxide_cuda_tools::ptxas;
use spec::{Arg, Buffer, Dims, Plan, Side, Tolerance};

/// Exit code when this machine lacks what the check needs (nvcc, a GPU): not a failed port.
pub const CANNOT_RUN: i32 = 2;

#[derive(Debug, Clone, Args)]
pub struct CheckPortArgs {
    /// The CUDA C++ file holding the kernel (its `main`, if any, is renamed away; files it
    /// includes are looked up beside it).
    #[arg(long, value_name = "FILE")]
    pub cuda: PathBuf,

    /// The CUDA kernel's name (a template instance like `scale<float>` works), if it differs
    /// from --kernel.
    #[arg(long, value_name = "NAME")]
    pub cuda_kernel: Option<String>,

    /// The oxide kernel's PTX entry name (a `#[kernel] fn`'s name).
    #[arg(long, value_name = "NAME")]
    pub kernel: String,

    /// The oxide kernel crate to build (its folder); or give its PTX with --ptx.
    #[arg(long, value_name = "CRATE", conflicts_with = "ptx")]
    pub oxide: Option<PathBuf>,

    /// The oxide PTX to use instead of building (e.g. on a machine without Rust).
    #[arg(long, value_name = "FILE")]
    pub ptx: Option<PathBuf>,

    /// The problem size `n` that lengths and values may refer to (`1<<20` and `2^20` work).
    #[arg(long, value_parser = |s: &str| spec::parse_u64(s))]
    pub n: u64,

    /// A buffer, NAME:TYPE:LEN:ROLE (`a:f32:n:in`, `c:f32:n:out`, `keys:u32:n:inout`); types
    /// u8 i32 u32 i64 u64 f32 f64; roles in (generated), out (zeros, compared), inout.
    #[arg(long = "buffer", value_name = "SPEC", required = true)]
    pub buffers: Vec<Buffer>,

    /// The CUDA kernel's arguments in order: buffer names (pointers) and scalars TYPE=VALUE
    /// (`u32=n`, `u64=n/1024`, `f32=2.5`).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub cuda_args: String,

    /// The oxide kernel's arguments in order: buffer names (`&[T]`, `DisjointSlice<T>`,
    /// `&[AtomicU32]`), NAME@rows(WIDTH) (`DisjointRows`/`WarpRows`/`WarpChunkRows`/`BlockTiles`),
    /// NAME@pairs(D) (`DisjointPairs`), scalars TYPE=VALUE; `Shared` parameters take none.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub oxide_args: String,

    /// Threads per block, both kernels (`256`, `32x8`).
    #[arg(long, default_value = "256")]
    pub block: Dims,

    /// Blocks per grid, both kernels: `auto` (enough blocks of --block for n along x) or a
    /// shape (`n/32x n/32` as `n/32,n/32`).
    #[arg(long, default_value = "auto")]
    pub grid: Dims,

    /// The CUDA kernel's block, if not --block.
    #[arg(long)]
    pub cuda_block: Option<Dims>,
    /// The CUDA kernel's grid, if not --grid.
    #[arg(long)]
    pub cuda_grid: Option<Dims>,
    /// The oxide kernel's block, if not --block.
    #[arg(long)]
    pub oxide_block: Option<Dims>,
    /// The oxide kernel's grid, if not --grid.
    #[arg(long)]
    pub oxide_grid: Option<Dims>,

    /// Dynamic shared memory per block in bytes, both kernels.
    #[arg(long, default_value_t = 0)]
    pub smem: u32,

    /// How outputs must agree: exact, ulps:K, rel:X.
    #[arg(long, default_value = "exact")]
    pub tolerance: Tolerance,

    /// Timed launches of each kernel (after one warm-up).
    #[arg(long, default_value_t = 20)]
    pub reps: u32,

    /// GPU architecture for both compilers.
    #[arg(long, default_value_t = DEFAULT_ARCH)]
    pub arch: GpuArch,

    /// Where the inputs, the harness and the outputs go (default: a new temporary folder).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

impl CheckPortArgs {
    /// The plan at this `n`: every size evaluated, every name checked.
    pub fn plan(&self) -> Result<Plan> {
        let n = self.n;
        let bad = Error::CheckPortSpec;
        // Both names are written into the generated C++; only names that can name nothing
        // else get there.
        if !spec::is_ptx_identifier(&self.kernel) {
            return Err(bad(format!(
                "--kernel {:?} is not a PTX entry name (letters, digits, `_`, `$`): give the \
                 oxide kernel's name as `cargo oxide inspect` shows it after `.entry`",
                self.kernel
            )));
        }
        if let Some(name) = &self.cuda_kernel
            && !spec::is_cuda_kernel_name(name)
        {
            return Err(bad(format!(
                "--cuda-kernel {name:?} is not a CUDA kernel's name: an identifier, maybe \
                 qualified (`ns::k`) and with template arguments (`scale<float>`); no quotes, \
                 parentheses, semicolons or other punctuation"
            )));
        }
        // The harness reads --reps with `atoi` and gives --smem to the driver's attribute
        // setters, each as a C `int`: a larger value would wrap there, not be refused.
        let c_int_max = i32::MAX.unsigned_abs();
        if self.reps > c_int_max || self.smem > c_int_max {
            return Err(bad(format!(
                "--reps {} --smem {}: each is at most {c_int_max} (the harness passes them as \
                 a C int; no GPU gives a block more than 227 KiB of shared memory)",
                self.reps, self.smem
            )));
        }
        let block = |d: Option<Dims>| -> Result<[u32; 3]> {
            match d.unwrap_or(self.block) {
                Dims::Auto => Err(bad(
                    "a block cannot be `auto` (only a grid can: enough blocks for n); give its \
                     threads, e.g. --block 256"
                        .into(),
                )),
                shape => shape.eval(n, [1; 3]).map_err(bad),
            }
        };
        let (cuda_block, oxide_block) = (block(self.cuda_block)?, block(self.oxide_block)?);
        let grid = |d: Option<Dims>, b| d.unwrap_or(self.grid).eval(n, b).map_err(bad);
        let buffers = self
            .buffers
            .iter()
            .map(|b| Ok((b.clone(), b.len.eval(n).map_err(bad)?)))
            .collect::<Result<Vec<_>>>()?;
        let args = |s: &str| spec::parse_args(s).map_err(bad);
        let plan = Plan {
            n,
            buffers,
            cuda: Side {
                kernel: self
                    .cuda_kernel
                    .clone()
                    .unwrap_or_else(|| self.kernel.clone()),
                args: args(&self.cuda_args)?,
                grid: grid(self.cuda_grid, cuda_block)?,
                block: cuda_block,
                shared_bytes: self.smem,
            },
            oxide: Side {
                kernel: self.kernel.clone(),
                args: args(&self.oxide_args)?,
                grid: grid(self.oxide_grid, oxide_block)?,
                block: oxide_block,
                shared_bytes: self.smem,
            },
            tolerance: self.tolerance,
            reps: self.reps.max(1),
        };
        if plan
            .cuda
            .args
            .iter()
            .any(|a| matches!(a, Arg::Rows(..) | Arg::Pairs(..) | Arg::Matrix(..)))
        {
            return Err(bad(
                "--cuda-args: @rows(...), @pairs(...) and @matrix(...) are oxide's; a CUDA \
                 argument is a pointer"
                    .into(),
            ));
        }
        plan.validate().map_err(bad)?;
        // The sizes' policy apart from the plan's rules (limits reads plans; plans know no limits).
        limits::check_buffers(&plan).map_err(bad)?;
        Ok(plan)
    }
}

/// Runs the check; returns the exit code: 0 when every compared buffer agrees, 1 when one
/// does not, [`CANNOT_RUN`] when this machine lacks nvcc or a GPU (after saying which).
pub fn check_port(args: &CheckPortArgs) -> Result<i32> {
    let plan = args.plan()?;
    // Before anything is built or allocated: a check this machine cannot hold is an error that
    // says so, not an allocator's abort halfway through.
    if let Some(available) = limits::available_memory() {
        limits::check_host_memory(&plan, available).map_err(Error::CheckPortSpec)?;
    }
    let cuda_file = args
        .cuda
        .canonicalize()
        .map_err(Error::io(args.cuda.clone()))?;
    let ptx = match (&args.ptx, &args.oxide) {
        (Some(ptx), _) => ptx.canonicalize().map_err(Error::io(ptx.clone()))?,
        (None, Some(krate)) => oxide_ptx(krate, args.arch, &plan.oxide.kernel)?,
        (None, None) => {
            return Err(Error::CheckPortSpec(
                "give --oxide CRATE or --ptx FILE".into(),
            ));
        }
    };
    check_ptx(&ptx, &plan)?;
    let work = match &args.work_dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("oxide-check-port-{}", std::process::id())),
    };
    std::fs::create_dir_all(&work).map_err(Error::io(&work))?;
    for (b, len) in plan.buffers.iter().filter(|(b, _)| b.role.generated()) {
        let path = work.join(format!("in_{}.bin", b.name));
        let bytes =
            data::generate(&b.name, b.elem, *len, b.range, plan.n).map_err(Error::CheckPortSpec)?;
        std::fs::write(&path, bytes).map_err(Error::io(&path))?;
    }
    let harness_src = work.join("harness.cu");
    let text = harness::source(&plan, &cuda_file).map_err(Error::CheckPortSpec)?;
    std::fs::write(&harness_src, text).map_err(Error::io(&harness_src))?;
    println!(
        "check-port: {} (CUDA {}) against oxide {} at n = {}",
        cuda_file.display(),
        plan.cuda.kernel,
        plan.oxide.kernel,
        plan.n
    );
    println!("  inputs and harness in {}", work.display());

    let Some(nvcc) = find_nvcc() else {
        println!(
            "  needs nvcc to build the CUDA kernel (none on PATH, in $CUDA_HOME/bin or \
             /usr/local/cuda/bin; set NVCC), and an NVIDIA GPU to run both: not run"
        );
        return Ok(CANNOT_RUN);
    };
    let exe = work.join("harness");
    let include = cuda_file.parent().unwrap_or(Path::new("."));
    let mut cmd = Command::new(&nvcc);
    cmd.args(["-O3", "-std=c++17", "-lineinfo"])
        .arg(format!("-arch={}", args.arch.name()))
        .arg("-I")
        .arg(include)
        .arg(&harness_src)
        .arg("-o")
        .arg(&exe)
        .arg("-lcuda");
    let out = cmd
        .output()
        .map_err(|source| oxide_cuda_tools::Error::Spawn {
            program: cargo::describe(&cmd),
            source,
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("cannot find -lcuda") || stderr.contains("cannot find -lcudart") {
            println!(
                "  {} compiled the harness but cannot link it here (no CUDA runtime or driver \
                 libraries): needs a CUDA toolkit and an NVIDIA GPU; not run",
                nvcc.display()
            );
            return Ok(CANNOT_RUN);
        }
        return Err(oxide_cuda_tools::Error::CommandFailed {
            command: cargo::describe(&cmd),
            status: out.status,
            stderr: stderr.trim().to_owned(),
        }
        .into());
    }
    if !driver::libcuda_loadable() {
        println!(
            "  built {}; needs an NVIDIA GPU and driver to run it: not run",
            exe.display()
        );
        return Ok(CANNOT_RUN);
    }
    let mut run = Command::new(&exe);
    run.arg(&work).arg(&ptx).arg(plan.reps.to_string());
    let timing = cargo::output(&mut run)?;
    let ms = |key: &str| -> Option<f64> {
        timing
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
    };
    let mut failed = false;
    for (b, len) in plan.buffers.iter().filter(|(b, _)| b.role.compared()) {
        let read = |side: &str| {
            let path = work.join(format!("{side}_{}.bin", b.name));
            std::fs::read(&path).map_err(Error::io(path))
        };
        let c = data::compare(b.elem, &read("cuda")?, &read("oxide")?, plan.tolerance);
        if c.passed() {
            println!(
                "  {}: {len} x {} agree ({:?}; largest difference {} ulp)",
                b.name, b.elem, plan.tolerance, c.max_ulps
            );
        } else {
            failed = true;
            let (i, cuda, oxide) = c.first.clone().unwrap_or_default();
            println!(
                "  {}: {} of {len} differ ({:?}); first at {i}: CUDA {cuda}, oxide {oxide}",
                b.name, c.mismatches, plan.tolerance
            );
        }
    }
    match (ms("cuda_ms"), ms("oxide_ms")) {
        (Some(c), Some(o)) => println!(
            "  time per launch ({} launches): CUDA {c:.4} ms, oxide {o:.4} ms, oxide/CUDA {:.3}",
            plan.reps,
            o / c
        ),
        _ => println!("  the harness printed no timing: {timing}"),
    }
    println!("check-port: {}", if failed { "FAIL" } else { "PASS" });
    Ok(i32::from(failed))
}

/// Refuses a launch of the oxide kernel that its PTX entry cannot take: --oxide-args that do
/// not give it its number of parameters (a launch with fewer or more would read garbage;
/// docs/contracts.md, "Kernel parameter ABI"), or a grid and block that break its launch
/// contract ([`ptx::check_launch`]).
fn check_ptx(ptx: &Path, plan: &Plan) -> Result<()> {
    let text = std::fs::read_to_string(ptx).map_err(Error::io(ptx))?;
    let kernel = &plan.oxide.kernel;
    let entry = ptx::entry(&text, kernel)
        .map_err(|e| Error::CheckPortSpec(format!("{e} in {}", ptx.display())))?;
    let given = harness::oxide_parameter_count(plan).map_err(Error::CheckPortSpec)?;
    if entry.params != given {
        return Err(Error::CheckPortSpec(format!(
            "--oxide-args gives `{kernel}` {given} parameters and its PTX takes {}: a slice or \
             DisjointSlice is one argument (pointer and length), a 2-D output NAME@rows(W), \
             `Shared` none",
            entry.params
        )));
    }
    ptx::check_launch(&entry, kernel, plan.oxide.grid, plan.oxide.block)
        .map_err(|why| Error::CheckPortSpec(format!("the oxide launch: {why}")))
}

/// The PTX of `krate` that has `.entry kernel`, built for `arch`.
fn oxide_ptx(krate: &Path, arch: GpuArch, kernel: &str) -> Result<PathBuf> {
    let out = build::build(&BuildOptions {
        arch,
        ..BuildOptions::new(krate)
    })?;
    let entry = format!(".entry {kernel}(");
    out.images
        .iter()
        .map(|image| image.ptx())
        .find(|ptx| std::fs::read_to_string(ptx).is_ok_and(|t| t.contains(&entry)))
        .ok_or_else(|| {
            Error::CheckPortSpec(format!(
                "no `.entry {kernel}` in the PTX of {} (see `cargo oxide inspect`)",
                krate.display()
            ))
        })
}

/// `$NVCC`, `nvcc` on PATH, `$CUDA_HOME/bin/nvcc`, `/usr/local/cuda/bin/nvcc`, or the one beside
/// the ptxas that `ptxas::find` finds (the pip wheel's: it compiles, but without the CUDA
/// runtime libraries it cannot link).
pub fn find_nvcc() -> Option<PathBuf> {
    if let Some(nvcc) = std::env::var_os("NVCC") {
        return Some(PathBuf::from(nvcc));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("nvcc"))
            .find(|p| p.is_file())
    });
    let cuda_home = std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin/nvcc"));
    on_path
        .into_iter()
        .chain(cuda_home)
        .chain([PathBuf::from("/usr/local/cuda/bin/nvcc")])
        .chain(ptxas::find().ok().map(|p| p.path.with_file_name("nvcc")))
        .find(|p| p.is_file())
}
