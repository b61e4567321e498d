#!/usr/bin/env bash
# Installs what building and testing oxide needs, and does nothing that is already done:
#   - the toolchain pinned in rust-toolchain.toml, with rustc-dev, rust-src, llvm-tools, rustfmt
#     and clippy (RUSTUP_AUTO_INSTALL=0 machines install nothing implicitly);
#   - ptxas (the pip wheel nvidia-cuda-nvcc) when none is found.
# Prints the toolchain and the ptxas it found.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "ci/setup.sh: $*" >&2; exit 1; }

components=(rustc-dev rust-src llvm-tools rustfmt clippy)
toolchain=$(sed -n 's/^[[:space:]]*channel[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' rust-toolchain.toml)
[[ -n "$toolchain" ]] || die "no channel in rust-toolchain.toml"
command -v rustup >/dev/null || die "rustup is not installed: see https://rustup.rs, then run this again"

# rustup names installed components with the host triple (`rustc-dev-x86_64-...`); rust-src and
# llvm-tools-preview need no triple. Ask offline first; install only when something is missing.
installed=$(rustup component list --installed --toolchain "$toolchain" 2>/dev/null || true)
missing=()
for c in "${components[@]}"; do
    grep -Eq "^${c}(-preview)?(-[a-z0-9_]+-[a-z0-9_]+-[a-z0-9_]+(-[a-z0-9_]+)?)?$" <<<"$installed" || missing+=("$c")
done
if ((${#missing[@]})); then
    echo "ci/setup.sh: installing $toolchain (missing: ${missing[*]})"
    rustup toolchain install "$toolchain" --profile minimal \
        -c "$(IFS=,; echo "${components[*]}")" ||
        die "could not install $toolchain; check the network or install it by hand"
fi
echo "toolchain: $(rustup run "$toolchain" rustc --version)"

# The same lookup as cuda-tools/src/ptxas.rs (oxide_cuda_tools::ptxas::find, which cargo-oxide and
# the tests use): $OXIDE_PTXAS, PATH, then the pip wheel. A change to one goes in both.
find_ptxas() {
    if [[ -n "${OXIDE_PTXAS:-}" ]]; then
        [[ -x "$OXIDE_PTXAS" ]] && echo "$OXIDE_PTXAS"
        return
    fi
    if command -v ptxas >/dev/null; then
        command -v ptxas
        return
    fi
    local nvidia
    nvidia=$(python3 -c 'import nvidia, os; print(nvidia.__path__[0])' 2>/dev/null) || return 0
    [[ -x "$nvidia/cu13/bin/ptxas" ]] && echo "$nvidia/cu13/bin/ptxas"
    return 0
}

ptxas=$(find_ptxas)
if [[ -z "$ptxas" ]]; then
    [[ -z "${OXIDE_PTXAS:-}" ]] || die "OXIDE_PTXAS=$OXIDE_PTXAS is not an executable file"
    command -v python3 >/dev/null || die "ptxas not found and no python3 to pip-install it"
    echo "ci/setup.sh: installing ptxas (pip wheel nvidia-cuda-nvcc 13.0.88)"
    wheels=(nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88)
    python3 -m pip install --quiet "${wheels[@]}" ||
        python3 -m pip install --quiet --break-system-packages "${wheels[@]}" ||
        die "pip could not install ${wheels[*]}"
    ptxas=$(find_ptxas)
    [[ -n "$ptxas" ]] || die "pip installed nvidia-cuda-nvcc but no ptxas was found after it"
fi
echo "ptxas: $ptxas ($("$ptxas" --version | grep -m1 release || true))"
