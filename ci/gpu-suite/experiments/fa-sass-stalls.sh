#!/usr/bin/env bash
# Where flash_attn's warps stall, instruction by instruction, against torch's FlashAttention-2
# kernel: ncu's source counters (warp-state samples per SASS instruction) of one launch each,
# seq 16k, head dimension 64 and 128, not causal, written as CSV under OUT for reading offline.
# Usage: bash .gpu-suite/experiments/fa-sass-stalls.sh OUT   (carrying .gpu-suite)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fa-sass-stalls.sh OUT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sass() { # name, filter, skip, command...
    local name=$1 filter=$2 skip=$3
    shift 3
    timeout 200 ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
        -k "$filter" --launch-skip "$skip" --launch-count 1 "$@" > "$out/$name.csv" 2> "$out/$name.err"
    echo "$name: $(wc -l < "$out/$name.csv") lines, exit $?"
}
sass torch-d64 "regex:flash_fwd" 1 python3 "$here/experiments/fa2-once.py" 64
sass oxide-d64 "regex:^flash_attn$" 0 "$here/bin/flash_attn" 268435456
sass torch-d128 "regex:flash_fwd" 1 python3 "$here/experiments/fa2-once.py" 128
sass oxide-d128 "regex:flash_attn_128" 0 "$here/bin/flash_attn" 268435456
python3 "$here/experiments/sass-stalls-top.py" "$out"/*.csv --top 25
gzip -9 "$out"/*.csv
ls -la "$out"
