#!/usr/bin/env bash
# Compares two builds of flash_attn (and of hgemm) on the GPU machine, in one run: the oxide
# binaries bin/flash_attn and bin/flash_attn_old (copied there by hand from a build of another
# commit), the twin as the suite builds it ("fa-new": 64 keys a step at both head dimensions)
# and with 32 at d 128 ("fa-old", as before 2026-12-07's change), at seq 16k, 8k and 1024; then
# bin/hgemm against bin/hgemm_old and the twin.
# Usage: bash .gpu-suite/experiments/flash-steps.sh   (carrying .gpu-suite)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/flash_attn.cu")
nvcc -O3 -arch=sm_90 -o "$work/fa-new" "$here/twins/flash_attn.cu" $flags
nvcc -O3 -arch=sm_90 -DBKV_LARGE=32 -o "$work/fa-old" "$here/twins/flash_attn.cu" $flags
flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/hgemm.cu")
nvcc -O3 -arch=sm_90 -o "$work/hgemm-nvcc" "$here/twins/hgemm.cu" $flags
for n in 268435456 134217728 1048579; do
    for b in "$here/bin/flash_attn" "$here/bin/flash_attn_old" "$work/fa-new" "$work/fa-old"; do
        echo "# $(basename "$b")"
        timeout 60 "$b" "$n"
    done
done
for b in "$here/bin/hgemm" "$here/bin/hgemm_old" "$work/hgemm-nvcc"; do
    echo "# $(basename "$b")"
    HGEMM_VARIANTS=0 timeout 90 "$b" 268435456
done
