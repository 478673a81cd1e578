#!/usr/bin/env bash
# scripts/gpu/topk_v2_ab.sh -- A/B timing of OUR Top-K v2 on one H200: the working tree ("new")
# against the kernel files of a base revision ("base"), same smoke binary. Prepare the base HERE
# (the GPU machine gets no git history) and carry it:
#   mkdir -p .ab-base && git archive <REV> kernels/topk_v2 | tar -x -C .ab-base   (carry [".ab-base"])
#   OUT=/some/dir bash scripts/gpu/topk_v2_ab.sh
# To save device time, build the binaries HERE (nvcc, no GPU needed) and carry them instead:
#   bash scripts/gpu/topk_v2_ab.sh --build-only        (writes .ab-bin/ab.tar.xz; carry [".ab-bin"])
# new: --quick smoke (every forced path, exact checks); then --timing (auto dispatch, exact
# checks) of base and new twice, alternating, and once each of the variants in $AB_VARIANTS
# (name=nvcc-flags, space separated; skipped past 400 s). ptxas report of new. Exit 1 if a check of new fails.
set -uo pipefail
source "$(dirname "$0")/ab_common.sh"  # also: cd to the repo root, $OUT (default out/topk_v2_ab)
SRCS=("${AB_TOPK_SRCS[@]}" "$AB_TOPK_SMOKE")
# Variants of new: name=flags (several flags joined by commas; name=@REV,flags builds the variant
# with kernels/topk_v2 as of REV, e.g. an experiment branch), from $AB_VARIANTS (default below).
# AB_RUNS=1: base and new timed once instead of twice.
# AB_ONE="B:L:K:path ...": after the timings, every binary (base, new, the variants and the
# $AB_ONE_VARIANTS, which are built but not --timing-run: e.g. phase cuts) times these configs
# with `--one B L K 50 path` (path: a forced dsv4_path, 0 = auto); one table, configs x binaries.
# An empty AB_VARIANTS builds the default variants below; AB_VARIANTS=" " (a blank) builds none.
# DSV4_SMOKE_PAGE_BITS=6: the smoke and every timing in the paged transform (page_size 64, a random
# permutation table a row, as topk_v2_bench); unset: no table (page_size 1).
TVARIANTS=${AB_VARIANTS:-"mb1=-DDSV4_TOPK_MAIN_MIN_BLOCKS=1 t200=-DDSV4_TOPK_STAGE_TARGET_PCT=200 p128=-DDSV4_TOPK_PAIR_RANK_MAX=128"}
VARIANTS=$(echo $TVARIANTS ${AB_ONE_VARIANTS:-})
read -r -a VN <<<"$(ab_names "$TVARIANTS")"
read -r -a ONE_VN <<<"$(ab_names "${AB_ONE_VARIANTS:-}")"
BIN=/tmp/ab_bin
build_all() {  # -> $BIN/ab_{new,base,<variant>}, $BIN/ptxas_new.txt
  local base=/tmp/topk_ab_base kv
  rm -rf "$base" "$BIN"; mkdir -p "$base" "$BIN"
  cp -r kernels include simt tests "$base"/ 2>/dev/null
  [ -d .ab-base/kernels/topk_v2 ] || { echo "no .ab-base/kernels/topk_v2: see the header"; return 2; }
  cp .ab-base/kernels/topk_v2/* "$base/kernels/topk_v2/"
  local cmds=("nvcc ${AB_FLAGS[*]} ${SRCS[*]} -o $BIN/ab_new"
              "cd $base && nvcc ${AB_FLAGS[*]} ${SRCS[*]} -o $BIN/ab_base"
              "nvcc ${AB_FLAGS[*]} -Xptxas -v -c kernels/topk_v2/topk_v2_launch.cu -o /tmp/ab_p.o 2>&1 | grep -E 'entry|spill|Used' >$BIN/ptxas_new.txt")
  for kv in $VARIANTS; do
    cmds+=("$(ab_variant_cmd "$kv" kernels/topk_v2 "$BIN/ab_${kv%%=*}" "${SRCS[@]}")") || return 1
  done
  ab_build "$OUT/build.txt" "${cmds[@]}"
  [ -x "$BIN/ab_new" ] && [ -x "$BIN/ab_base" ] || { echo "build FAILED"; tail -20 "$OUT/build.txt"; return 1; }
}
LOG="$OUT/ab.txt"
ab_prepare ab "$LOG" "${1:-}"
cp "$BIN/ptxas_new.txt" "$OUT/ptxas_new.txt"
rc=0
# AB_QUICK=0 skips the smoke, AB_RUNS=0 the --timing runs (e.g. for AB_ONE alone).
if [ "${AB_QUICK:-1}" != 0 ]; then
  echo "== new --quick smoke (every forced path, families 0/3/6)" >>"$LOG"
  timeout 70 $BIN/ab_new --quick >"$OUT/new_quick.txt" 2>&1 || rc=1
  grep -c '^PASS' "$OUT/new_quick.txt" >>"$LOG"; grep -E '^FAIL|failing' "$OUT/new_quick.txt" | head -20 >>"$LOG"
fi
T=/tmp/abt; rm -rf $T; mkdir -p $T  # (a warm machine keeps /tmp: no stale timings)
for i in $(seq 1 "${AB_RUNS:-2}"); do
  for v in base new "${VN[@]}"; do
    [ -x $BIN/ab_$v ] || continue
    [ $i = 2 ] && [ $v != base ] && [ $v != new ] && continue
    [ $SECONDS -gt 400 ] && { echo "skip $v run $i (time)" >>"$LOG"; continue; }
    echo "== $v --timing run $i" >>"$LOG"
    timeout 60 $BIN/ab_$v --timing >"$T/t_${v}_$i.txt" 2>&1 || { [ $v = new ] && rc=1; }
  done
done
python3 scripts/gpu/ab_table.py topk "$T" "${VN[@]}" >>"$LOG"
grep -H failing "$T"/t_*.txt >>"$LOG" 2>/dev/null
if [ -n "${AB_ONE:-}" ]; then
  ALL=(base new "${VN[@]}" "${ONE_VN[@]}")
  { echo; echo "== --one timings (us; path 0 = auto, 5 = cluster8, 6 = cluster16, 9 = cluster4, 10 = cluster2; -1 = failed or not built)"
    printf '| B:L:K:path |'; printf ' %s |' "${ALL[@]}"; echo
    printf '|---|'; printf -- '---:|%.0s' "${ALL[@]}"; echo
    for c in $AB_ONE; do
      IFS=: read -r b l k p <<<"$c"
      printf '| %s |' "$c"
      for v in "${ALL[@]}"; do
        us=-1
        [ -x $BIN/ab_$v ] && [ $SECONDS -lt 540 ] &&
          us=$(timeout 20 $BIN/ab_$v --one "$b" "$l" "$k" 50 "$p" 2>/dev/null | awk -F'|' '/^\| /{gsub(/ /,"",$6); print $6}')
        printf ' %s |' "${us:--1}"
      done
      echo
    done; } >>"$LOG"
fi
cat "$LOG"; cat "$OUT/ptxas_new.txt"
exit $rc
