#!/usr/bin/env bash
# fuzz/ossfuzz_build.sh -- OSS-Fuzz / ClusterFuzzLite build script.
# Uses the conventions of those engines: $CC/$CXX/$CFLAGS/$CXXFLAGS/$LIB_FUZZING_ENGINE from the
# environment, $SRC (the checkout), $OUT (artifacts). Produces, for every fuzz target:
#   $OUT/<target>                    the libFuzzer binary (CPU/simt backend; no CUDA in those images)
#   $OUT/<target>_seed_corpus.zip    corpus/<target>/* (sha1-named case files)
#   $OUT/<target>.dict               fuzz/<target>.dict
#   $OUT/<target>.options            fuzz/<target>.options
# Local use: OUT=/tmp/out CC=clang CXX=clang++ LIB_FUZZING_ENGINE=-fsanitize=fuzzer fuzz/ossfuzz_build.sh
set -euo pipefail
SRC_DIR="${SRC:-$(cd "$(dirname "$0")/.." && pwd)}"
[ -f "$SRC_DIR/CMakeLists.txt" ] || SRC_DIR="$SRC_DIR/dsv4-harness"
: "${OUT:?set OUT to the output directory}"
: "${CC:=clang}" "${CXX:=clang++}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
BUILD="${WORK:-/tmp}/dsv4-ossfuzz-build"
mkdir -p "$OUT" "$BUILD"
# The engine flags come from CFLAGS/CXXFLAGS (sanitizers, coverage); DSV4_ENABLE_FUZZ selects the
# libFuzzer link of the targets (-fsanitize=fuzzer, i.e. $LIB_FUZZING_ENGINE for libFuzzer).
cmake -S "$SRC_DIR" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" \
  -DDSV4_ENABLE_CUDA=OFF -DDSV4_ENABLE_BENCH=OFF -DDSV4_ENABLE_EXAMPLES=OFF -DDSV4_ENABLE_FUZZ=ON
targets=$(sed -n 's/^set(DSV4_FUZZ_TARGETS \(.*\)/\1/p;s/^ *\(fuzz_[a-z_ 0-9]*\))$/\1/p' "$SRC_DIR/fuzz/CMakeLists.txt" | tr -d ')' | tr ' ' '\n' | grep '^fuzz_' | sort -u)
ninja -C "$BUILD" -j "$(nproc)" $targets
for t in $targets; do
  cp "$BUILD/fuzz/$t" "$OUT/$t"
  cp "$SRC_DIR/fuzz/$t.dict" "$OUT/$t.dict"
  cp "$SRC_DIR/fuzz/$t.options" "$OUT/$t.options"
  if [ -d "$SRC_DIR/corpus/$t" ]; then
    (cd "$SRC_DIR/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
  echo "ossfuzz_build: $OUT/$t"
done
