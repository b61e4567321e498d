//! CI's slice of the fuzzing campaign (docs/fuzzing.md): one batch of generated programs, seed
//! fixed, through the backend, ptxas and the CPU emulator. Every program must compile (no ICE, no
//! unsupported construct, no rustc error), assemble, and give on the emulator the checksums of
//! its body run as plain Rust.

use oxide_contract::DEFAULT_ARCH;
use oxide_fuzz::{Campaign, Options, repo_root, workspace};

const SEED: u64 = 20261201;
const PROGRAMS: u64 = 50;

#[test]
fn one_batch_builds_assembles_and_matches_plain_rust() {
    let repo = repo_root();
    // Its own work folder: a campaign running in target/fuzz/work keeps its cargo lock.
    let work = repo.join("target/fuzz/ci");
    let ws = workspace(&repo, &work, DEFAULT_ARCH, None).expect("the fuzz workspace");
    let ptxas = oxide_cuda_tools::ptxas::find().expect("ptxas (ci/setup.sh installs it)");
    let opts = Options {
        seed: SEED,
        programs: PROGRAMS,
        batch: PROGRAMS,
        start: 0,
        out: work.join("out"),
        keep_bins: None,
    };
    let _ = std::fs::remove_dir_all(&opts.out);
    let mut campaign = Campaign::new(&ws, &ptxas, opts.clone());
    campaign.run().expect("the campaign's files");
    let s = &campaign.summary;
    let report = s.render(&opts);
    eprintln!("{report}");
    assert!(s.findings.is_empty(), "findings:\n{report}");
    assert_eq!(
        (s.generated, s.compiled, s.compared, s.passed),
        (PROGRAMS, PROGRAMS, PROGRAMS, PROGRAMS),
        "every program must be generated, compiled, compared and pass:\n{report}"
    );
    assert_eq!(s.builds, 1, "one build for the whole batch:\n{report}");
}
