#!/usr/bin/env bash
# Cuts of fuzz programs on a machine with an NVIDIA GPU and a driver (no Rust needed); laid out by
# ci/build-gpu-cut.sh beside this script as bin/cut-s<seed>-p<index>.gz (a batch binary with its
# PTX embedded, one per program) and bin/cut-s<seed>-p<index>.txt (its listing: what each kernel
# computes). Each batch runs every kernel on the GPU against the same body run as plain Rust and
# prints `ok NAME` / `FAIL NAME: why` per kernel: k<i> (the program), k<i>_c<k> (the body cut
# after top-level statement k), k<i>_h<n>_c<k> (the program with helper h<n> cut after its
# statement k), k<i>_s<k>_e<j> (expression j of statement k, after statement k-1). docs/fuzzing.md,
# "Cuts of a program".
# Prints every ok/FAIL line, then per program the first failing cut of the body with its
# statement, that statement's failing sub-cuts with their expressions, and each helper's first
# failing cut; then `N passed, N failed`. With $OUT set (the device tool), the same goes to
# $OUT/gpu-cut.txt and each batch's raw output to $OUT/<batch>.out. OXIDE_CUT_MODE=--cpu runs the
# batches on the CPU emulator instead (a check of the layout where there is no GPU).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

main() {
    echo "== oxide fuzz cuts (${OXIDE_CUT_MODE:---gpu})"
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "nvidia-smi failed"
    [[ -f "$here/BUILT" ]] && sed 's/^/built: /' "$here/BUILT"

    shopt -s nullglob
    batches=("$here"/bin/*.gz)
    if ((${#batches[@]} == 0)); then
        echo "no batches in $here/bin: run ci/build-gpu-cut.sh first"
        echo "0 passed, 1 failed"
        return 1
    fi

    # All batches side by side: most of a batch's time is the driver JIT-compiling its PTX.
    for gz in "${batches[@]}"; do
        (
            name=$(basename "$gz" .gz)
            gunzip -c "$gz" >"$work/$name" && chmod +x "$work/$name"
            timeout 600 "$work/$name" "${OXIDE_CUT_MODE:---gpu}" >"$work/$name.out" 2>&1
            echo "exit $?" >>"$work/$name.out"
            rm -f "$work/$name"
        ) &
    done
    wait

    # The section of `kernel` in a listing: from its `== kernel: ` header to the next header.
    section() {
        awk -v k="$2" '/^(==|--) / { p = ($1 == "==" && $2 == k ":") } p' "$1"
    }

    passed=0
    failed=0
    for gz in "${batches[@]}"; do
        name=$(basename "$gz" .gz)
        out=$work/$name.out
        listing=$here/bin/$name.txt
        echo
        echo "== $name"
        [[ -n "${OUT:-}" ]] && cp "$out" "$OUT/$name.out"
        grep -v '^exit ' "$out"
        summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n1)
        if [[ -z "$summary" ]]; then
            echo "  [$name] no summary line ($(grep '^exit ' "$out")): counted as 1 failure"
            failed=$((failed + 1))
        else
            p=${summary%% passed*}
            f=${summary#*, }
            passed=$((passed + p))
            failed=$((failed + ${f%% failed}))
        fi
    done

    echo
    echo "== what failed first"
    for gz in "${batches[@]}"; do
        name=$(basename "$gz" .gz)
        out=$work/$name.out
        listing=$here/bin/$name.txt
        # The program's own kernel: k<index> with the index's leading zeros dropped.
        index=$((10#${name##*-p}))
        echo "-- program $index ($name):"
        grep -E "^(ok|FAIL) k$index(:| |$)" "$out" | sed 's/^/  the program: /'
        first=$(grep -oE "^FAIL k${index}_c[0-9]+:" "$out" | head -n1 | sed 's/^FAIL //; s/:$//')
        if [[ -z "$first" ]]; then
            echo "  no cut of the body fails"
        else
            k=${first##*_c}
            echo "  first failing cut of the body: $first; statement $k:"
            if ((k > 0)); then
                prev=$(grep -E "^(ok|FAIL) k${index}_c$((k - 1))(:|$)" "$out" | cut -d' ' -f1)
                echo "  (cut k${index}_c$((k - 1)) before it: ${prev:-not run})"
            fi
            [[ -f "$listing" ]] && section "$listing" "$first" | sed 's/^/    /'
            subs=$(grep -oE "^(ok|FAIL) k${index}_s${k}_e[0-9]+" "$out")
            nsub=$(grep -c . <<<"$subs")
            nfail=$(grep -c '^FAIL' <<<"$subs")
            [[ -z "$subs" ]] && nsub=0
            echo "  its sub-cuts: $nfail of $nsub fail (innermost first):"
            for kernel in $(grep '^FAIL' <<<"$subs" | cut -d' ' -f2); do
                grep -F -- "-- $kernel (" "$listing" | sed 's/^-- /    /'
                grep -E "^FAIL $kernel:" "$out" | sed 's/^[^:]*: /      /'
            done
        fi
        for helper in $(grep -oE "^(ok|FAIL) k${index}_h[0-9]+_c0" "$out" | sed -E 's/.*_(h[0-9]+)_c0$/\1/'); do
            hfirst=$(grep -oE "^FAIL k${index}_${helper}_c[0-9]+:" "$out" | head -n1 | sed 's/^FAIL //; s/:$//')
            hall=$(grep -cE "^(ok|FAIL) k${index}_${helper}_c[0-9]+" "$out")
            hfail=$(grep -cE "^FAIL k${index}_${helper}_c[0-9]+" "$out")
            if [[ -z "$hfirst" ]]; then
                echo "  helper $helper: none of its $hall cuts fails"
            else
                echo "  helper $helper: $hfail of its $hall cuts fail, the first $hfirst:"
                [[ -f "$listing" ]] && section "$listing" "$hfirst" | sed 's/^/    /'
            fi
        done
    done
    echo
    echo "$passed passed, $failed failed"
    ((failed == 0))
}

if [[ -n "${OUT:-}" ]]; then
    mkdir -p "$OUT"
    main 2>&1 | tee "$OUT/gpu-cut.txt"
    exit "${PIPESTATUS[0]}"
fi
main
