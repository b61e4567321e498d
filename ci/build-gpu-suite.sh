#!/usr/bin/env bash
# Builds every kernel crate with `cargo oxide build` and lays out .gpu-suite/ (git-ignored) for the
# GPU machine, which has a driver and nvcc but no Rust:
#   .gpu-suite/run.sh, bin/<kernel>, ptx/<kernel>.ptx, twins/*.cu (+ common.cuh)
# Then, with the device tool: carry [".gpu-suite"], command `bash .gpu-suite/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "ci/build-gpu-suite.sh: $*" >&2; exit 1; }

suite=.gpu-suite
rm -rf "$suite"
mkdir -p "$suite/bin" "$suite/ptx" "$suite/twins"

for dir in kernels/*/; do
    dir=${dir%/}
    # Kernel crates are programs; kernels/bench is their shared library.
    [[ -f "$dir/Cargo.toml" && -f "$dir/src/main.rs" ]] || continue
    out=$(cargo oxide build "$dir") || die "cargo oxide build $dir failed (errors above)"
    ptx=$(sed -n 's/^ptx: //p' <<<"$out")
    bin=$(sed -n 's/^binary: //p' <<<"$out")
    [[ -f "$ptx" && -x "$bin" ]] || die "cargo oxide build $dir printed no PTX or binary: $out"
    name=$(basename "$bin")
    cp "$bin" "$suite/bin/$name"
    cp "$ptx" "$suite/ptx/$name.ptx"
    echo "$dir: $suite/bin/$name, $suite/ptx/$name.ptx"
done

# The conformance corpus, release and debug (overflow checks on), with PTX embedded.
for profile in release debug; do
    flag=""
    [[ $profile == debug ]] && flag="--debug"
    out=$(cargo oxide build $flag tests/conformance) || die "cargo oxide build $flag tests/conformance failed"
    bin=$(sed -n 's/^binary: //p' <<<"$out")
    mkdir -p "$suite/conformance/$profile"
    cp "$bin" "$suite/conformance/$profile/conformance"
    echo "tests/conformance ($profile): $suite/conformance/$profile/conformance"
done

# device-std's GPU tests (hand-written PTX for the launcher, errors, CUDA graphs, traps), as test
# binaries.
mkdir -p "$suite/tests"
for t in gpu gpu_graph gpu_trap; do
    exe=$(cargo test -p oxide --test "$t" --no-run 2>&1 | sed -n "s/.*Executable tests\/$t.rs (\(.*\))/\1/p" | tail -n1)
    [[ -x "$exe" ]] || die "could not build device-std's $t test"
    cp "$exe" "$suite/tests/device-std-$t"
done

# cargo-oxide itself, for `check-port` over the worked ports (the GPU machine has nvcc).
cargo build --quiet -p cargo-oxide || die "cargo-oxide does not build"
cp target/debug/cargo-oxide "$suite/cargo-oxide"
cp ci/gpu-suite/ports.txt "$suite/ports.txt"

# The Python boundary's wheel (kernels/pyops, abi3) and its GPU tests (python_boundary.py, which
# unpacks the wheel beside torch, then runs python_torch_ops.py: docs/python.md).
out=$(cargo oxide python kernels/pyops) || die "cargo oxide python kernels/pyops failed"
wheel=$(sed -n 's/^wheel: //p' <<<"$out")
[[ -f "$wheel" ]] || die "cargo oxide python printed no wheel: $out"
mkdir -p "$suite/wheels" && cp "$wheel" "$suite/wheels/"
cp ci/gpu-suite/python_boundary.py ci/gpu-suite/python_torch_ops.py "$suite/"

# The Llama layer's kernels (kernels/llama, with flash_attn's flash_attn_128) as a wheel, and
# the script that runs the layer against PyTorch (llama_layer.py; kernels/llama/README.md).
out=$(cargo oxide python kernels/llama) || die "cargo oxide python kernels/llama failed"
wheel=$(sed -n 's/^wheel: //p' <<<"$out")
[[ -f "$wheel" ]] || die "cargo oxide python printed no wheel: $out"
cp "$wheel" "$suite/wheels/"
cp ci/gpu-suite/llama_layer.py ci/gpu-suite/llama_decode.py "$suite/"

# Debug info is not needed there, and the device tool carries at most 64 MiB.
find "$suite" -type f -perm -u+x ! -name '*.sh' -exec strip --strip-debug {} +

cp ci/gpu-suite/run.sh "$suite/run.sh"
cp ci/gpu-suite/kernel-times.sh "$suite/kernel-times.sh"
cp ci/gpu-suite/some-kernels.sh "$suite/some-kernels.sh"
cp ci/gpu-suite/twins/*.cu ci/gpu-suite/twins/*.cuh "$suite/twins/"
cp ci/gpu-suite/torch_sdpa.py ci/gpu-suite/sass_mix.py ci/gpu-suite/tensor-first.sh ci/gpu-suite/tensor-session.sh "$suite/"
mkdir -p "$suite/probes" && cp ci/gpu-probes/local-address/probe.cu "$suite/probes/local-address.cu"
# The experiments (compare-builds.sh, call-cost.py, ...: scripts, some kilobytes), so that a call
# can run them without a copy by hand.
cp -r ci/gpu-suite/experiments "$suite/"
echo "built $suite ($(du -sh "$suite" | cut -f1)); on the GPU machine, carrying $suite: bash $suite/run.sh"
