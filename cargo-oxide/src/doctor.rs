//! `cargo oxide doctor`: is this machine ready to build (and run) oxide kernels?

use std::fmt;
use std::path::{Path, PathBuf};

use crate::backend;
use crate::cargo;
use crate::driver;
use crate::error::{Error, Result};
use oxide_cuda_tools::{libdevice, ptxas};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    /// Something required is missing: doctor fails.
    Missing,
    /// Not as it should be, but handled on demand (e.g. the backend gets rebuilt by `build`).
    Warn,
    /// For information only (a GPU is optional).
    Info,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Status::Ok => "ok",
            Status::Missing => "MISSING",
            Status::Warn => "warn",
            Status::Info => "info",
        })
    }
}

/// One line of doctor's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub status: Status,
    pub what: &'static str,
    pub detail: String,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<8}{}: {}", self.status, self.what, self.detail)
    }
}

fn check(status: Status, what: &'static str, detail: impl Into<String>) -> Check {
    Check {
        status,
        what,
        detail: detail.into(),
    }
}

/// Runs every check for the oxide repository at `root`.
pub fn checks(root: &Path) -> Vec<Check> {
    let mut out = Vec::new();
    let pin = pinned_channel(root);
    let version = cargo::rustc_version(root);
    let field = |key: &str| -> String {
        version
            .as_ref()
            .ok()
            .and_then(|v| v.iter().find(|(k, _)| k == key))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let sysroot = cargo::output(
        cargo::rustc()
            .args(["--print", "sysroot"])
            .current_dir(root),
    )
    .map(|s| PathBuf::from(s.trim()));
    let host = field("host");

    // The pinned toolchain.
    out.push(match (&pin, &version, &sysroot) {
        (None, _, _) => check(
            Status::Missing,
            "toolchain",
            "no channel in rust-toolchain.toml",
        ),
        (Some(pin), Err(e), _) | (Some(pin), _, Err(e)) => check(
            Status::Missing,
            "toolchain",
            format!("{pin} is pinned but rustc does not run ({e}); run ci/setup.sh"),
        ),
        (Some(pin), Ok(_), Ok(sysroot)) => {
            let (release, date) = (field("release"), field("commit-date"));
            let found = format!("rustc {release} ({date})");
            if toolchain_matches(pin, sysroot, &release, &date) {
                check(Status::Ok, "toolchain", format!("{pin}: {found}"))
            } else {
                check(
                    Status::Missing,
                    "toolchain",
                    format!("{pin} is pinned but {found} runs; run ci/setup.sh"),
                )
            }
        }
    });

    match &sysroot {
        Ok(sysroot) => out.extend(component_checks(sysroot, &host, &field("LLVM version"))),
        Err(_) => out.push(check(
            Status::Missing,
            "components",
            "no sysroot: see above",
        )),
    }

    out.push(backend_check(root));

    out.push(match ptxas::find() {
        Ok(p) => match p.version() {
            Ok(v) => check(
                Status::Ok,
                "ptxas",
                format!("{} ({v}; from {})", p.path.display(), p.source),
            ),
            Err(e) => check(
                Status::Missing,
                "ptxas",
                format!("{} does not run: {e}", p.path.display()),
            ),
        },
        Err(e) => check(Status::Missing, "ptxas", e.to_string()),
    });

    out.push(match libdevice::find() {
        Ok(path) => check(Status::Ok, "libdevice", path.display().to_string()),
        Err(e) => check(Status::Missing, "libdevice", e.to_string()),
    });

    out.push(match (driver::libcuda_loadable(), driver::gpus()) {
        (true, Some(gpus)) => check(Status::Info, "NVIDIA GPU", gpus),
        (true, None) => check(Status::Info, "NVIDIA GPU", "libcuda.so.1 loads; nvidia-smi lists no GPU"),
        (false, _) => check(
            Status::Info,
            "NVIDIA GPU",
            "no driver (libcuda.so.1 does not load): kernels build; `cargo oxide run` does not run them",
        ),
    });
    out
}

/// Prints the checks; fails when a required one is missing.
pub fn doctor(root: &Path) -> Result<()> {
    let results = checks(root);
    for c in &results {
        println!("{c}");
    }
    match results
        .iter()
        .filter(|c| c.status == Status::Missing)
        .count()
    {
        0 => Ok(()),
        n => Err(Error::DoctorFailed(n)),
    }
}

/// `channel = "..."` of `<root>/rust-toolchain.toml`.
pub fn pinned_channel(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("rust-toolchain.toml")).ok()?;
    text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// Whether the running rustc is the pinned channel: its sysroot is rustup's folder of that
/// channel, or (outside rustup) a nightly whose commit date is the pin's date or the day before
/// (nightly-D is built from the commits of D-1).
pub fn toolchain_matches(pin: &str, sysroot: &Path, release: &str, commit_date: &str) -> bool {
    let dir = sysroot.file_name().unwrap_or_default().to_string_lossy();
    if *dir == *pin || dir.starts_with(&format!("{pin}-")) {
        return true;
    }
    let Some(date) = pin.strip_prefix("nightly-") else {
        return release == pin;
    };
    release.contains("nightly")
        && (commit_date == date || previous_day(date).as_deref() == Some(commit_date))
}

/// `YYYY-MM-DD` minus one day.
fn previous_day(date: &str) -> Option<String> {
    let mut parts = date.splitn(3, '-').map(|p| p.parse::<u32>().ok());
    let (mut y, mut m, mut d) = (parts.next()??, parts.next()??, parts.next()??);
    if d > 1 {
        d -= 1;
    } else {
        if m > 1 {
            m -= 1;
        } else {
            m = 12;
            y -= 1;
        }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        d = match m {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
    }
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

fn has_file(dir: &Path, matches: impl Fn(&str) -> bool) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| matches(&n.to_string_lossy())))
}

