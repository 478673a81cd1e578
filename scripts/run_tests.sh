#!/usr/bin/env bash
# README command (2): install what is missing, build, run the whole CTest suite.
#   scripts/run_tests.sh [--preset ci|gpu|asan-fuzz] [-L label] [extra ctest args]
# CPU-only machines run everything labelled cpu/fuzz; gpu tests skip with a printed reason. The ci
# preset then builds and runs the race-flavour tests (preset race, clang).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=ci
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
bash scripts/install_deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
echo "== configure (preset $preset)"
cmake --preset "$preset" >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
echo "== build ($jobs jobs)"
cmake --build --preset "$preset" -j "$jobs" 2>&1 | tail -n 40
echo "== test"
cd "build/$preset"
# Every property runs DSV4_PROP_SCALE times its default case count (properties/prop_support.hpp):
# 5 by default (~1 min of tests on 2 cores, well inside CI's budget; nightly runs use 10).
export DSV4_PROP_SCALE="${DSV4_PROP_SCALE:-5}"
rc=0
ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 900 "${args[@]}" || rc=$?
cd ../..
# The ci preset also runs the race flavour (clang): simt's detector checks every shared-memory
# access of the kernels on the kernel tests, which a missing barrier passes on the CPU otherwise.
if [ "$preset" = ci ] && [ ${#args[@]} -eq 0 ]; then
  echo "== race flavour (preset race: clang, kernels instrumented)"
  cmake --preset race >build-race-configure.log 2>&1 || { cat build-race-configure.log; exit 1; }
  cmake --build --preset race -j "$jobs" --target simt_race_test topk_v2_kernel_race_test \
    dsv4_indexer_bf16_race_test dsv4_indexer_amax8_race_test dsv4_indexer_candidates_race_test \
    dsv4_indexer_block_scan_race_test 2>&1 | tail -n 5
  (cd build/race && ctest --output-on-failure --no-tests=error -j "$jobs" -R race) || rc=$?
fi
exit $rc
