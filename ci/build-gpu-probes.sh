#!/usr/bin/env bash
# Lays out .gpu-probes/ (git-ignored) for the GPU machine: the PTX probes of the ptxas faults that
# llvm-emit/src/workarounds/ avoids, and their harnesses. Then, with the device tool: carry
# [".gpu-probes"], command `bash .gpu-probes/run.sh`. docs/gpu-results/2026-12-01-ptx-probes.txt
# is its output on the H200 with driver 580 (CUDA 13.0).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu-probes
mkdir -p .gpu-probes
python3 ci/gpu-probes/gen.py .gpu-probes
cp ci/gpu-probes/neg16.cu ci/gpu-probes/wide.cu ci/gpu-probes/run.sh .gpu-probes/
echo "built .gpu-probes; on the GPU machine, carrying .gpu-probes: bash .gpu-probes/run.sh"
