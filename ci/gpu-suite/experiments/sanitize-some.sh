#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over some of the suite's
# targets, as run.sh's SANITIZE=only does over all of them: for a session whose changes reach
# only these (name them; default flash_attn, hgemm and the release corpus). Each run at most
# SAN_S seconds (default 120). Prints one verdict a tool and target, and the sanitizer's own
# lines for a failure.
# Usage: bash .gpu-suite/experiments/sanitize-some.sh [kernel|conformance ...]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
names=("$@")
((${#names[@]})) || names=(flash_attn hgemm conformance)
for tool in memcheck racecheck synccheck initcheck; do
    for name in "${names[@]}"; do
        if [[ $name == conformance ]]; then
            cmd=("$here/conformance/release/conformance" --gpu --no-traps)
        else
            cmd=("$here/bin/$name" "${SANITIZE_N:-131072}")
        fi
        start=$SECONDS
        out=$(timeout "${SAN_S:-120}" compute-sanitizer --tool "$tool" --error-exitcode 99 "${cmd[@]}" 2>&1)
        rc=$?
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' <<<"$out" | tail -n1)
        echo "$tool $name: exit $rc, $((SECONDS - start)) s | $summary"
        if ((rc != 0)); then
            grep -E '^=========' <<<"$out" | head -n 30 | sed "s/^/  [$tool $name] /"
            grep -vE '^=========' <<<"$out" | tail -n 10 | sed "s/^/  [$tool $name, program] /"
        fi
    done
done
