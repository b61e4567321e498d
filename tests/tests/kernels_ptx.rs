//! Every kernel crate in kernels/ builds with the backend (`cargo oxide build`), its PTX
//! assembles with ptxas for the default architecture (sm_90), and it has an `.entry` for each
//! `#[kernel]` fn.

use std::path::Path;

use cargo_oxide::build::{self, BuildOptions};
use cargo_oxide::inspect;
use oxide_contract::DEFAULT_ARCH;
use oxide_cuda_tools::Ptxas;
use oxide_tests::{kernel_crates, kernel_names, ptxas_or_fail, repo_root, rust_files};

#[test]
fn every_kernel_crate_builds_to_ptx_that_ptxas_accepts() {
    // Before any build: a machine without ptxas must fail loudly, not skip.
    let ptxas = ptxas_or_fail();
    let crates = kernel_crates(&repo_root());
    assert!(!crates.is_empty(), "no kernel crates in kernels/");

    let failures: Vec<String> = crates
        .iter()
        .filter_map(|dir| check_crate(dir, &ptxas).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} kernel crates failed:\n\n{}",
        failures.len(),
        crates.len(),
        failures.join("\n\n")
    );
}

fn check_crate(dir: &Path, ptxas: &Ptxas) -> Result<(), String> {
    let name = dir.display();
    let out = build::build(&BuildOptions::new(dir))
        .map_err(|e| format!("{name}: cargo oxide build: {e}"))?;
    ptxas
        .check(&out.ptx, DEFAULT_ARCH.name())
        .map_err(|e| format!("{name}: {e}"))?;

    let ptx = std::fs::read_to_string(&out.ptx).map_err(|e| format!("{name}: {e}"))?;
    let entries = inspect::entries(&ptx);
    let declared: Vec<String> = rust_files(&dir.join("src"))
        .iter()
        .flat_map(|f| kernel_names(&std::fs::read_to_string(f).unwrap_or_default()))
        .collect();
    if declared.is_empty() {
        return Err(format!("{name}: no `#[kernel]` fn in src/"));
    }
    // A kernel a `macro_rules!` stamps (`fn $name`) has an entry per invocation, under names
    // the source does not spell out: those count towards the entries, not by name.
    let missing: Vec<&String> = declared
        .iter()
        .filter(|k| !k.starts_with('$') && !entries.contains(k))
        .collect();
    if entries.len() < declared.len() {
        return Err(format!(
            "{name}: {} `#[kernel]` fn(s) in src/ but {} `.entry` in {}: {entries:?}",
            declared.len(),
            entries.len(),
            out.ptx.display()
        ));
    }
    if !missing.is_empty() {
        return Err(format!(
            "{name}: no `.entry` in {} for {missing:?} (entries: {entries:?})",
            out.ptx.display()
        ));
    }
    eprintln!("{name}: ok, {} kernel(s): {entries:?}", entries.len());
    Ok(())
}
