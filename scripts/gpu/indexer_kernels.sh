#!/usr/bin/env bash
# scripts/gpu/indexer_kernels.sh -- GPU check + timing of OUR amax8_varlen, sort_candidate_blocks,
# bf16 small top-k and occupancy probe (owner: indexer kernels). Run from the repo root on a machine
# with an sm_90 GPU, nvcc, cmake, ninja:   OUT=/some/dir scripts/gpu/indexer_kernels.sh
# Writes under $OUT (default ./out/indexer): indexer_gpu.txt (check, compute-sanitizer memcheck /
# racecheck / synccheck / initcheck of the check run, bench numbers, probe answers) and
# indexer_build.log. Build-time variants of the bf16 kernel are checked and timed by
# scripts/gpu/bf16_ab.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/indexer}"
mkdir -p "$OUT"
REP="$OUT/indexer_gpu.txt"; LOG="$OUT/indexer_build.log"; : >"$REP"; : >"$LOG"
export PATH="/usr/local/cuda/bin:$PATH"
say() { echo "== $*" | tee -a "$REP"; }
say "date $(date -u '+%F %T UTC'); $(nvidia-smi -L 2>&1 | head -n 2 | tr '\n' ' ')"
CUDA_FLAGS=(-DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20)
build_variant() {  # build_variant DIR EXTRA_CUDA_FLAGS -> libdsv4_ours_cuda.so in DIR/kernels
  # Top-level project first; bench/standalone when the host-test dependencies are missing here.
  local dir="$1" extra="$2"
  { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CUDA_FLAGS[@]}" \
      -DDSV4_ENABLE_BENCH=OFF -DDSV4_ENABLE_EXAMPLES=OFF -DDSV4_ENABLE_FUZZ=OFF \
      -DCMAKE_CUDA_FLAGS="$extra" >>"$LOG" 2>&1 ||
    { rm -rf "$dir"; cmake -S bench/standalone -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "${CUDA_FLAGS[@]}" -DCMAKE_CUDA_FLAGS="$extra" >>"$LOG" 2>&1; }; } &&
    ninja -C "$dir" dsv4_ours_cuda >>"$LOG" 2>&1
}
run_variant() {  # run_variant NAME DIR
  local name="$1" dir="$2" bin="$2/indexer_kernels_gpu"
  nvcc -std=c++17 -O2 -arch=sm_90a -I include -o "$bin" scripts/gpu/indexer_kernels_gpu.cu \
    -L"$dir/kernels" -ldsv4_ours_cuda -Xlinker -rpath="$PWD/$dir/kernels" >>"$LOG" 2>&1 \
    || { say "$name: compile of the check program failed (see indexer_build.log)"; return; }
  say "$name: check"; "$bin" check 2>&1 | tail -n 20 | tee -a "$REP"
  if [ "$name" = default ] && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck synccheck initcheck; do
      say "compute-sanitizer --tool $tool"
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" check 2>&1 | tail -n 6 | tee -a "$REP"
    done
  fi
  say "$name: bench"; "$bin" bench 2>&1 | tail -n 20 | tee -a "$REP"
}
if build_variant build/gpu-indexer ""; then run_variant default build/gpu-indexer
else say "build failed (tail of indexer_build.log):"; tail -n 30 "$LOG" | tee -a "$REP"; exit 1; fi
say "done"
