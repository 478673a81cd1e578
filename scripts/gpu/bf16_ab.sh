#!/usr/bin/env bash
# scripts/gpu/bf16_ab.sh -- A/B timing of OUR indexer kernels' build-time variants (bf16 small
# top-k first of all) on one H200, with one self-contained binary per variant (the check program
# scripts/gpu/indexer_kernels_gpu.cu linked with the kernel sources directly, no CMake).
#   bash scripts/gpu/bf16_ab.sh --build-only     HERE (nvcc, no GPU): writes .ab-bin/bf16.tar.xz
#   OUT=/some/dir bash scripts/gpu/bf16_ab.sh    THERE (carry [".ab-bin"]; builds if nothing prebuilt)
# Variants: $BF16_VARIANTS, name=nvcc-flags (several flags joined by commas; name=@REV,flags builds
# with kernels/topk_bf16_small as of REV), space separated;
# "default" (no flags) always runs first. Each variant: `check` (exactness; ablation variants
# DSV4_BF16_ABLATE=n leave rows unwritten and are expected to fail it) then `bench`, twice for
# default. Writes $OUT/bf16_ab.txt (a table of every bench line per variant) and the raw logs.
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT (default out/bf16_ab)
SRCS=("${AB_COMMON_SRCS[@]}" kernels/topk_bf16_small/topk_bf16_small.cu kernels/block_amax/block_amax.cu
      kernels/candidate_block_table/candidate_block_table.cu scripts/gpu/indexer_kernels_gpu.cu)
VARIANTS="default= ${BF16_VARIANTS:-"occ4=-DDSV4_BF16_MIN_CTAS_PER_SM=4 nopf=-DDSV4_BF16_TABLE_PREFETCH=0"}"
read -r -a VN <<<"$(ab_names "$VARIANTS")"
BIN=/tmp/bf16_ab_bin
build_all() {
  local kv cmds=()
  rm -rf "$BIN"; mkdir -p "$BIN"
  for kv in $VARIANTS; do
    cmds+=("$(ab_variant_cmd "$kv" kernels/topk_bf16_small "$BIN/bf16_${kv%%=*}" "${SRCS[@]}") 2>&1 | grep -v Warning") || return 1
  done
  ab_build "$OUT/build.txt" "${cmds[@]}"
  [ -x "$BIN/bf16_default" ] || { echo "build FAILED"; tail -20 "$OUT/build.txt"; return 1; }
}
LOG="$OUT/bf16_ab.txt"
ab_prepare bf16 "$LOG" "${1:-}"
rc=0
for run in 1 2; do
  for v in "${VN[@]}"; do
    [ $run = 2 ] && [ "$v" != default ] && continue
    [ -x "$BIN/bf16_$v" ] || { echo "$v: not built" >>"$LOG"; continue; }
    if [ $run = 1 ]; then
      timeout 120 "$BIN/bf16_$v" check >"$OUT/check_$v.txt" 2>&1
      c=$?; echo "$v check: exit $c ($(tail -n 1 "$OUT/check_$v.txt"))" >>"$LOG"
      [ "$v" = default ] && [ $c != 0 ] && rc=1
    fi
    timeout 120 "$BIN/bf16_$v" bench >"$OUT/bench_${v}_$run.txt" 2>&1
  done
done
python3 scripts/gpu/ab_table.py bf16 "$OUT" "${VN[@]}" >>"$LOG"
cat "$LOG"
exit $rc
