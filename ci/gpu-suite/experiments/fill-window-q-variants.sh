#!/usr/bin/env bash
# The builds of 2026-12-07 against each other (docs/gpu-results/2026-12-07-variants-a219db0-h100.txt):
# flash_attn (old = a219db0, w = shared_window, f = strided fills, bin = w+f, wq = w + async Q,
# q = w+f + async Q), both twins, torch; hgemm old/w/f/w+f. The variants are built by hand into
# .gpu-suite/old and .gpu-suite/var (with var/flash_attn_q.cu, the twin with async Q).
set -uo pipefail
G=.gpu-suite; work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -o $work/twin_old $G/twins/flash_attn.cu &
nvcc -O3 -arch=sm_90 -I $G/twins -o $work/twin_q $G/var/flash_attn_q.cu &
wait
short() { sed -E 's/.*\(b ([0-9]+) h ([0-9/]+) s ([0-9]+) d ([0-9]+) causal ([01]).* ([0-9.]+) TFLOP\/s.*/s\3 d\4 c\5 \6/'; }
for n in 268435456 33554432; do
  for b in $G/old/flash_attn_old $G/var/flash_attn_w $G/var/flash_attn_f $G/bin/flash_attn $G/var/flash_attn_wq $G/var/flash_attn_q $work/twin_old $work/twin_q; do
    timeout 60 $b $n | grep -E "TFLOP/s|FAIL" | short | sed "s|^|$(basename $b) |"
  done
  timeout 120 python3 $G/torch_sdpa.py $n | grep flash_attn-torch-flash | sed -E 's/flash_attn-torch-([a-z]+) n=[0-9]+ d ([0-9]+) causal ([01]) \(b [0-9]+ h [0-9/]+ s ([0-9]+)\) ([0-9.]+) TFLOP.*/torch-\1 s\4 d\2 c\3 \5/'
done
for r in 1 2; do for b in $G/old/hgemm_old $G/var/hgemm_w $G/var/hgemm_f $G/bin/hgemm; do
  HGEMM_VARIANTS=0 timeout 90 $b 268435456 | grep -E "TFLOP|FAIL" | sed -E 's/.*(hgemm[-a-z0-9]*) n=.* ([0-9.]+) TFLOP.*/\1 \2/' | sed "s|^|$(basename $b) |"
done; done
rm -rf $work
