#!/usr/bin/env bash
# The test command: set up, then formatting, lints, the backend build and every test.
# Stops at the first failing step and says which one. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

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
step test "See the failing tests above; 'cargo test -p <package>' reruns one package." \
    cargo test --workspace --no-fail-fast

echo "ci/test.sh: all steps passed in $((SECONDS - start)) s"
