#!/usr/bin/env bash
# Lays out .gpu-cut/ (git-ignored) for the GPU machine, which has no Rust: the cuts of fuzz
# programs (docs/fuzzing.md, "Cuts of a program"), to find the statement a GPU difference comes
# from in one GPU run:
#   ci/build-gpu-cut.sh [--seed S] [--subcuts yes|no] [--at REV] [--backend PATH] I [J ...]
#       (default: seed 1, sub-cuts, programs 620 2224, this working tree)
# For each program, `oxide-fuzz cut` builds one batch of its cuts through the backend and ptxas
# as the campaign builds a batch, and runs it on the CPU emulator, where every cut must agree
# with plain Rust. The backend and the `oxide` crate are this working tree's (what ci/fuzz.sh
# uses), or with --at those of commit REV, exported to target/fuzz/cut-src/<REV> and built there
# (a first build there takes minutes: its target/ starts as a copy of this one's target/debug,
# so only the workspace's own crates build). The generator is always this tree's. Lays out .gpu-cut/run.sh, bin/cut-s<seed>-p<index>.gz (the stripped batch
# binary, gzipped) and bin/cut-s<seed>-p<index>.txt (its listing: what each kernel computes).
# Then, with the device tool: carry [".gpu-cut"], command `bash .gpu-cut/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "ci/build-gpu-cut.sh: $*" >&2; exit 1; }

seed=1 subcuts=yes at="" indices=() extra=()
while (($#)); do
    case $1 in
        --seed) seed=$2; shift 2 ;;
        --subcuts) subcuts=$2; shift 2 ;;
        --at) at=$2; shift 2 ;;
        --backend) extra+=(--backend "$2"); shift 2 ;;
        --*) die "unknown argument $1" ;;
        *) indices+=("$1"); shift ;;
    esac
done
((${#indices[@]})) || indices=(620 2224)
suite=.gpu-cut
# The device tool carries at most 64 MiB.
limit=$((60 * 1024 * 1024))
from=target/fuzz/gpu-cut-seed$seed
rm -rf "$from"
work=target/fuzz/cut-work
source="this working tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD 2>/dev/null || echo ' with uncommitted changes')"
if [[ -n "$at" ]]; then
    rev=$(git rev-parse --short=12 "$at^{commit}") || die "no commit $at"
    src=target/fuzz/cut-src/$rev
    if [[ ! -f "$src/.exported" ]]; then
        rm -rf "$src"
        mkdir -p "$src/target"
        git archive "$rev" | tar -x -C "$src"
        echo "ci/build-gpu-cut.sh: copying target/debug to $src/target (reused for the registry crates)" >&2
        nice -n 19 cp -a target/debug "$src/target/debug"
        touch "$src/.exported"
    fi
    extra+=(--repo "$src")
    work=$src/target/fuzz/cut-work
    source="commit $rev (exported to $src)"
fi
cargo build --quiet -p oxide-fuzz
list=$(IFS=,; echo "${indices[*]}")
nice -n 19 target/debug/oxide-fuzz cut --seed "$seed" --indices "$list" --subcuts "$subcuts" \
    --out "$from" --work "$work" "${extra[@]}" ||
    die "a cut did not build or disagreed with plain Rust on the emulator (above); $suite not laid out"
rm -rf "$suite"
mkdir -p "$suite/bin"
for index in "${indices[@]}"; do
    name=cut-s$seed-p$(printf %06d "$index")
    [[ -f "$from/bin/$name" ]] || die "no $from/bin/$name"
    gzip -9 -c "$from/bin/$name" >"$suite/bin/$name.gz"
    cp "$from/$name.txt" "$suite/bin/$name.txt"
done
size=$(du -sb "$suite" | cut -f1)
((size <= limit)) || die "$suite is $size bytes, over the 60 MiB the device tool carries"
cp ci/gpu-cut/run.sh "$suite/run.sh"
backend=$(cat "$from/backend")
{
    echo "$(date -u +%FT%TZ), seed $seed, programs ${indices[*]}, sub-cuts $subcuts"
    echo "oxide (backend, crate) from $source; backend ${backend#"$PWD/"} (sha256 $(sha256sum "$backend" | cut -c1-16))"
    echo "generator: oxide-fuzz of this working tree at $(git rev-parse --short HEAD)"
} >"$suite/BUILT"
echo "built $suite (${#indices[@]} batches, $(du -sh "$suite" | cut -f1)); on the GPU machine, carrying $suite: bash $suite/run.sh"