fn component_checks(sysroot: &Path, host: &str, llvm_version: &str) -> Vec<Check> {
    let rustlib = sysroot.join("lib").join("rustlib");
    let fix = "run ci/setup.sh (rustup component add rustc-dev rust-src llvm-tools)";
    let present = |what, found: Option<PathBuf>| match found {
        Some(p) => check(Status::Ok, what, p.display().to_string()),
        None => check(
            Status::Missing,
            what,
            format!("not in {}; {fix}", sysroot.display()),
        ),
    };
    let host_lib = rustlib.join(host).join("lib");
    let rust_src = rustlib.join("src").join("rust").join("library");
    let llc = rustlib.join(host).join("bin").join("llc");
    let major = llvm_version.split('.').next().unwrap_or_default();
    let libllvm = has_file(&sysroot.join("lib"), |n| {
        !major.is_empty() && n.starts_with(&format!("libLLVM.so.{major}"))
    });
    vec![
        present(
            "rustc-dev",
            has_file(&host_lib, |n| {
                n.starts_with("librustc_middle-") && n.ends_with(".rmeta")
            }),
        ),
        present("rust-src", rust_src.is_dir().then_some(rust_src)),
        present("llvm-tools", llc.is_file().then_some(llc)),
        match (libllvm, major) {
            (Some(p), "22") => check(Status::Ok, "rustc's libLLVM", p.display().to_string()),
            (Some(p), _) => check(
                Status::Missing,
                "rustc's libLLVM",
                format!(
                    "{} is LLVM {major}; the backend is built for LLVM 22",
                    p.display()
                ),
            ),
            (None, _) => check(
                Status::Missing,
                "rustc's libLLVM",
                format!("no libLLVM.so.{major}* in {}/lib", sysroot.display()),
            ),
        },
    ]
}

fn backend_check(root: &Path) -> Check {
    let so = backend::default_backend_path(root);
    let rebuild = "`cargo oxide build` rebuilds it on demand (or `cargo build -p oxide-codegen`)";
    match backend::staleness(root) {
        Some(why) => check(
            Status::Warn,
            "backend",
            format!("{}: {why}; {rebuild}", so.display()),
        ),
        None => check(
            Status::Ok,
            "backend",
            format!("{} (up to date)", so.display()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_before() {
        assert_eq!(previous_day("2026-05-20").as_deref(), Some("2026-05-19"));
        assert_eq!(previous_day("2026-03-01").as_deref(), Some("2026-02-28"));
        assert_eq!(previous_day("2024-03-01").as_deref(), Some("2024-02-29"));
        assert_eq!(previous_day("2026-01-01").as_deref(), Some("2025-12-31"));
        assert_eq!(previous_day("2026-05"), None);
    }

    #[test]
    fn toolchain_pin() {
        let rustup = Path::new("/r/toolchains/nightly-2026-05-20-x86_64-unknown-linux-gnu");
        let other = Path::new("/opt/rust");
        let pin = "nightly-2026-05-20";
        assert!(toolchain_matches(
            pin,
            rustup,
            "1.97.0-nightly",
            "2026-05-19"
        ));
        assert!(toolchain_matches(
            pin,
            other,
            "1.97.0-nightly",
            "2026-05-19"
        ));
        assert!(toolchain_matches(
            pin,
            other,
            "1.97.0-nightly",
            "2026-05-20"
        ));
        assert!(!toolchain_matches(
            pin,
            other,
            "1.97.0-nightly",
            "2026-05-10"
        ));
        assert!(!toolchain_matches(pin, other, "1.95.0", "2026-04-14"));
        let stable = Path::new("/r/toolchains/stable-x86_64-unknown-linux-gnu");
        assert!(!toolchain_matches(pin, stable, "1.95.0", "2026-05-19"));
    }

    #[test]
    fn reads_the_pin_and_reports_this_repo() {
        let root = backend::oxide_root(None).unwrap();
        assert_eq!(pinned_channel(&root).as_deref(), Some("nightly-2026-05-20"));
        let results = checks(&root);
        let names: Vec<&str> = results.iter().map(|c| c.what).collect();
        assert_eq!(
            names,
            [
                "toolchain",
                "rustc-dev",
                "rust-src",
                "llvm-tools",
                "rustc's libLLVM",
                "backend",
                "ptxas",
                "libdevice",
                "NVIDIA GPU"
            ]
        );
        // This test runs under the pinned toolchain, so that check must pass.
        assert_eq!(results[0].status, Status::Ok, "{}", results[0]);
    }
}
