#!/usr/bin/env bash
# The first GPU run of the tensor-core work (issue 21), in one device call of under ten minutes,
# ON the GPU machine over a built .gpu-suite (ci/build-gpu-suite.sh; carry .gpu-suite):
#   bash .gpu-suite/tensor-first.sh > $OUT/tensor.txt 2>&1; tail -40 $OUT/tensor.txt
# 1. the probe that a thread's local variable has one generic address in every thread (the
#    uniformity analysis relies on it: ci/gpu-probes/local-address);
# 2. the corpus's tensor cases on the GPU against the emulator (release build);
# 3. hgemm at 8192³, every variant (HGEMM_VARIANTS=1), its twin's variants and cuBLAS;
# 4. flash_attn at 2^28 (head dims 64 and 128, causal and not), its twin, torch's SDPA;
# 5. compute-sanitizer memcheck and racecheck on hgemm and flash_attn at small sizes.
# Ends with a short table of the lines that matter.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=${ARCH:-sm_90}
{
echo "== tensor-core first run"
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

echo "== 1. local-address probe"
nvcc -O3 -arch="$arch" -o "$work/probe" "$here/probes/local-address.cu" && "$work/probe"

echo "== 2. corpus tensor cases (GPU vs emulator)"
corpus="$here/conformance/release/conformance"
for case in round_to_16_bit_floats widen_f16 bf16_arithmetic mma_bf16_fragments mma_f16_fragments \
    mma_ldmatrix_tiles mma_pipelined; do
    "$corpus" --gpu --case "$case" 2>&1 | tail -n 2
done

echo "== 3. hgemm variants at 8192^3"
for cu in hgemm flash_attn; do
    flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/$cu.cu")
    nvcc -O3 -arch="$arch" -o "$work/$cu-nvcc" "$here/twins/$cu.cu" $flags || echo "WARN: twin $cu did not build"
done
HGEMM_VARIANTS=1 timeout 240 "$here/bin/hgemm" 268435456
HGEMM_VARIANTS=1 timeout 240 "$work/hgemm-nvcc" 268435456

echo "== 4. flash_attn at 2^28"
timeout 200 "$here/bin/flash_attn" 268435456
timeout 200 "$work/flash_attn-nvcc" 268435456
python3 -c "import torch" 2>/dev/null && timeout 200 python3 "$here/torch_sdpa.py" 268435456

echo "== 5. compute-sanitizer (small sizes)"
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/bin/hgemm" 65536 2>&1 | tail -n 3
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/bin/flash_attn" 262144 2>&1 | tail -n 3
    done
fi

} 2>&1 | tee "$work/log"

echo "== summary"
grep -E "distinct generic|^(ok|FAIL) |passed, .* failed|TFLOP/s|ERROR SUMMARY|unavailable|WARN" "$work/log" |
    sed -E 's/ GB\/s.*//'
