#!/usr/bin/env bash
# The fuzz batches on a machine with an NVIDIA GPU and a driver (no Rust needed); laid out by
# ci/build-gpu-fuzz.sh beside this script as bin/fuzz-s<seed>-<first>-<last>.gz, each a batch
# binary with its PTX embedded. Each runs every program's kernel on the GPU and compares every
# thread's checksum with the program's body run as plain Rust (a failed launch continues in a
# fresh process). Batches run side by side (OXIDE_FUZZ_JOBS, default 12): most of a batch's time
# is the driver JIT-compiling its PTX on the CPU. Prints each FAIL line, one summary per batch in
# order, then one line `N passed, N failed`; exits 1 on a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== oxide fuzz batches on the GPU"
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "nvidia-smi failed"

run_batch() {
    local gz=$1 work=$2 name out rc summary
    name=$(basename "$gz" .gz)
    gunzip -c "$gz" >"$work/$name" && chmod +x "$work/$name"
    out=$(timeout 600 "$work/$name" --gpu 2>&1)
    rc=$?
    rm -f "$work/$name"
    {
        grep -v -e '^ok ' -e '^$' <<<"$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed$' | sed "s/^/  [$name] /"
        summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n1)
        if [[ -z "$summary" ]]; then
            echo "  [$name] no summary line (exit $rc): counted as 1 failure"
            echo "SUMMARY 0 1"
        else
            echo "  [$name] $summary"
            local f=${summary#*, }
            echo "SUMMARY ${summary%% passed*} ${f%% failed}"
        fi
    } >"$work/$name.report"
}
export -f run_batch

shopt -s nullglob
batches=("$here"/bin/*.gz)
if ((${#batches[@]} == 0)); then
    echo "no batches in $here/bin: run ci/build-gpu-fuzz.sh first"
    echo "0 passed, 1 failed"
    exit 1
fi
printf '%s\0' "${batches[@]}" | xargs -0 -P "${OXIDE_FUZZ_JOBS:-12}" -I{} bash -c 'run_batch "$1" "$2"' _ {} "$work"

passed=0
failed=0
for gz in "${batches[@]}"; do
    report="$work/$(basename "$gz" .gz).report"
    if [[ ! -f "$report" ]]; then
        echo "  [$(basename "$gz" .gz)] did not report: counted as 1 failure"
        failed=$((failed + 1))
        continue
    fi
    grep -v '^SUMMARY ' "$report"
    read -r _ p f < <(grep '^SUMMARY ' "$report")
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed"
((failed == 0))
