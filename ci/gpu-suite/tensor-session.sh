#!/usr/bin/env bash
# One device call for a session that changed the tensor-core code, ON the GPU machine over a
# built .gpu-suite (ci/build-gpu-suite.sh; carry .gpu-suite), writing its reports under $1:
#   bash .gpu-suite/tensor-session.sh $OUT        (SUITE=1: the whole suite after, SANITIZE=0;
#                                                  QUICK=1: memcheck only, the default hgemm
#                                                  variant only, no torch: about 150 s)
# 1. compute-sanitizer memcheck and racecheck on hgemm and flash_attn at a small size, each
#    capped at SAN_S seconds (default 25);
# 2. the corpus's tensor cases on the GPU against the emulator (release build);
# 3. hgemm at 4096³, 4096 x 4096 x 14336 and 8192³ (every variant there), its twin and cuBLAS;
# 4. flash_attn at seq 2k, 8k, 16k (2^25, 2^27, 2^28; head dimensions 64 and 128, causal and
#    not), its twin, torch's SDPA.
# Prints the GPU, the sanitizers' verdicts and a summary of the lines that matter.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: tensor-session.sh <report folder>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=${ARCH:-sm_90}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
for b in hgemm flash_attn; do
    tools=(memcheck racecheck)
    [[ ${QUICK:-0} == 1 ]] && tools=(memcheck)
    for tool in "${tools[@]}"; do
        log="$out/sanitize-$tool-$b.txt"
        timeout "${SAN_S:-25}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
            "$here/bin/$b" 131072 > "$log" 2>&1
        echo "$tool $b 131072: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n1)"
    done
done > "$out/sanitize.txt"
{
    date -u
    cat "$out/gpu.txt"
    echo "== corpus tensor cases (GPU vs emulator)"
    for case in mma_bf16_fragments mma_f16_fragments mma_ldmatrix_tiles mma_pipelined \
        round_to_tf32 mma_tf32_fragments mma_fp64_fragments mma_s8_fragments mma_u8_fragments \
        mma_stmatrix_tiles round_to_fp8 widen_fp8 mma_e4m3_fragments mma_e5m2_fragments; do
        "$here/conformance/release/conformance" --gpu --case "$case" 2>&1 | tail -n 1
    done
    for cu in hgemm flash_attn; do
        flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/twins/$cu.cu")
        nvcc -O3 -arch="$arch" -o "$work/$cu-nvcc" "$here/twins/$cu.cu" $flags || echo "WARN: twin $cu did not build"
    done
    echo "== hgemm at 8192^3"
    variants=1
    [[ ${QUICK:-0} == 1 ]] && variants=0
    HGEMM_SHAPES=1 HGEMM_VARIANTS=$variants timeout 90 "$here/bin/hgemm" 268435456
    HGEMM_SHAPES=1 HGEMM_VARIANTS=$variants timeout 90 "$work/hgemm-nvcc" 268435456
    # seq 2k, 8k and 16k (batch·seq 16384; QUICK: 16k only).
    sizes=(33554432 134217728 268435456)
    [[ ${QUICK:-0} == 1 ]] && sizes=(268435456)
    for n in "${sizes[@]}"; do
        echo "== flash_attn at n=$n"
        timeout 60 "$here/bin/flash_attn" "$n"
        timeout 60 "$work/flash_attn-nvcc" "$n"
        [[ ${QUICK:-0} == 1 ]] || timeout 90 python3 "$here/torch_sdpa.py" "$n"
    done
    date -u
} > "$out/tensor.txt" 2>&1
cat "$out/sanitize.txt"
grep -E "^(ok|FAIL) |passed|FAIL|TFLOP/s|WARN|UTC" "$out/tensor.txt" | sed -E 's/ GB\/s.*//'
if [[ ${SUITE:-0} == 1 ]]; then
    SANITIZE=0 timeout "${SUITE_S:-380}" bash "$here/run.sh" > "$out/suite.txt" 2>&1
    echo "suite exit $?"
    tail -n 30 "$out/suite.txt"
fi
