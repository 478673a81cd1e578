#!/usr/bin/env bash
# scripts/install_deps.sh -- install the Debian packages the build needs (idempotent).
# Quiet when nothing is missing; runs `apt-get update` only when something must be installed;
# uses sudo only when not root; fails with a clear message when a package cannot be installed.
# Also checks that the CUDA toolkit headers exist (/usr/local/cuda/include; nvcc is optional).
set -euo pipefail

PACKAGES=(cmake ninja-build g++ clang libclang-rt-14-dev llvm libeigen3-dev librapidcheck-dev
          googletest libgtest-dev libboost-context-dev)  # llvm: llvm-symbolizer (race reports)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install_deps: installing: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "install_deps: ERROR: not root and sudo is not available; install as root: ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get update -qq; then
    echo "install_deps: ERROR: apt-get update failed (network or sources?)" >&2
    exit 1
  fi
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    echo "install_deps: ERROR: apt-get could not install: ${missing[*]}" >&2
    exit 1
  fi
  for p in "${missing[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
      echo "install_deps: ERROR: package $p is still not installed" >&2
      exit 1
    fi
  done
  echo "install_deps: done"
fi

CUDA_ROOT=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -d "$CUDA_ROOT/include" || ! -f "$CUDA_ROOT/include/cuda_runtime_api.h" ]]; then
  echo "install_deps: ERROR: CUDA toolkit headers not found in $CUDA_ROOT/include (required: the host" \
       "build uses cuda_fp16.h / cuda_bf16.h / cuda_runtime_api.h). Install the CUDA toolkit there or set CUDA_HOME." >&2
  exit 1
fi
if [[ ! -x "$CUDA_ROOT/bin/nvcc" ]] && ! command -v nvcc >/dev/null 2>&1; then
  echo "install_deps: note: nvcc not found: CUDA kernels and the cuda backend will be OFF (headers are enough for the CPU build)"
fi
