#!/usr/bin/env bash
# scripts/gpu/topk_v2_gpu.sh -- GPU checks specific to OUR Top-K v2 (kernels/topk_v2), run from
# the repo root on an H200 (any sm_90) with nvcc; no cmake, torch or network needed:
#   OUT=/some/dir scripts/gpu/topk_v2_gpu.sh [--quick]
# Writes under $OUT (default ./out/topk_v2):
#   topk_v2_ptxas.txt   nvcc -Xptxas -v of every Top-K v2 kernel (registers, spills, smem)
#   topk_v2_smoke.txt   tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu: every forced path and the
#                       automatic dispatch at production shapes, single-bin/tie/NaN families,
#                       exact checks, then a timing table of the automatic dispatch
#   topk_v2_memcheck.txt  (SANITIZE=1 only) compute-sanitizer memcheck of the --quick smoke
# Exit status: 1 if the smoke run fails.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/topk_v2}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
ARCH="${ARCH:-sm_90a}"
FLAGS=(-std=c++20 -O3 -arch="$ARCH" -lineinfo --expt-relaxed-constexpr -I. -Iinclude
       -DDSV4_TOPK_BLOCK_THREADS=1024 -DDSV4_BF16_BLOCK_THREADS=512)
SRCS=(kernels/common/validate.cu kernels/common/status_host.cu kernels/common/capabilities.cu
      kernels/topk_v2/topk_v2_launch.cu kernels/topk_v2/topk_v2_entry.cu
      kernels/occupancy_probe/occupancy_probe.cu)
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi -L 2>&1
  nvcc --version | tail -n 2
} | tee "$OUT/topk_v2_smoke.txt"
nvcc "${FLAGS[@]}" -Xptxas -v -c kernels/topk_v2/topk_v2_launch.cu -o "$OUT/.launch.o" \
  >"$OUT/topk_v2_ptxas.txt" 2>&1 || echo "ptxas report build FAILED" | tee -a "$OUT/topk_v2_smoke.txt"
rm -f "$OUT/.launch.o"
BIN="$OUT/.topk_v2_smoke"
if ! nvcc "${FLAGS[@]}" "${SRCS[@]}" tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu -o "$BIN" >>"$OUT/topk_v2_smoke.txt" 2>&1; then
  echo "smoke build FAILED" | tee -a "$OUT/topk_v2_smoke.txt"
  exit 1
fi
"$BIN" ${1:-} >>"$OUT/topk_v2_smoke.txt" 2>&1
rc=$?
tail -n 45 "$OUT/topk_v2_smoke.txt"
if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck "$BIN" --quick >"$OUT/topk_v2_memcheck.txt" 2>&1
  tail -n 5 "$OUT/topk_v2_memcheck.txt"
fi
rm -f "$BIN"
# The same timings for two compile-time variants: main kernel at 1 CTA/SM (64 registers) and
# streaming with one vector per thread in flight (DSV4_TOPK_STREAM_BATCH=1, fewer spills).
for variant in DSV4_TOPK_MAIN_MIN_BLOCKS=1 DSV4_TOPK_STREAM_BATCH=1; do
  [ -n "${1:-}" ] && break
  if nvcc "${FLAGS[@]}" -D$variant "${SRCS[@]}" tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu \
       -o "$BIN.v" >/dev/null 2>&1; then
    echo "== variant $variant:" >>"$OUT/topk_v2_smoke.txt"
    "$BIN.v" --timing >>"$OUT/topk_v2_smoke.txt" 2>&1 || rc=1
    rm -f "$BIN.v"
  fi
done
exit $rc
