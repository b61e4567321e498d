//! `oxide-fuzz [run] --seed S --programs N [--batch B] [--start I] [--out DIR] [--work DIR]
//! [--keep-bins DIR] [--arch sm_90] [--backend PATH]`: the campaign (docs/fuzzing.md).
//! `oxide-fuzz show --seed S --index I`: program I as a standalone src/main.rs.
//! Exits 1 when it found a bug of oxide (ICE, ptxas rejection, mismatch), else 0.

use std::path::PathBuf;
use std::process::ExitCode;

use oxide_contract::{DEFAULT_ARCH, GpuArch};
use oxide_fuzz::{Campaign, Options, batch, generate, repo_root, workspace};

const USAGE: &str = "usage: oxide-fuzz [run] --seed S --programs N [--batch B] [--start I] [--out DIR] [--work DIR] [--keep-bins DIR] [--arch ARCH] [--backend PATH]\n       oxide-fuzz show --seed S --index I";

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
        Some("run") | Some("show") => args.remove(0),
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
    let ptxas = cargo_oxide::ptxas::find().map_err(|e| e.to_string())?;
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
