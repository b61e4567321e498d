#!/usr/bin/env bash
# The test command: set up, then formatting, lints, the backend build and every test.
# Stops at the first failing step and says which one. Needs no GPU.
#
#   ci/test.sh          the full run (CI's, through .ci/run): every test of the workspace.
#   ci/test.sh --fast   the edit loop's subset: the same setup, formatting, lints and backend
#                       build, then every crate's unit tests (`--lib --bins`), tests/ui, the
#                       conformance corpus on the emulator and the pipeline snapshots. It leaves
#                       out the crates' other integration tests (llvm-emit's, device-std's,
#                       cargo-oxide's, which build projects of their own), kernels_ptx, the docs'
#                       doctests and the fuzzer's slice: passing it is not passing CI.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=false
case "${1:-}" in
    --fast) fast=true ;;
    "") ;;
    *) echo "usage: ci/test.sh [--fast]" >&2; exit 2 ;;
esac

start=$SECONDS
step() {
    local name=$1 hint=$2
    shift 2
    echo "==> $name: $*"
    local t=$SECONDS
    if ! "$@"; then
        echo "ci/test.sh: FAILED at '$name' after $((SECONDS - start)) s. $hint" >&2
        exit 1
    fi
    echo "==> $name: ok ($((SECONDS - t)) s)"
}

step setup "ci/setup.sh installs the pinned toolchain and ptxas; see its message above." \
    ci/setup.sh
step format "Run 'cargo fmt --all' and commit the result." \
    cargo fmt --all --check
step clippy "Fix the lints above (they are errors here: -D warnings)." \
    cargo clippy --workspace --all-targets -- -D warnings
step backend "The codegen backend does not build; 'cargo build -p oxide-codegen' shows why." \
    cargo build -p oxide-codegen
# A chart of a committed suite run (the last by name): ci/chart.py still reads its format.
step chart "'python3 ci/chart.py suite FILE -o OUT.svg' shows why (docs/gpu-results/README.md)." \
    python3 ci/chart.py suite "$(ls docs/gpu-results/*-suite-*.txt | sort | tail -1)" \
        -o "${TMPDIR:-/tmp}/oxide-suite-chart.svg"
if $fast; then
    step unit "See the failing tests above; 'cargo test -p <package> --lib' reruns one package's." \
        cargo test --workspace --lib --bins
    step ui "'cargo test -p oxide-tests --test ui -- <topic>::<name>' reruns one case (tests/README.md)." \
        cargo test -p oxide-tests --test ui
    step conformance "'cargo test -p oxide-tests --test conformance' reruns it; tests/conformance/README.md runs one case." \
        cargo test -p oxide-tests --test conformance
    step snapshots "'cargo test -p oxide-tests --test pipeline_snapshots' reruns it; OXIDE_BLESS=1 rewrites them (review the diff)." \
        cargo test -p oxide-tests --test pipeline_snapshots
    echo "ci/test.sh --fast: all steps passed in $((SECONDS - start)) s (a subset: ci/test.sh is CI's run)"
    exit 0
fi
# kernels/pyops and kernels/llama are left out of this one build: features unify across the
# packages of a cargo run, and both turn on oxide's `python`, whose PyO3 re-exports change the
# paths rustc prints in compile_fail's expected diagnostics (alloc's internals as
# oxide::python::pyo3::...). pyops's test is cargo-oxide's python_wheel, which builds it on its
# own with `cargo oxide python`; llama's emulator tests run in a cargo run of their own below.
step test "See the failing tests above; 'cargo test -p <package>' reruns one package." \
    cargo test --workspace --exclude pyops --exclude llama --no-fail-fast
step llama "See the failing tests above; 'cargo test -p llama --release' reruns them." \
    cargo test -p llama --release
# pyops's emulator tests (the kernels against CPU references), in a cargo run of their own.
step pyops "'cargo test -p pyops' reruns pyops's emulator tests." \
    cargo test -p pyops

echo "ci/test.sh: all steps passed in $((SECONDS - start)) s"
