#!/usr/bin/env bash
# Times some kernels of .gpu-suite against their nvcc twins, without the rest of the suite:
#   bash .gpu-suite/some-kernels.sh [KERNEL...]   (default: every kernel with a twin)
# RUNS (default 2) runs of each at 2^28 and 2^20+3 elements; one line per run:
#   <kernel> <n> oxide <ms> nvcc <ms> ratio <oxide/nvcc>
# For a quick look between full suite runs (run.sh is the record: checks, sanitizers, corpus).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
kernels=("$@")
if ((${#kernels[@]} == 0)); then
    for cu in "$here"/twins/*.cu; do
        name=$(basename "$cu" .cu)
        [[ -x "$here/bin/$name" ]] && kernels+=("$name")
    done
fi
for k in "${kernels[@]}"; do
    nvcc -O3 -arch=sm_90 -o "$work/$k-nvcc" "$here/twins/$k.cu" &
done
wait
ms_of() { sed -nE 's/.*[^0-9.]([0-9]+(\.[0-9]+)?) ms.*/\1/p' <<<"$1" | tail -n1; }
for k in "${kernels[@]}"; do
    for n in 268435456 1048579; do
        for _ in $(seq "${RUNS:-2}"); do
            o=$("$here/bin/$k" "$n" 2>&1)
            t=$("$work/$k-nvcc" "$n" 2>&1)
            grep -q PASS <<<"$o" || echo "FAIL $k $n: $o"
            awk -v k="$k" -v n="$n" -v o="$(ms_of "$o")" -v t="$(ms_of "$t")" \
                'BEGIN { printf "%-13s %10s oxide %8s nvcc %8s ratio %s\n", k, n, o, t, (t > 0 ? sprintf("%.3f", o / t) : "n/a") }'
        done
    done
done
