#!/usr/bin/env bash
# This build of flash_attn and hgemm against other builds (.gpu-suite/old/flash_attn_<name> and
# hgemm_<name>: ci/build-variants.sh puts a branch's there), the nvcc twins and torch, in one
# run on the GPU machine: flash_attn at seq 16k, 8k and 2k (2^28, 2^27, 2^25), hgemm at 8192^3
# (its default variant). Prints one line a measurement. SIZES overrides the flash_attn sizes;
# ROUNDS (default 1) repeats every flash_attn size, the builds interleaved, so that drift in the
# GPU's clocks shows as spread within a build rather than as a difference between builds.
# Usage: bash .gpu-suite/experiments/compare-builds.sh   (carrying .gpu-suite)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for cu in flash_attn hgemm; do
    flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/$cu.cu")
    nvcc -O3 -arch=sm_90 -o "$work/$cu-nvcc" "$here/twins/$cu.cu" $flags
done
short() { sed -u -E 's/.*\(b ([0-9]+) h ([0-9/]+) s ([0-9]+) d ([0-9]+) causal ([01]).* ([0-9.]+) TFLOP\/s.*/s\3 d\4 c\5 \6/'; }
for n in ${SIZES:-268435456 134217728 33554432}; do
  for round in $(seq "${ROUNDS:-1}"); do
    for b in "$here/bin/flash_attn" "$here"/old/flash_attn_* "$work/flash_attn-nvcc"; do
        [[ -x $b ]] || continue
        timeout 60 "$b" "$n" | grep --line-buffered -E "TFLOP/s|FAIL" | short | sed -u "s|^|$(basename "$b") |"
    done
  done
    timeout 120 python3 "$here/torch_sdpa.py" "$n" | grep flash_attn-torch \
        | sed -E 's/flash_attn-torch-([a-z]+) n=[0-9]+ d ([0-9]+) causal ([01]) \(b [0-9]+ h [0-9/]+ s ([0-9]+)\) ([0-9.]+) TFLOP.*/torch-\1 s\4 d\2 c\3 \5/'
done
for b in "$here/bin/hgemm" "$here"/old/hgemm_* "$work/hgemm-nvcc"; do
    [[ -x $b ]] || continue
    HGEMM_VARIANTS=0 timeout 90 "$b" 268435456 | grep --line-buffered -E "TFLOP|FAIL" | sed -u "s|^|$(basename "$b") |"
done
