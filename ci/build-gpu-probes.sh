#!/usr/bin/env bash
# Lays out .gpu-probes/ (git-ignored) for the GPU machine: the PTX probes of the ptxas faults that
# llvm-emit/src/workarounds/ avoids, and their harnesses. Then, with the device tool: carry
# [".gpu-probes"], command `bash .gpu-probes/run.sh`. docs/gpu-results/2026-12-01-ptx-probes.txt
# is its output on the H200 with driver 580 (CUDA 13.0), before narrow.ptx and the cttz probes;
# 2026-12-01-ptx-probes-narrow-before.txt and -narrow.txt are with them, before and after the
# 16-bit max/min rewrite.
# The backend's PTX of tests/ui/codegen/pass_cttz_probe.rs is kept in
# ci/gpu-probes/cttz_rust_nofix.ptx (before the 16-bit max/min rewrite of
# llvm-emit/src/workarounds/ptx_rewrites.rs) and cttz_rust_fix.ptx (with it;
# `cargo test -p oxide-tests --test ui -- pass_cttz_probe` writes it to
# target/oxide/ui/pass_cttz_probe.ptx).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu-probes
mkdir -p .gpu-probes
python3 ci/gpu-probes/gen.py .gpu-probes
cp ci/gpu-probes/neg16.cu ci/gpu-probes/wide.cu ci/gpu-probes/narrow.cu ci/gpu-probes/run.sh \
    ci/gpu-probes/cttz_rust_nofix.ptx ci/gpu-probes/cttz_rust_fix.ptx .gpu-probes/
# The backend's kernels, "name r" each (narrow.cu has their host side by name).
sed -n 's/^\.visible \.entry \(r_[A-Za-z0-9_]*\)(.*/\1 r/p' ci/gpu-probes/cttz_rust_nofix.ptx \
    >.gpu-probes/cttz_names.txt
cmp -s .gpu-probes/cttz_names.txt \
    <(sed -n 's/^\.visible \.entry \(r_[A-Za-z0-9_]*\)(.*/\1 r/p' ci/gpu-probes/cttz_rust_fix.ptx)
echo "built .gpu-probes ($(du -sh .gpu-probes | cut -f1)); on the GPU machine, carrying .gpu-probes: bash .gpu-probes/run.sh"
