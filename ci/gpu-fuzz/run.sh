#!/usr/bin/env bash
# The fuzz batches on a machine with an NVIDIA GPU and a driver (no Rust needed); laid out by
# ci/build-gpu-fuzz.sh beside this script as bin/fuzz-s<seed>-<first>-<last>.gz, each a batch
# binary with its PTX embedded. Each runs every program's kernel on the GPU and compares every
# thread's checksum with the program's body run as plain Rust (a failed launch continues in a
# fresh process). Prints each FAIL line, then one line `N passed, N failed`; exits 1 on a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== oxide fuzz batches on the GPU"
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "nvidia-smi failed"
passed=0
failed=0
batches=0
for gz in "$here"/bin/*.gz; do
    [[ -e "$gz" ]] || continue
    name=$(basename "$gz" .gz)
    gunzip -c "$gz" >"$work/$name" && chmod +x "$work/$name"
    out=$(timeout 600 "$work/$name" --gpu 2>&1)
    rc=$?
    grep -v '^ok ' <<<"$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed$' | sed "s/^/  [$name] /"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n1)
    if [[ -z "$summary" ]]; then
        echo "  [$name] no summary line (exit $rc): counted as 1 failure"
        failed=$((failed + 1))
    else
        passed=$((passed + ${summary%% passed*}))
        f=${summary#*, }
        failed=$((failed + ${f%% failed}))
        echo "  [$name] $summary"
    fi
    batches=$((batches + 1))
    rm -f "$work/$name"
done
if ((batches == 0)); then
    echo "no batches in $here/bin: run ci/build-gpu-fuzz.sh first"
    failed=1
fi
echo "$passed passed, $failed failed"
((failed == 0))
