#!/usr/bin/env bash
# One device call for a session that changed the tensor-core code, ON the GPU machine over a
# built .gpu-suite (ci/build-gpu-suite.sh; carry .gpu-suite), writing its reports under $1:
#   bash .gpu-suite/tensor-session.sh $OUT
# 1. compute-sanitizer memcheck and racecheck on hgemm and flash_attn at a small size (each
#    capped at SAN_S seconds, default 25);
# 2. the whole suite with SANITIZE=0 (capped at SUITE_S seconds, default 380: it took 354 s on
#    the H200 on 2026-12-03);
# 3. hgemm's variants at 8192³ (HGEMM_VARIANTS=1, capped at 25 s).
# Prints the GPU, the sanitizers' verdicts, the suite's summary and the variants' lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: tensor-session.sh <report folder>}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
for b in hgemm flash_attn; do
    for tool in memcheck racecheck; do
        log="$out/sanitize-$tool-$b.txt"
        timeout "${SAN_S:-25}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
            "$here/bin/$b" 131072 > "$log" 2>&1
        echo "$tool $b 131072: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n1)"
    done
done > "$out/sanitize.txt"
SANITIZE=0 timeout "${SUITE_S:-380}" bash "$here/run.sh" > "$out/suite.txt" 2>&1
echo "suite exit $?" >> "$out/suite.txt"
HGEMM_VARIANTS=1 timeout 25 "$here/bin/hgemm" 268435456 > "$out/variants.txt" 2>&1
echo "variants exit $?" >> "$out/variants.txt"
cat "$out/gpu.txt" "$out/sanitize.txt"
tail -n 40 "$out/suite.txt"
tail -n 6 "$out/variants.txt"
