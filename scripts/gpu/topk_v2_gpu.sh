#!/usr/bin/env bash
# scripts/gpu/topk_v2_gpu.sh -- GPU checks specific to OUR Top-K v2 (kernels/topk_v2), run from
# the repo root on an H200 (any sm_90) with nvcc; no cmake, torch or network needed:
#   OUT=/some/dir scripts/gpu/topk_v2_gpu.sh [--quick]
# Writes under $OUT (default ./out/topk_v2_gpu):
#   topk_v2_ptxas.txt   nvcc -Xptxas -v of every Top-K v2 kernel (registers, spills, smem)
#   topk_v2_smoke.txt   tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu: every forced path and the
#                       automatic dispatch at production shapes, single-bin/tie/NaN families,
#                       exact checks, then a timing table of the automatic dispatch
#   topk_v2_memcheck.txt  (SANITIZE=1 only) compute-sanitizer memcheck of the --quick smoke
# Exit status: 1 if the smoke run fails. Timing of build-time variants: scripts/gpu/topk_v2_ab.sh.
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT; ARCH overrides sm_90a
FLAGS=("${AB_FLAGS[@]}")
SRCS=("${AB_TOPK_SRCS[@]}")
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi -L 2>&1
  nvcc --version | tail -n 2
} | tee "$OUT/topk_v2_smoke.txt"
nvcc "${FLAGS[@]}" -Xptxas -v -c kernels/topk_v2/topk_v2_launch.cu -o "$OUT/.launch.o" \
  >"$OUT/topk_v2_ptxas.txt" 2>&1 || echo "ptxas report build FAILED" | tee -a "$OUT/topk_v2_smoke.txt"
rm -f "$OUT/.launch.o"
BIN="$OUT/.topk_v2_smoke"
if ! nvcc "${FLAGS[@]}" "${SRCS[@]}" "$AB_TOPK_SMOKE" -o "$BIN" >>"$OUT/topk_v2_smoke.txt" 2>&1; then
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
exit $rc
