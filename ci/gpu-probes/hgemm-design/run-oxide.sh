set -u
S=.gpu-suite; W=$(mktemp -d)
nvcc -O3 -arch=sm_90 -o $W/hgemm-nvcc $S/twins/hgemm.cu -lcublas || echo "WARN twin build"
nvcc -O3 -arch=sm_90 -o $W/fa-nvcc $S/twins/flash_attn.cu || echo "WARN fa twin"
HGEMM_VARIANTS=1 timeout 200 $S/bin/hgemm 268435456
HGEMM_VARIANTS=1 timeout 200 $W/hgemm-nvcc 268435456
timeout 100 $S/bin/hgemm 16777216; timeout 100 $W/hgemm-nvcc 16777216
timeout 200 $S/bin/flash_attn 268435456
for c in mma_ldmatrix_tiles mma_pipelined mma_bf16_fragments; do $S/conformance/release/conformance --gpu --case $c 2>&1 | tail -1; done
compute-sanitizer --tool memcheck --error-exitcode 9 $S/bin/hgemm 65536 2>&1 | tail -2
compute-sanitizer --tool racecheck --error-exitcode 9 $S/bin/hgemm 65536 2>&1 | tail -2
