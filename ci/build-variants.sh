#!/usr/bin/env bash
# Builds flash_attn and hgemm of each named git revision (a branch, a commit) into
# .gpu-suite/old/flash_attn_<name> and hgemm_<name>, for experiments/compare-builds.sh to time
# against this checkout's build on the GPU machine. Each revision is built in a git worktree of
# its own under target/variants/<name> (its own target dir: the first build of one takes a few
# minutes). Run ci/build-gpu-suite.sh first (it makes .gpu-suite and builds this checkout's).
# Usage: ci/build-variants.sh REV [REV ...]     (names: the revision with / as -)
set -euo pipefail
cd "$(dirname "$0")/.."
(($#)) || { echo "usage: ci/build-variants.sh REV [REV ...]" >&2; exit 2; }
[[ -d .gpu-suite ]] || { echo "ci/build-variants.sh: no .gpu-suite: run ci/build-gpu-suite.sh first" >&2; exit 1; }
mkdir -p .gpu-suite/old
for rev in "$@"; do
    name=${rev//\//-}
    tree=target/variants/$name
    if [[ -d $tree ]]; then
        git -C "$tree" checkout -q --detach "$rev"
    else
        git worktree add -q --detach "$tree" "$rev"
    fi
    for kernel in flash_attn hgemm; do
        bin=$(cd "$tree" && cargo oxide build "kernels/$kernel" | sed -n 's/^binary: //p')
        [[ -x $bin ]] || { echo "ci/build-variants.sh: $rev's $kernel did not build" >&2; exit 1; }
        cp "$bin" ".gpu-suite/old/${kernel}_$name"
        strip --strip-debug ".gpu-suite/old/${kernel}_$name"
        echo "$rev: .gpu-suite/old/${kernel}_$name"
    done
done
