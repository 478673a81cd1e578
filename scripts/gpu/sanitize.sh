#!/usr/bin/env bash
# scripts/gpu/sanitize.sh -- runs THERE (GPU machine, Firecracker runtime: compute-sanitizer works
# there, not under gVisor), from the repo root, with .gpu-bundle/ carried. Runs compute-sanitizer
# memcheck, racecheck, initcheck and synccheck over a representative, SMALL subset:
#   - test_gpu_forced_paths: Top-K v2 with every path forced (register2, register4, streaming,
#     cluster8, cluster16, pool, cluster4, cluster2), bf16 small top-k and amax8, tight allocations (all four tools);
#   - test_gpu_stale_plan_inject, small-batch injection cases only (memcheck);
#   - the property suites' *_gpu twins with tiny RapidCheck runs (RC_PARAMS max_success /
#     max_size small; memcheck; racecheck too for topk_v2_test_gpu and topk_bf16_small_test, the
#     latter also with its 4-CTA/SM kernel forced, DSV4_BF16_CTAS_PER_SM=4, under synccheck too,
#     and with the cluster split forced: DSV4_BF16_SPLIT=2 under racecheck, =4 under synccheck).
#   OUT=/dir bash scripts/gpu/sanitize.sh [--tools "memcheck racecheck ..."] [--budget S] [--quick]
#     --quick   memcheck only
#   SAN_RACE_FILTER=<gtest filter>: the tests of the topk_v2_test racecheck run (default: every
#   forced path's property, PagedIndices and PathInvariance, 86 s on the H200; '*' = every test,
#   more than 150 s since the Cluster-4 / -2 shared-memory shares).
# Writes to $OUT (default ./out/sanitize): sanitize_log.txt (every run's output, last 256 KiB each)
# and sanitize_summary.txt (one line per run: verdict, tool, seconds, run). Verdicts: clean,
# ERRORS (the tool reported hazards / bad accesses: exit 99), testfail (the test failed under the
# tool), skip (77), timeout, missing (binary not in the bundle), notrun (budget spent).
set -uo pipefail
SELF="$(realpath "$0")"
cd "$(dirname "$SELF")/../.." || exit 1
REPO="$PWD"
BUNDLE="$REPO/.gpu-bundle"
OUT="${OUT:-$REPO/out/sanitize}"
TOOLS="memcheck racecheck initcheck synccheck"
BUDGET=540
while [ $# -gt 0 ]; do
  case "$1" in
    --tools) TOOLS="$2"; shift 2 ;;
    --budget) BUDGET="$2"; shift 2 ;;
    --quick) TOOLS="memcheck"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$SELF"; exit 0 ;;
    *) echo "sanitize: unknown option $1" >&2; exit 2 ;;
  esac
done
bash "$(dirname "$SELF")/unpack_bundle.sh" "$BUNDLE" || exit 2
mkdir -p "$OUT"
LOG="$OUT/sanitize_log.txt" SUMMARY="$OUT/sanitize_summary.txt"
: >"$LOG"; : >"$SUMMARY"
export PATH="/usr/local/cuda/bin:$PATH"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
[ -n "$CS" ] || { echo "sanitize: compute-sanitizer not found" | tee -a "$SUMMARY"; exit 2; }

# Same environment as run_bundle.sh: baked build-dir path -> bundle, libraries, our CUDA plugin.
BUILD_DIR=$(sed -n 's/^build dir: \(.*\) (source .*/\1/p' "$BUNDLE/build_info.txt" 2>/dev/null)
MADE_LINK=""
if [ -n "$BUILD_DIR" ] && [ ! -e "$BUILD_DIR" ] && mkdir -p "$(dirname "$BUILD_DIR")" 2>/dev/null &&
   ln -s "$BUNDLE/tree" "$BUILD_DIR" 2>/dev/null; then
  MADE_LINK="$BUILD_DIR"
