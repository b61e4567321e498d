#!/usr/bin/env bash
# One call for the Python side and the tensor-core builds, ON the GPU machine (carrying
# .gpu-suite): the Python boundary (python_boundary.py, which unpacks the pyops wheel, then
# python_torch_ops.py), where a Python call spends its host time (call-cost.py), the Llama
# layer's prefill and decode against PyTorch (llama_layer.py), then flash_attn and hgemm of this
# build against .gpu-suite/old/ (ci/build-variants.sh: branches or ci/variants/*.patch), the nvcc
# twins and torch at seq 16k and 2k (compare-builds.sh). Each part's whole output goes to $OUT
# (python.txt, call-cost.txt, llama.txt, compare.txt); the summary lines to stdout, in the
# order of their value should the call be cut short.
# Usage: bash .gpu-suite/experiments/python-llama-builds.sh
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d)}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
t0=$SECONDS
python3 "$here/python_boundary.py" > "$out/python.txt" 2>&1; echo "python_boundary rc=$? $((SECONDS - t0)) s"
python3 "$here/experiments/call-cost.py" > "$out/call-cost.txt" 2>&1; echo "call-cost rc=$? $((SECONDS - t0)) s"
grep -E "passed|FAIL" "$out/python.txt"; cat "$out/call-cost.txt"
python3 "$here/llama_layer.py" > "$out/llama.txt" 2>&1; echo "llama_layer rc=$? $((SECONDS - t0)) s"
grep -E "layer|step|floor|projection|check|passed|MISMATCH|NOT RUN" "$out/llama.txt" | grep -v "^   ok" | tail -70
SIZES=${SIZES:-268435456 33554432} bash "$here/experiments/compare-builds.sh" > "$out/compare.txt" 2>&1
echo "compare-builds rc=$? $((SECONDS - t0)) s"
cat "$out/compare.txt"
