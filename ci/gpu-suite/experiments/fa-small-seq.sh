#!/usr/bin/env bash
# Why flash_attn loses more to torch's FlashAttention-2 at seq 2k than at 16k (same 4096 blocks,
# 32 steps a block against 256): this build and the variants under .gpu-suite/old/flash_attn_*
# timed at seq 2k and 16k beside the twin and torch; ncu's launch statistics and occupancy of
# both kernels at 2k; and ncu's per-SASS stall samples of both at 2k, head dimension 64 (CSV
# under OUT), to see how much of a block's time lies outside its main loop.
# Usage: bash .gpu-suite/experiments/fa-small-seq.sh OUT   (carrying .gpu-suite)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fa-small-seq.sh OUT}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/flash_attn.cu")
nvcc -O3 -arch=sm_90 -o "$work/flash_attn-nvcc" "$here/twins/flash_attn.cu" $flags
short() { sed -E 's/.*\(b ([0-9]+) h ([0-9/]+) s ([0-9]+) d ([0-9]+) causal ([01]).* ([0-9.]+) TFLOP\/s.*/s\3 d\4 c\5 \6/'; }
for n in ${SIZES:-33554432 268435456}; do
    for b in "$here/bin/flash_attn" "$here"/old/flash_attn_* "$work/flash_attn-nvcc"; do
        [[ -x $b ]] || continue
        timeout 90 "$b" "$n" | grep -E "TFLOP/s|FAIL" | short | sed "s|^|$(basename "$b") |"
    done
    timeout 120 python3 "$here/torch_sdpa.py" "$n" | grep flash_attn-torch-flash \
        | sed -E 's/flash_attn-torch-([a-z]+) n=[0-9]+ d ([0-9]+) causal ([01]) \(b [0-9]+ h [0-9/]+ s ([0-9]+)\) ([0-9.]+) TFLOP.*/torch-\1 s\4 d\2 c\3 \5/'
done
stats() { # name, filter, skip, command...
    local name=$1 filter=$2 skip=$3
    shift 3
    timeout 120 ncu --section LaunchStats --section Occupancy --section SpeedOfLight \
        -k "$filter" --launch-skip "$skip" --launch-count 1 "$@" > "$out/$name-stats.txt" 2>&1
    echo "== $name"
    grep -E "Registers Per|Shared Memory Config|Dynamic Shared|Static Shared|Block Limit|Achieved Occupancy|Theoretical Occupancy|Duration|Waves Per SM|Grid Size|Block Size|Compute \(SM\) Thr|Memory Thr" "$out/$name-stats.txt"
}
stats torch-d64 "regex:flash_fwd" 1 python3 "$here/experiments/fa2-once.py" 64 2048
stats oxide-d64 "regex:^flash_attn$" 0 "$here/bin/flash_attn" 33554432
stats torch-d128 "regex:flash_fwd" 1 python3 "$here/experiments/fa2-once.py" 128 2048
stats oxide-d128 "regex:flash_attn_128" 0 "$here/bin/flash_attn" 33554432
sass() { # name, filter, skip, command...
    local name=$1 filter=$2 skip=$3
    shift 3
    timeout 150 ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
        -k "$filter" --launch-skip "$skip" --launch-count 1 "$@" > "$out/$name.csv" 2> "$out/$name.err"
    echo "$name: $(wc -l < "$out/$name.csv") lines"
}
sass torch-d64-2k "regex:flash_fwd" 1 python3 "$here/experiments/fa2-once.py" 64 2048
sass oxide-d64-2k "regex:^flash_attn$" 0 "$here/bin/flash_attn" 33554432
python3 "$here/experiments/sass-stalls-top.py" "$out"/*-2k.csv --top 15 --by-count
gzip -9 "$out"/*.csv