fi
trap '[ -n "$MADE_LINK" ] && [ -L "$MADE_LINK" ] && rm -f "$MADE_LINK"' EXIT
libdirs=$(find "$BUNDLE/tree" -name '*.so*' -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$BUNDLE/lib:${libdirs}/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DSV4_BACKEND=cuda
# Our CUDA plugin is the default implementation through its baked path (now valid, see above);
# only if that path is still missing, name the bundled plugin explicitly (a caller's DSV4_IMPL wins).
if [ -z "${DSV4_IMPL:-}" ] && [ ! -f "$BUILD_DIR/kernels/libdsv4_ours_cuda.so" ] &&
   [ -f "$BUNDLE/tree/kernels/libdsv4_ours_cuda.so" ]; then
  export DSV4_IMPL="$BUNDLE/tree/kernels/libdsv4_ours_cuda.so"
fi
export DSV4_FAILURE_DIR="$BUNDLE/tree/failures"
export DSV4_GPU_PDL_REQUIRE_OVERLAP=0  # the sanitizer serializes kernels

{
  echo "== sanitize $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  nvidia-smi -L 2>&1
  "$CS" --version 2>&1 | tail -n 1
  echo "tools: $TOOLS; budget ${BUDGET}s; DSV4_IMPL=${DSV4_IMPL:-<unset>}"
} 2>&1 | tee -a "$LOG"

find_bin() { find "$BUNDLE/tree" -type f -name "$1" 2>/dev/null | head -n 1; }
start=$(date +%s)
# run TOOL NAME BINARY [ENV=VALUE ...] -- runs one binary under one tool.
run() {
  local tool="$1" name="$2" bin; bin=$(find_bin "$3"); shift 3
  local elapsed=$(( $(date +%s) - start ))
  if [ -z "$bin" ]; then printf 'missing  %-10s %5ss  %s\n' "$tool" 0 "$name" >>"$SUMMARY"; return; fi
  if [ "$elapsed" -ge "$BUDGET" ]; then printf 'notrun   %-10s %5ss  %s\n' "$tool" 0 "$name" >>"$SUMMARY"; return; fi
  local limit=$(( BUDGET - elapsed + 20 )); [ "$limit" -gt 240 ] && limit=240
  echo "" >>"$LOG"; echo "==== $tool: $name ($bin $*) limit ${limit}s" >>"$LOG"
  local t0; t0=$(date +%s)
  local out rc
  out=$(env "$@" timeout -k 10 "$limit" "$CS" --tool "$tool" --error-exitcode 99 --print-limit 30 \
          --target-processes all "$bin" 2>&1 </dev/null); rc=$?
  local secs=$(( $(date +%s) - t0 )) verdict
  printf '%s\n' "$out" | tail -c 262144 >>"$LOG"
  case $rc in
    0) verdict=clean ;; 99) verdict=ERRORS ;; 77) verdict=skip ;; 124|137) verdict=timeout ;; *) verdict=testfail ;;
  esac
  # A skipping test still exits 77 under the tool; a tool error summary wins over the test's rc.
  grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]" <<<"$out" && verdict=ERRORS
  printf '%-8s %-10s %5ss  %s (rc=%s)\n' "$verdict" "$tool" "$secs" "$name" "$rc" | tee -a "$SUMMARY"
}

small_rc="max_success=3 max_size=20"
race_filter="${SAN_RACE_FILTER:-TopkV2/ForcedPath.*:TopkV2.PagedIndices:TopkV2.PathInvariance}"
for tool in $TOOLS; do
  run "$tool" forced_paths test_gpu_forced_paths
done
for tool in $TOOLS; do
  case "$tool" in
    memcheck)
      run memcheck inject_small_batch test_gpu_stale_plan_inject "GTEST_FILTER=*case4*:*case5*:*case6*"
      for p in topk_v2_test topk_bf16_small_test block_amax_test candidate_block_table_test pipeline_test; do
        run memcheck "$p (RC_PARAMS=$small_rc)" "$p" "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1
      done ;;
    racecheck)
      run racecheck "topk_v2_test (RC_PARAMS=max_success=2 max_size=10; $race_filter)" topk_v2_test \
        "RC_PARAMS=max_success=2 max_size=10" "GTEST_FILTER=$race_filter"
      run racecheck "topk_bf16_small_test (RC_PARAMS=$small_rc)" topk_bf16_small_test \
        "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1
      run racecheck "topk_bf16_small_test (RC_PARAMS=$small_rc; DSV4_BF16_CTAS_PER_SM=4)" \
        topk_bf16_small_test "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1 DSV4_BF16_CTAS_PER_SM=4
      run racecheck "topk_bf16_small_test (RC_PARAMS=$small_rc; DSV4_BF16_SPLIT=2)" \
        topk_bf16_small_test "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1 DSV4_BF16_SPLIT=2 ;;
    synccheck)
      run synccheck "topk_bf16_small_test (RC_PARAMS=$small_rc; DSV4_BF16_SPLIT=4)" \
        topk_bf16_small_test "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1 DSV4_BF16_SPLIT=4
      run synccheck "topk_bf16_small_test (RC_PARAMS=$small_rc; DSV4_BF16_CTAS_PER_SM=4)" \
        topk_bf16_small_test "RC_PARAMS=$small_rc" DSV4_PROP_SCALE=1 DSV4_BF16_CTAS_PER_SM=4 ;;
  esac
done
echo "totals: $(awk '{print $1}' "$SUMMARY" | sort | uniq -c | tr '\n' ' ')" | tee -a "$SUMMARY"
grep -qE "^(ERRORS|testfail|timeout) " "$SUMMARY" && exit 1
exit 0
