#!/usr/bin/env bash
# scripts/gpu/properties_gpu.sh -- run the property suites and the corpus replay on the GPU
# (DSV4_BACKEND=cuda: the CUDA plugin dsv4_ours_cuda, production 1024-thread instantiation), then
# a short libFuzzer campaign on the GPU when clang is available.
# Run from the repo root on a machine with an H200, nvcc, cmake, ninja. Results under $OUT:
#   $OUT/properties_gpu.txt        one line per binary: name, exit status, seconds, gtest summary
#   $OUT/logs/<binary>.log         full output (reports of failing cases included)
#   $OUT/failures/                 case files of failures (dsv4-harness repro FILE)
#   $OUT/fuzz_campaign.txt         campaign summary table (if clang + libFuzzer exist)
# Env: PROP_SCALE (default 3) multiplies every property's max_success; FUZZ_MINUTES (default 6).
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:=$PWD/out-gpu}"
mkdir -p "$OUT/logs" "$OUT/failures"
B=build/gpu-props
nvidia-smi -L > "$OUT/gpu.txt" 2>&1 || true
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDSV4_ENABLE_BENCH=OFF -DDSV4_ENABLE_EXAMPLES=OFF \
  > "$OUT/logs/configure.log" 2>&1 || { echo "configure failed" | tee "$OUT/properties_gpu.txt"; exit 1; }
props="topk_v2_test topk_bf16_small_test block_amax_test candidate_block_table_test pipeline_test occupancy_probe_test"
fuzzers="fuzz_topk_v2 fuzz_topk_v2_ragged fuzz_topk_bf16_small fuzz_block_amax fuzz_candidate_block_table fuzz_pipeline"
ninja -C "$B" -j "$(nproc)" $props $fuzzers dsv4_ours_cuda > "$OUT/logs/build.log" 2>&1 || { tail -n 50 "$OUT/logs/build.log"; exit 1; }
: > "$OUT/properties_gpu.txt"
export DSV4_BACKEND=cuda DSV4_FAILURE_DIR="$OUT/failures" DSV4_PROP_SCALE="${PROP_SCALE:-3}"
for p in $props; do
  t0=$(date +%s)
  "$B/properties/$p" > "$OUT/logs/$p.log" 2>&1
  rc=$?
  echo "$p rc=$rc $(( $(date +%s) - t0 ))s $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/logs/$p.log" | tr '\n' ' ')" | tee -a "$OUT/properties_gpu.txt"
done
for f in $fuzzers; do  # corpus replay through the runner on the GPU
  "$B/fuzz/$f" -runs=0 "corpus/$f" > "$OUT/logs/replay_$f.log" 2>&1
  echo "replay $f rc=$? $(tail -n 1 "$OUT/logs/replay_$f.log")" | tee -a "$OUT/properties_gpu.txt"
done
if command -v clang++ > /dev/null; then
  bash scripts/fuzz_campaign.sh --minutes "${FUZZ_MINUTES:-6}" > "$OUT/fuzz_campaign.txt" 2>&1
  echo "fuzz campaign rc=$?" | tee -a "$OUT/properties_gpu.txt"
  cp -r build/fuzz/fuzz-failures "$OUT/fuzz-failures" 2>/dev/null || true
fi
