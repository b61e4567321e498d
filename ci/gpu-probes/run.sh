#!/usr/bin/env bash
# On the GPU machine, carrying .gpu-probes (ci/build-gpu-probes.sh): builds the harnesses with
# nvcc and runs every probe at JIT -O0 and -O3. A line "BAD" is a fault of the driver's ptxas.
set -u
cd "$(dirname "$0")"
nvcc -O2 -o neg16 neg16.cu -lcuda && nvcc -O2 -o wide wide.cu -lcuda || exit 1
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
./neg16
./wide wide.ptx wide_names.txt
./wide abs.ptx abs_names.txt
