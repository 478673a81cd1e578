#!/usr/bin/env bash
# Planted-fault demonstration: for each fault switch of kernels/common/faults.h, build
# build/fault-<NAME> with -DDSV4_FAULT=<NAME> (clang + libFuzzer, no CUDA), run the family's
# property test (CI-style: DSV4_PROP_SCALE 5 unless set, caught = non-zero exit) and its fuzz target on a copy of its seed corpus
# with -max_total_time=SECONDS (caught = a crash; time-to-find = wall seconds until it stopped).
#   scripts/fault_matrix.sh [--seconds 300] [--faults "TOPK_LB_NO_ULP TOPK_NEGZERO_ABOVE"] [--jobs 2]
#                           [--grid-seeds | --no-seeds] [--no-build]
# --grid-seeds: start the fuzzer WITHOUT the bug-class trigger seeds (fuzz/seed_manifest.txt names
# starting "cNN-"), only the upstream grids / generator families: shows the fuzzer finds the fault.
# --no-seeds: start from an empty corpus (the total decoder + mutator alone).
# --no-build: reuse an existing build/fault-<NAME>.
# Sequential and niced (shared machine). Appends one row per fault to build/fault-matrix.md.
set -uo pipefail
cd "$(dirname "$0")/.."
# "Caught by the properties in CI": the property test runs at CI's case count (scripts/run_tests.sh).
export DSV4_PROP_SCALE="${DSV4_PROP_SCALE:-5}"
seconds=300
jobs=2
grid=0
nobuild=0
faults="TOPK_PAD_NEG_FLT_MAX TOPK_LB_NO_ULP TOPK_TIE_CAP_2048 TOPK_NEGZERO_ABOVE TOPK_WRITE_PAST_K TOPK_READ_PAST_SEQLEN TOPK_STAGE_SKIPS_GUESS_BIN TOPK_STAGE_NO_FALLBACK TOPK_STAGE_NO_RECOUNT TOPK_STAGE_OVERFLOW_NO_RECOUNT TOPK_RING_STALE_SLOT TOPK_REST_WALK_SHORT TOPK_SMEM_ROW_PARTIAL_WHOLE"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --faults) faults="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --grid-seeds) grid=1; shift ;;
    --no-seeds) grid=2; shift ;;
    --no-build) nobuild=1; shift ;;
    --all) faults=$(sed -n 's/^#ifndef DSV4_FAULT_\([A-Z0-9_]*\).*/\1/p' kernels/common/faults.h | tr '\n' ' '); shift ;;
    *) echo "fault_matrix.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
family_of() {  # fault -> "<property test> <fuzz target>"
  case "$1" in
    TOPK_*) echo "topk_v2_test fuzz_topk_v2" ;;
    BF16_*) echo "topk_bf16_small_test fuzz_topk_bf16_small" ;;
    AMAX_*) echo "block_amax_test fuzz_block_amax" ;;
    CAND_*) echo "candidate_block_table_test fuzz_candidate_block_table" ;;
    PROBE_*) echo "occupancy_probe_test fuzz_topk_v2" ;;
    *) echo "" ;;
  esac
}
out=build/fault-matrix.md
mkdir -p build
if [ ! -f "$out" ]; then
  { echo "| fault | property test | caught (CI) | property s | fuzz target | caught (fuzz) | time-to-find s | execs |"
    echo "|---|---|---|---|---|---|---|---|"; } >"$out"
fi
echo "fault matrix: $(date -u '+%Y-%m-%d %H:%M UTC'), fuzz budget ${seconds}s per fault" >&2
for f in $faults; do
  read -r ptest ftarget <<<"$(family_of "$f")"
  [ -n "$ptest" ] || { echo "skip $f: unknown family" >&2; continue; }
  b="build/fault-$f"
  echo "== $f: configure + build $ptest $ftarget in $b" >&2
  [ $nobuild = 1 ] || nice -n 10 cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER=clang -DDSV4_ENABLE_CUDA=OFF -DDSV4_ENABLE_BENCH=OFF -DDSV4_ENABLE_EXAMPLES=OFF \
    -DDSV4_ENABLE_FUZZ=ON -DDSV4_FAULT="$f" >"$b.configure.log" 2>&1 || { echo "configure failed: $b.configure.log" >&2; continue; }
  [ $nobuild = 1 ] || nice -n 10 ninja -C "$b" -j "$jobs" "$ptest" "$ftarget" >"$b.build.log" 2>&1 || { echo "build failed: $b.build.log" >&2; tail -n 20 "$b.build.log" >&2; continue; }
  pbin=$(find "$b/properties" -name "$ptest" -type f | head -n 1)
  t0=$(date +%s)
  prc=0
  if ! { [ $nobuild = 1 ] && [ $grid != 0 ]; }; then
    DSV4_FAILURE_DIR="$b/failures-prop" nice -n 10 "$pbin" --gtest_brief=1 >"$b.prop.log" 2>&1
    prc=$?
  fi
  pt=$(( $(date +%s) - t0 ))
  pcaught=$([ $prc -ne 0 ] && echo yes || echo NO)
  work="$b/fuzz-work"; rm -rf "$work" "$b/failures-fuzz"; mkdir -p "$work" "$b/failures-fuzz"
  if [ $grid = 2 ]; then
    ftarget_label="$ftarget (no seeds)"
  elif [ $grid = 1 ]; then
    awk -v t="$ftarget" '$1 == t && $3 !~ /^c[0-9][0-9]-/ {print $2}' fuzz/seed_manifest.txt |
      while read -r h; do cp "corpus/$ftarget/$h" "$work"/; done
    ftarget_label="$ftarget (grid seeds: $(ls "$work" | wc -l))"
  else
    cp corpus/"$ftarget"/* "$work"/ 2>/dev/null || true
    ftarget_label="$ftarget"
  fi
  fbin="$b/fuzz/$ftarget"
  t0=$(date +%s)
  DSV4_FAILURE_DIR="$b/failures-fuzz" nice -n 10 "$fbin" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$b/failures-fuzz/" -dict="fuzz/$ftarget.dict" "$work" >"$b.fuzz$([ $grid != 0 ] && echo -seeds$grid).log" 2>&1
  frc=$?
  ft=$(( $(date +%s) - t0 ))
  flog="$b.fuzz$([ $grid != 0 ] && echo -seeds$grid).log"
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$flog" | awk '{print $2}' | tail -n 1)
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$flog" | tail -n 1 | tr -d '#')
  if [ $frc -ne 0 ]; then fcaught=yes; ttf=$ft; else fcaught=NO; ttf="-"; fi
  if [ $nobuild = 1 ] && [ "$grid" != 0 ]; then pcaught="(not rerun)"; pt="-"; fi
  echo "| $f | $ptest | $pcaught | $pt | $ftarget_label | $fcaught | $ttf | ${execs:-?} |" | tee -a "$out"
done
echo "table: $out" >&2
