#!/usr/bin/env bash
# scripts/gpu/simt_conformance.sh -- produce the expected dumps of the simt conformance probes
# on an H200 (any sm_90 GPU works; the committed files must come from the H200). Run from the
# repo root on the GPU machine:
#   OUT=/some/dir scripts/gpu/simt_conformance.sh
# Writes under $OUT (default ./out/simt_conformance), 5 files:
#   simt_conformance_warp.bin simt_conformance_block.bin simt_conformance_numeric.bin
#                   the probe dumps -> copy them to tests/simt/expected/
#   simt_conformance_device.txt   date, nvidia-smi -L, driver, nvcc version, build route
#   simt_conformance_log.txt      configure/build/run log
# Build: the top-level CMake project (target simt_conformance_gpu); if configuring it fails on
# this machine (host-test dependencies missing), the probe source is compiled with nvcc directly.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/simt_conformance}"
mkdir -p "$OUT"
LOG="$OUT/simt_conformance_log.txt"
INFO="$OUT/simt_conformance_device.txt"
: >"$LOG"
export PATH="/usr/local/cuda/bin:$PATH"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  nvidia-smi -L 2>&1
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv 2>&1
  nvcc --version 2>&1 | tail -n 2
} >"$INFO"

BIN=""
if cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDSV4_ENABLE_FUZZ=OFF \
     -DDSV4_ENABLE_BENCH=OFF -DDSV4_ENABLE_EXAMPLES=OFF >>"$LOG" 2>&1 &&
   ninja -C build/gpu simt_conformance_gpu >>"$LOG" 2>&1; then
  BIN=build/gpu/tests/simt/simt_conformance_gpu
  echo "build: cmake build/gpu target simt_conformance_gpu" >>"$INFO"
else
  echo "== cmake route failed; compiling the probe with nvcc directly" | tee -a "$LOG"
  mkdir -p build/gpu-simt
  if nvcc -std=c++20 -O2 -arch=sm_90a --expt-relaxed-constexpr -lineinfo -I. \
       tests/simt/conformance_probes.cu -o build/gpu-simt/simt_conformance_gpu >>"$LOG" 2>&1; then
    BIN=build/gpu-simt/simt_conformance_gpu
    echo "build: nvcc direct (build/gpu-simt)" >>"$INFO"
  fi
fi
if [ -z "$BIN" ]; then
  echo "BUILD FAILED (see $LOG)" | tee -a "$INFO"
  exit 1
fi
"$BIN" "$OUT" 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
echo "probe exit code: $rc" | tee -a "$INFO"
ls -l "$OUT" >>"$INFO"
exit "$rc"
