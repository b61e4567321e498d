//! `oxide-fuzz [run] --seed S --programs N [--batch B] [--start I] [--out DIR] [--work DIR]
//! [--keep-bins DIR] [--arch sm_90] [--backend PATH]`: the campaign (docs/fuzzing.md).
//! `oxide-fuzz show --seed S --index I`: program I as a standalone src/main.rs.
//! `oxide-fuzz cut --seed S --indices I,J.. [--subcuts no] [--out DIR] [--work DIR] [--repo DIR]
//! [--arch ..] [--backend PATH]`: for each program, a batch of its cuts (crate::cut), built
//! through the backend and ptxas and run on the emulator, kept in `<out>/bin/cut-s<S>-p<I>` with
//! its listing `<out>/cut-s<S>-p<I>.txt` (default out: target/fuzz/cut-seed<S>). `--repo`: the
//! oxide checkout whose backend and `oxide` crate build the batches (default: this one; the
//! work folder's default is `<repo>/target/fuzz/cut-work`).
//! Exits 1 when it found a bug of oxide (ICE, ptxas rejection, mismatch), else 0.

use std::path::PathBuf;
use std::process::ExitCode;

use oxide_contract::{DEFAULT_ARCH, GpuArch};
use oxide_fuzz::{Campaign, Options, batch, cut, generate, repo_root, workspace};

const USAGE: &str = "usage: oxide-fuzz [run] --seed S --programs N [--batch B] [--start I] [--out DIR] [--work DIR] [--keep-bins DIR] [--arch ARCH] [--backend PATH]\n       oxide-fuzz show --seed S --index I\n       oxide-fuzz cut --seed S --indices I,J.. [--subcuts yes|no] [--out DIR] [--work DIR] [--repo DIR] [--arch ARCH] [--backend PATH]";

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("oxide-fuzz: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode, String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("run") | Some("show") | Some("cut") => args.remove(0),
        _ => "run".to_owned(),
    };
    let mut flags = std::collections::BTreeMap::new();
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        let name = flag
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument `{flag}`"))?
            .to_owned();
        let value = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
        flags.insert(name, value);
    }
    let number = |name: &str, default: Option<u64>| -> Result<u64, String> {
        match flags.get(name) {
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: `{v}` is not a number")),
            None => default.ok_or_else(|| format!("--{name} is required")),
        }
    };
    let seed = number("seed", None)?;
    if command == "show" {
        let p = generate(seed, number("index", None)?);
        print!("{}", batch::standalone(&p));
        return Ok(ExitCode::SUCCESS);
    }
    let repo = repo_root();
    let path = |name: &str, default: PathBuf| flags.get(name).map(PathBuf::from).unwrap_or(default);
    let arch: GpuArch = match flags.get("arch") {
        Some(a) => a.parse().map_err(|e| format!("--arch: {e}"))?,
        None => DEFAULT_ARCH,
    };
    if command == "cut" {
        // The oxide sources to build with (the backend and `oxide`): this checkout, or another.
        let repo = match flags.get("repo") {
            Some(r) => PathBuf::from(r)
                .canonicalize()
                .map_err(|e| format!("--repo {r}: {e}"))?,
            None => repo,
        };
        return cut(&flags, seed, &repo, arch);
    }
    let opts = Options {
        seed,
        programs: number("programs", None)?,
        batch: number("batch", Some(200))?.max(1),
        start: number("start", Some(0))?,
        out: path("out", repo.join(format!("target/fuzz/out-seed{seed}"))),
        keep_bins: flags.get("keep-bins").map(PathBuf::from),
    };
    let work = path("work", repo.join("target/fuzz/work"));
    let ws = workspace(&repo, &work, arch, flags.get("backend").map(PathBuf::from))
        .map_err(|e| e.to_string())?;
    let ptxas = oxide_cuda_tools::ptxas::find().map_err(|e| e.to_string())?;
    eprintln!(
        "oxide-fuzz: backend {}, work {}",
        ws.backend.display(),
        ws.dir.display()
    );
    let mut campaign = Campaign::new(&ws, &ptxas, opts.clone());
    campaign.run().map_err(|e| e.to_string())?;
    let report = campaign.summary.render(&opts);
    print!("{report}");
    eprintln!(
        "oxide-fuzz: report in {}",
        opts.out.join("report.txt").display()
    );
    Ok(if campaign.summary.bugs() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `oxide-fuzz cut`: one cut batch per program, each checked on the emulator.
fn cut(
    flags: &std::collections::BTreeMap<String, String>,
    seed: u64,
    repo: &std::path::Path,
    arch: GpuArch,
) -> Result<ExitCode, String> {
    let indices: Vec<u64> = flags
        .get("indices")
        .ok_or("--indices is required")?
        .split(',')
        .map(|i| {
            i.trim()
                .parse()
                .map_err(|_| format!("--indices: `{i}` is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let subcuts = match flags.get("subcuts").map(String::as_str) {
        None | Some("yes") => true,
        Some("no") => false,
        Some(v) => return Err(format!("--subcuts: `{v}` is not yes or no")),
    };
    let dir = |name: &str, default: &str| {
        flags
            .get(name)
            .map(PathBuf::from)
            .unwrap_or_else(|| repo.join(default))
    };
    let out = dir("out", &format!("target/fuzz/cut-seed{seed}"));
    let work = dir("work", "target/fuzz/cut-work");
    let ws = workspace(repo, &work, arch, flags.get("backend").map(PathBuf::from))
        .map_err(|e| e.to_string())?;
    let ptxas = oxide_cuda_tools::ptxas::find().map_err(|e| e.to_string())?;
    eprintln!(
        "oxide-fuzz: backend {}, work {}",
        ws.backend.display(),
        ws.dir.display()
    );
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    std::fs::write(out.join("backend"), format!("{}\n", ws.backend.display()))
        .map_err(|e| e.to_string())?;
    let mut all_passed = true;
    for index in indices {
        let built =
            cut::build(&ws, &ptxas, seed, index, subcuts, &out).map_err(|e| e.to_string())?;
        let ok = built.cpu.lines().filter(|l| l.starts_with("ok ")).count();
        let failures: Vec<&str> = built
            .cpu
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect();
        println!(
            "program {index}: {} kernels, {ok} ok on the emulator, {:.0} s; listing {}{}",
            built.kernels,
            built.seconds,
            built.listing.display(),
            built
                .binary
                .as_ref()
                .map(|b| format!(", binary {}", b.display()))
                .unwrap_or_default()
        );
        for line in failures {
            println!("  {line}");
        }
        all_passed &= built.passed;
    }
    Ok(if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
