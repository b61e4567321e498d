#!/usr/bin/env bash
# Per-kernel GPU time, registers, occupancy, instructions and DRAM bytes under ncu, oxide's
# kernels against their nvcc twin's, on the GPU machine: `bash .gpu-suite/kernel-times.sh
# KERNEL [N]` (N defaults to 2^28). The suite's table times a whole program (scan is three
# launches); this says which launch the difference is in (docs/gpu-results/README.md, 57b023f:
# scan's add_carries). ncu fixes clocks and flushes caches, so absolute times differ from the
# suite's; compare the two sides of one run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=${1:?usage: kernel-times.sh KERNEL [N]}
n=${2:-268435456}
work=$(mktemp -d)
nvcc -O3 -arch=sm_90 -o "$work/twin" "$here/twins/$kernel.cu"
metrics=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes.sum
for side in oxide nvcc; do
    if [[ $side == oxide ]]; then cmd=("$here/bin/$kernel" "$n"); else cmd=("$work/twin" "$n" 3); fi
    ncu --metrics "$metrics" --csv --print-units base -c 9 "${cmd[@]}" >"$work/$side.csv" 2>/dev/null || true
    python3 - "$side" "$work/$side.csv" <<'PY'
import collections, csv, sys
side, path = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(open(path)) if len(r) > 10]
if not rows:
    sys.exit(f"{side}: ncu gave no rows")
head = rows[0]
k, m, v = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
seen = collections.defaultdict(list)
for r in rows[1:]:
    seen[(r[k].split("(")[0][:28], r[m])].append(float(r[v].replace(",", "")))
for name in sorted({kk for kk, _ in seen}):
    avg = {mm: sum(x) / len(x) for (kk, mm), x in seen.items() if kk == name}
    print(f"{side:5} {name:28} t={avg.get('gpu__time_duration.sum', 0) / 1e3:9.1f}us "
          f"regs={avg.get('launch__registers_per_thread', 0):4.0f} "
          f"occ={avg.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):5.1f}% "
          f"inst={avg.get('smsp__inst_executed.sum', 0) / 1e6:8.1f}M "
          f"dram={avg.get('dram__bytes.sum', 0) / 1e6:8.1f}MB")
PY
done
