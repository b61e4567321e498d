#!/usr/bin/env bash
# On the GPU machine, carrying .gpu-probes (ci/build-gpu-probes.sh): builds the harnesses with
# nvcc and runs every probe at JIT -O0 and -O3. A line "BAD" is a fault of the driver's ptxas.
# narrow: hand-written forms (n_<source>_<use>, gen.py), then the backend's PTX of
# tests/ui/codegen/pass_cttz_probe.rs without (tag nofix) and with (tag fix) the 16-bit max/min
# rewrite. With $OUT set, the output is also written to $OUT/gpu-probes.txt.
set -u
cd "$(dirname "$0")"
{
nvcc -O2 -o neg16 neg16.cu -lcuda && nvcc -O2 -o wide wide.cu -lcuda && nvcc -O2 -o narrow narrow.cu -lcuda || exit 1
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
./neg16
./wide wide.ptx wide_names.txt
./wide abs.ptx abs_names.txt
./narrow narrow.ptx narrow_names.txt
./narrow cttz_rust_nofix.ptx cttz_names.txt nofix
./narrow cttz_rust_fix.ptx cttz_names.txt fix
} 2>&1 | tee ${OUT:+"$OUT/gpu-probes.txt"}
