#!/usr/bin/env bash
# The fuzzing campaign of the backend (docs/fuzzing.md), reproducible from its seed:
#   ci/fuzz.sh --seed 1 --programs 10000 [--batch 250] [--start I] [--out DIR] [--keep-bins DIR]
# Generates random well-typed kernels, builds them in batch crates through the backend and
# ptxas, runs each on the CPU emulator against plain Rust, and writes <out>/report.txt (default
# target/fuzz/out-seed<S>/) with the counts and every finding, each with a standalone reproducer
# in <out>/repro/. Runs at the lowest priority: the machine is shared. Exits 1 on an oxide bug.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet -p oxide-fuzz
exec nice -n 19 target/debug/oxide-fuzz run "$@"
