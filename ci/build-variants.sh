#!/usr/bin/env bash
# Builds flash_attn and hgemm of each named git revision (a branch, a commit), or of this
# checkout's HEAD with a patch applied (ci/variants/*.patch: a variant kept as a patch, since
# branches do not outlive a session's checkout), into .gpu-suite/old/flash_attn_<name> and
# hgemm_<name>, for experiments/compare-builds.sh to time against this checkout's build on the
# GPU machine. Each is built in a git worktree of its own under target/variants/<name> (its own
# target dir: the first build of one takes a few minutes). Run ci/build-gpu-suite.sh first (it
# makes .gpu-suite and builds this checkout's).
# Usage: ci/build-variants.sh REV|PATCH [...]   (names: the revision with / as -, the patch's
#        file name without .patch)
set -euo pipefail
cd "$(dirname "$0")/.."
(($#)) || { echo "usage: ci/build-variants.sh REV [REV ...]" >&2; exit 2; }
[[ -d .gpu-suite ]] || { echo "ci/build-variants.sh: no .gpu-suite: run ci/build-gpu-suite.sh first" >&2; exit 1; }
mkdir -p .gpu-suite/old
for rev in "$@"; do
    patch=
    if [[ $rev == *.patch && -f $rev ]]; then
        patch=$(realpath "$rev")
        name=$(basename "$rev" .patch)
        rev=HEAD
    else
        name=${rev//\//-}
    fi
    tree=target/variants/$name
    if [[ -d $tree ]]; then
        # A patch applied there before: its edits and its new files go (ignored builds stay).
        git -C "$tree" checkout -q --force --detach "$rev"
        git -C "$tree" clean -fdq
    else
        git worktree add -q --detach "$tree" "$rev"
    fi
    [[ -z $patch ]] || git -C "$tree" apply "$patch"
    for kernel in flash_attn hgemm; do
        bin=$(cd "$tree" && cargo oxide build "kernels/$kernel" | sed -n 's/^binary: //p')
        [[ -x $bin ]] || { echo "ci/build-variants.sh: $rev's $kernel did not build" >&2; exit 1; }
        cp "$bin" ".gpu-suite/old/${kernel}_$name"
        strip --strip-debug ".gpu-suite/old/${kernel}_$name"
        echo "$rev: .gpu-suite/old/${kernel}_$name"
    done
done
