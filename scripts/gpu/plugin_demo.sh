#!/usr/bin/env bash
# scripts/gpu/plugin_demo.sh -- one device call for the plugin ABI demonstrations (issue "Test any
# implementation"), run THERE from the repo root with .gpu-bundle carried:
#   1. the GPU lane on our CUDA plugin (every gpu-labelled test);
#   2. the property suite against the simple example plugin (through the ABI, cuda backend);
#   3. the property suite against the buggy example plugin (must FAIL with a readable report);
#   4. the libFuzzer target fuzz_topk_v2 (.gpu-bundle/extra/, clang build) against the buggy plugin
#      from the seed corpus, time-boxed; 5. `dsv4-harness repro` of the saved case file against the
#      buggy plugin (same verdict expected) and against ours (pass expected);
#   6. scripts/gpu/harness_isolation.sh (poisoned context / hang isolation of repro).
# Everything lands in $OUT/plugin_demo.tgz; the summary is printed and copied to $OUT/summary.txt.
set -u
B="$PWD/.gpu-bundle"; R=/tmp/plugin_demo; rm -rf "$R"; mkdir -p "$R"
bash scripts/gpu/unpack_bundle.sh "$B" || exit 2
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}" DSV4_BACKEND=cuda
T="$B/tree"; H="$T/harness/dsv4-harness"
SIMPLE="$T/examples/simple_topk_plugin/libsimple_topk_plugin.so"
BUGGY="$T/examples/simple_topk_plugin/libsimple_topk_plugin_buggy.so"
S="$R/summary.txt"; say() { echo "$*" | tee -a "$S"; }
say "date $(date -u '+%F %T UTC'); $(nvidia-smi -L | head -n 1)"

OUT="$R/lane" timeout "${LANE_S:-150}" bash scripts/gpu/run_bundle.sh --only-gpu --budget 130 >/dev/null 2>&1
say "== 1. lane on ours: $(tail -n 1 "$R/lane/gpu_lane_summary.txt" 2>/dev/null)"
grep -E "^fail" "$R/lane/gpu_lane_summary.txt" 2>/dev/null | tee -a "$S"

for plug in simple buggy; do
  P=$SIMPLE; [ $plug = buggy ] && P=$BUGGY
  for t in topk_v2_test topk_bf16_small_test pipeline_test; do
    DSV4_IMPL="$P" DSV4_FAILURE_DIR="$R/failures_$plug" timeout 120 "$T/properties/$t" >"$R/${plug}_$t.log" 2>&1
    rc=$?
    say "== ${plug} plugin, $t: rc=$rc; $(grep -cE '^\[       OK \]' "$R/${plug}_$t.log") ok, $(grep -cE '^\[  SKIPPED \]' "$R/${plug}_$t.log") skipped, $(grep -cE '^\[  FAILED  \]' "$R/${plug}_$t.log") failed lines"
  done
done
grep -m1 -A12 "dsv4-harness report" "$R/buggy_topk_v2_test.log" | tee -a "$S"

F="$B/extra/fuzz_topk_v2"
if [ -x "$F" ]; then
  mkdir -p "$R/fz/corpus" "$R/fz/failures"; cp "$B"/corpus/fuzz_topk_v2/* "$R/fz/corpus/"
  start=$(date +%s)
  DSV4_IMPL="$BUGGY" DSV4_FAILURE_DIR="$R/fz/failures" timeout "${FUZZ_S:-200}" "$F" "$R/fz/corpus" \
    -max_total_time="${FUZZ_T:-180}" -artifact_prefix="$R/fz/" -print_final_stats=1 >"$R/fz/log" 2>&1
  say "== 4. fuzz_topk_v2 vs buggy plugin from $(ls "$B"/corpus/fuzz_topk_v2 | wc -l) seeds: rc=$? after $(( $(date +%s) - start )) s; crash files: $(ls "$R"/fz/crash-* 2>/dev/null | wc -l); case files: $(ls "$R"/fz/failures 2>/dev/null | wc -l)"
  grep -E "#[0-9]+.*(INITED|NEW|pulse)|ERROR: libFuzzer|SUMMARY" "$R/fz/log" | tail -n 4 | tee -a "$S"
  for c in "$R"/fz/failures/*; do
    [ -f "$c" ] || continue
    "$H" repro "$c" --impl "$BUGGY" --backend cuda >"$R/fz/repro_buggy.txt" 2>&1; r1=$?
    "$H" repro "$c" --impl ours --backend cuda >"$R/fz/repro_ours.txt" 2>&1; r2=$?
    say "== 5. repro $(basename "$c"): buggy rc=$r1 ($(grep -m1 'report:' "$R/fz/repro_buggy.txt")); ours rc=$r2"
    break
  done
else
  say "== 4. no libFuzzer fuzz_topk_v2 in the bundle (.gpu-bundle/extra/): skipped"
fi
OUT="$R/iso" timeout 150 bash scripts/gpu/harness_isolation.sh >/dev/null 2>&1
say "== 6. isolation: $(grep -c PASS "$R/iso/harness_isolation.txt" 2>/dev/null) PASS, $(grep -c FAIL "$R/iso/harness_isolation.txt" 2>/dev/null) FAIL"
grep FAIL "$R/iso/harness_isolation.txt" 2>/dev/null | tee -a "$S"
tar czf "$OUT/plugin_demo.tgz" -C "$R" . ; cp "$S" "$OUT/summary.txt"
