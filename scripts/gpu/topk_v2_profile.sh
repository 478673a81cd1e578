#!/usr/bin/env bash
# scripts/gpu/topk_v2_profile.sh -- Nsight Compute profile of OUR Top-K v2 on one H200: builds the
# smoke binary (tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu, `--one B L K reps [path]`) and profiles one
# warm launch of the transform kernel per configuration (clocks left alone). Writes, per config,
# the section summary (speed of light, warp states, scheduler, occupancy, launch) under $OUT, and
# the per-SASS-instruction source page (CSV: executions, stall samples by reason) of a full-set
# report. ncu flushes the caches before each profiled pass by default (cold L2 and code: the
# kernel runs ~2x longer than in the benchmark); PROF_WARM=1 profiles with the caches left as the
# earlier launches left them (--cache-control none) and samples warp stalls at the finest interval.
#   OUT=/some/dir [PROF_WARM=1] bash scripts/gpu/topk_v2_profile.sh ["B L K" ...]
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT (default out/topk_v2_profile)
FLAGS=("${AB_FLAGS[@]}" ${DSV4_PROFILE_NVCC_FLAGS:-})
SRCS=("${AB_TOPK_SRCS[@]}" "$AB_TOPK_SMOKE")
# PROF_BIN=<smoke binary built elsewhere> (e.g. scripts/gpu/topk_v2_ab.sh --build-only's ab_new)
if [ -n "${PROF_BIN:-}" ]; then cp "$PROF_BIN" /tmp/prof_smoke
else nvcc "${FLAGS[@]}" "${SRCS[@]}" -o /tmp/prof_smoke >"$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }; fi
CONFIGS=("$@")
[ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=("1 4096 512" "512 131072 512" "1 65536 512" "64 32768 2048")
WARM=()
[ -n "${PROF_WARM:-}" ] && WARM=(--cache-control none --warp-sampling-interval 0)
SECS=(--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy
      --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats)
for c in "${CONFIGS[@]}"; do
  set -- $c
  tag="B$1_L$2_K$3"
  ncu --clock-control none "${WARM[@]}" "${SECS[@]}" -k regex:'topk_(main|cluster)' --launch-skip 6 --launch-count 1 \
      /tmp/prof_smoke --one "$1" "$2" "$3" 8 >"$OUT/sections_$tag.txt" 2>&1
  echo "== $tag: $(grep -E 'Duration|Registers Per|Achieved Occ' "$OUT/sections_$tag.txt" | tr -s ' ' | tr '\n' ';')"
  [ -n "${PROF_SECTIONS_ONLY:-}" ] && continue
  ncu --clock-control none "${WARM[@]}" --set full --import-source yes -k regex:'topk_(main|cluster)' \
      --launch-skip 6 --launch-count 1 -o /tmp/rep_$tag -f /tmp/prof_smoke --one "$1" "$2" "$3" 8 >/dev/null 2>&1
  ncu -i /tmp/rep_$tag.ncu-rep --page source --csv --print-source sass >"$OUT/sass_$tag.csv" 2>&1
done
