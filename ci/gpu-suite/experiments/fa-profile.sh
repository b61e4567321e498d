#!/usr/bin/env bash
# flash_attn against torch's FlashAttention-2 kernel under ncu, on the GPU machine (carrying
# .gpu-suite): seq 16k, head dimensions 64 and 128, not causal, one launch each of torch's
# flash_fwd kernel, the nvcc twin's and oxide's. Per kernel: time, registers, warps active,
# instructions executed, issue-active and tensor-pipe-active fractions, and the stall reasons per
# issued instruction, as one table (the question it answers: where FA2's time goes that ours
# does not). Then timings at seq 16k, 8k and 2k of bin/flash_attn and bin/flash_attn_old (a
# build of another commit, copied there by hand, if present), the twin and twins/flash_attn_old.cu
# (if present), and torch.
# Usage: bash .gpu-suite/experiments/fa-profile.sh [OUT]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -o "$work/twin" "$here/twins/flash_attn.cu"
[[ -f $here/twins/flash_attn_old.cu ]] && nvcc -O3 -arch=sm_90 -I"$here/twins" -o "$work/twin_old" "$here/twins/flash_attn_old.cu"
metrics="gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem"
stalls="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
profile() { # name, kernel filter, name base (function or mangled), skip, command...
    local name=$1 filter=$2 base=$3 skip=$4
    shift 4
    for set in "$metrics" "$stalls"; do
        timeout 240 ncu --metrics "$set" --csv --print-units base -k "$filter" \
            --kernel-name-base "$base" --launch-skip "$skip" \
            --launch-count 1 "$@" 2>/dev/null | sed "s/^/$name,/" >> "$out/ncu.csv"
    done
}
for d in 64 128; do
    profile "torch-fa2-d$d" "regex:flash_fwd" function 1 python3 "$here/experiments/fa2-once.py" "$d"
done
profile "twin-d64" "regex:ILi64E" mangled 0 "$work/twin" 268435456 3
profile "twin-d128" "regex:ILi128E" mangled 0 "$work/twin" 268435456 3
profile "oxide-d64" "regex:^flash_attn$" function 0 "$here/bin/flash_attn" 268435456
profile "oxide-d128" "regex:flash_attn_128" function 0 "$here/bin/flash_attn" 268435456
python3 - "$out/ncu.csv" <<'PY'
import collections, csv, sys
vals = collections.defaultdict(dict)
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 10 or r[1] == "ID":
        continue
    try:
        vals[r[0]][r[-3]] = float(r[-1].replace(",", ""))
    except ValueError:
        pass
names = list(vals)
short = {
    "gpu__time_duration.sum": "time us", "launch__registers_per_thread": "regs",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "warps %",
    "smsp__inst_executed.sum": "inst M", "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue %",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor %",
    "launch__shared_mem_per_block_dynamic": "smem dyn", "launch__shared_mem_per_block_static": "smem st",
    "launch__occupancy_limit_registers": "blk lim regs", "launch__occupancy_limit_shared_mem": "blk lim smem",
}
scale = {"gpu__time_duration.sum": 1e-3, "smsp__inst_executed.sum": 1e-6}
keys = list(short) + sorted({k for v in vals.values() for k in v if "stalled" in k})
print(f"{'metric':28}" + "".join(f"{n:>14}" for n in names))
for k in keys:
    row = [vals[n].get(k) for n in names]
    if all(x is None for x in row) or (k not in short and max(x or 0 for x in row) < 0.05):
        continue
    label = short.get(k, k.replace("smsp__average_warps_issue_stalled_", "stall ").replace("_per_issue_active.ratio", ""))
    print(f"{label[:28]:28}" + "".join(f"{(x or 0) * scale.get(k, 1):14.2f}" for x in row))
PY
for n in 268435456 134217728 33554432; do
    for b in "$here/bin/flash_attn" "$here/bin/flash_attn_old" "$work/twin" "$work/twin_old"; do
        [[ -x $b ]] || continue
        echo "# $(basename "$b")"
        timeout 60 "$b" "$n" | grep -E "TFLOP/s|FAIL"
    done
    timeout 120 python3 "$here/torch_sdpa.py" "$n" | grep flash_attn-torch-flash
done
