#!/usr/bin/env bash
# Lays out .gpu-fuzz/ (git-ignored) for the GPU machine, which has no Rust:
#   .gpu-fuzz/run.sh, bin/fuzz-s<seed>-<first>-<last>.gz (stripped, gzipped batch binaries)
#   ci/build-gpu-fuzz.sh [--seed S] [--programs N] [--batch B]   builds N programs (default
#       seed 1, 2000 programs, 250 per batch) with ci/fuzz.sh --keep-bins
#   ci/build-gpu-fuzz.sh --from DIR                               packs a campaign's kept
#       binaries (DIR/bin/*, e.g. target/fuzz/gpu-bins), as many as fit
# Then, with the device tool: carry [".gpu-fuzz"], command `bash .gpu-fuzz/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "ci/build-gpu-fuzz.sh: $*" >&2; exit 1; }

seed=1 programs=2000 batch=250 from=""
while (($#)); do
    case $1 in
        --seed) seed=$2; shift 2 ;;
        --programs) programs=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        *) die "unknown argument $1" ;;
    esac
done
suite=.gpu-fuzz
# The device tool carries at most 64 MiB.
limit=$((60 * 1024 * 1024))
rm -rf "$suite"
mkdir -p "$suite/bin"
if [[ -z "$from" ]]; then
    from=target/fuzz/gpu-build-seed$seed
    rm -rf "$from"
    ci/fuzz.sh --seed "$seed" --programs "$programs" --batch "$batch" \
        --out "$from/out" --work target/fuzz/gpu-work --keep-bins "$from" ||
        echo "ci/build-gpu-fuzz.sh: the campaign found bugs (report: $from/out/report.txt); packing what built" >&2
fi
[[ -d "$from/bin" ]] || die "no $from/bin"
size=0
packed=0
for bin in "$from"/bin/*; do
    [[ -f "$bin" ]] || continue
    gz="$suite/bin/$(basename "$bin").gz"
    strip -o "$suite/tmp" "$bin" && gzip -9 -c "$suite/tmp" >"$gz" && rm -f "$suite/tmp"
    size=$((size + $(stat -c %s "$gz")))
    if ((size > limit)); then
        rm -f "$gz"
        echo "ci/build-gpu-fuzz.sh: stopping at $packed batches (the 60 MiB limit)" >&2
        break
    fi
    packed=$((packed + 1))
done
((packed > 0)) || die "no batch binaries in $from/bin"
cp ci/gpu-fuzz/run.sh "$suite/run.sh"
echo "built $suite ($packed batches, $(du -sh "$suite" | cut -f1)); on the GPU machine, carrying $suite: bash $suite/run.sh"
