#!/usr/bin/env bash
# scripts/gpu/bench.sh -- build and run the GPU benchmarks on a machine with an H200 (or any sm_90
# GPU), nvcc, cmake, ninja and python3 with torch; no network needed. Run from the repo root:
#   OUT=/some/dir scripts/gpu/bench.sh [--quick]
# Writes (at most 6 files) under $OUT (default ./out/bench):
#   bench_summary.md   date, nvidia-smi -L, toolchain, the merged table with ratios and goals,
#                      then the raw tables of each program
#   topk_v2.csv bf16.csv torch_topk.csv   the raw measurements
#   bench_log.txt      configure/build/run logs (stderr included)
# Environment: BENCH_PLUGIN=/path/lib.so benchmarks that plugin instead of our CUDA plugin
# (e.g. build/gpu-bench/examples/simple_topk_plugin/libsimple_topk_plugin.so).
# Tolerant: a failing config prints its error in its row; a failing step is logged and the
# remaining steps still run.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/bench}"
mkdir -p "$OUT"
QUICK=""
[ "${1:-}" = "--quick" ] && QUICK="--quick"
LOG="$OUT/bench_log.txt"
SUMMARY="$OUT/bench_summary.md"
: >"$LOG"
log() { echo "== $*" | tee -a "$LOG"; }
JOBS=$(nproc 2>/dev/null || echo 8)
export PATH="/usr/local/cuda/bin:$PATH"

log "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
{
  nvidia-smi -L 2>&1
  nvcc --version 2>&1 | tail -n 2
  cmake --version 2>&1 | head -n 1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} | tee -a "$LOG"

# ---- configure + build -----------------------------------------------------------------------
# 1. the top-level project (Release); 2. if that fails (e.g. the host-test dependencies are not
# installed here), bench/standalone with kernels/; 3. the same without kernels/ (simple plugin only).
BUILD=""
try_build() {  # try_build NAME SOURCE_DIR EXTRA_CMAKE_ARGS...
  local dir="build/$1" src="$2"; shift 2
  log "configure $dir from $src $*"
  # The CUDA20 flags are for CMake < 3.26, which knows no nvcc flag for C++20 (newer CMake overrides them).
  if ! cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20 \
       "$@" >>"$LOG" 2>&1; then
    log "configure of $dir FAILED (see log above)"
    return 1
  fi
  local known targets=()
  known=$(ninja -C "$dir" -t targets all 2>/dev/null)
  for t in dsv4_ours_cuda topk_v2_bench bf16_bench simple_topk_plugin; do
    if grep -q "^$t:" <<<"$known"; then targets+=("$t"); fi
  done
  log "build $dir: ${targets[*]} ($JOBS jobs)"
  if ! ninja -C "$dir" -j "$JOBS" "${targets[@]}" >>"$LOG" 2>&1; then
    log "build of $dir FAILED (see log above)"
    return 1
  fi
  BUILD="$dir"
}
try_build gpu-bench . -DDSV4_ENABLE_FUZZ=OFF -DDSV4_ENABLE_BENCH=ON -DDSV4_ENABLE_EXAMPLES=ON ||
  try_build bench-standalone bench/standalone ||
  try_build bench-standalone-nokernels bench/standalone -DDSV4_BENCH_WITH_KERNELS=OFF

NOTE=""
PLUGIN_ARGS=()
if [ -z "$BUILD" ]; then
  NOTE="**No build succeeded: see bench_log.txt.**"
else
  OURS=$(find "$BUILD" -name 'libdsv4_ours_cuda*.so*' -o -name 'dsv4_ours_cuda*.so' 2>/dev/null | head -n 1)
  SIMPLE=$(find "$BUILD" -name 'libsimple_topk_plugin.so' 2>/dev/null | head -n 1)
  if [ -n "${BENCH_PLUGIN:-}" ]; then
    PLUGIN_ARGS=(--plugin "$BENCH_PLUGIN")
    NOTE="Plugin: $BENCH_PLUGIN (BENCH_PLUGIN)."
  elif [ -z "$OURS" ] && [ -n "$SIMPLE" ]; then
    PLUGIN_ARGS=(--plugin "$SIMPLE")
    NOTE="**Our CUDA plugin was not built; measuring the simple example plugin instead.**"
  else
    NOTE="Plugin: our CUDA plugin (${OURS:-compiled-in default})."
  fi
fi
log "$NOTE"

# ---- run -------------------------------------------------------------------------------------
run_step() {  # run_step NAME TIMEOUT_S CMD... ; stdout -> $OUT/NAME.md (merged into the summary)
  local name="$1" limit="$2"; shift 2
  log "run $name: $*"
  timeout "$limit" "$@" >"$OUT/$name.md" 2>>"$LOG"
  local rc=$?
  [ $rc -ne 0 ] && log "$name exited with status $rc"
  return 0
}
if [ -n "$BUILD" ]; then
  run_step topk_v2 300 "$BUILD/bench/topk_v2_bench" "${PLUGIN_ARGS[@]}" --csv "$OUT/topk_v2.csv" $QUICK
  run_step bf16 90 "$BUILD/bench/bf16_bench" "${PLUGIN_ARGS[@]}" --csv "$OUT/bf16.csv" $QUICK
fi
PYTHONUNBUFFERED=1 run_step torch 240 python3 bench/torch_topk.py --csv "$OUT/torch_topk.csv" $QUICK

ANCHORS=()
for f in shared/design/performance_anchors.md ../shared/design/performance_anchors.md docs/performance_anchors.md; do
  [ -f "$f" ] && { ANCHORS=(--anchors "$f"); break; }
done

# ---- summary ---------------------------------------------------------------------------------
{
  echo "# GPU benchmark run"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "- GPU: $(nvidia-smi -L 2>&1 | tr '\n' ' ')"
  echo "- nvcc: $(nvcc --version 2>&1 | tail -n 1)"
  echo "- build: ${BUILD:-none}; $NOTE"
  echo "- method: CUDA events around one launch, spin kernel before the start event, 10 warm-up + 60 timed, median;"
  echo "  floor = empty-kernel launch term + B·L·bytes / device copy bandwidth (read+write bytes of a D2D memcpy)"
  echo
  if [ -s "$OUT/topk_v2.csv" ]; then
    python3 bench/merge.py --ours "$OUT/topk_v2.csv" --bf16 "$OUT/bf16.csv" --torch "$OUT/torch_topk.csv" "${ANCHORS[@]}" 2>&1
  else
    echo "(no topk_v2.csv: nothing to merge)"
  fi
  for part in topk_v2 bf16 torch; do
    if [ -f "$OUT/$part.md" ]; then
      echo
      echo "## raw output: $part"
      echo
      cat "$OUT/$part.md"
      rm -f "$OUT/$part.md"
    fi
  done
} >"$SUMMARY"
log "wrote: $(cd "$OUT" && echo *)"
cat "$SUMMARY"
