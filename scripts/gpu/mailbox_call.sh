#!/usr/bin/env bash
# scripts/gpu/mailbox_call.sh -- THERE (the GPU machine), from the repo root: the device calls
# that decide the cluster mailbox (DSV4_TOPK_MAILBOX, kernels/topk_v2/topk_v2_team.cuh).
# Prepared HERE, with the mailbox default set to the spelling under test in the tree:
#   AB_VARIANTS="mb0=-DDSV4_TOPK_MAILBOX=0 mb2=-DDSV4_TOPK_MAILBOX=2" bash scripts/gpu/topk_v2_ab.sh --build-only
#   bash scripts/gpu/make_bundle.sh --jobs 2 && rm -rf .gpu-bundle/tree
# PART=ab (carry [".ab-bin", ".ab-base"]): the A/B (new = the tree's default spelling, base =
#   .ab-base's kernels, variants as built; every check exact), then the synchronization ops of
#   each binary's cluster kernels (scripts/gpu/sass_ops.py; no MEMBAR.ALL.GPU is the aim).
# PART=check (carry [".gpu-bundle"]): the Top-K v2 properties on the GPU backend at
#   DSV4_PROP_SCALE=${SCALE:-20}, then compute-sanitizer racecheck / synccheck / memcheck.
# Results: $OUT/<part>/..., packed into $OUT/<part>.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
PART=${PART:-ab}
R=$OUT/$PART
mkdir -p "$R"
nvidia-smi -L >"$R/gpu.txt" 2>&1
date -u >>"$R/gpu.txt"
if [ "$PART" = ab ]; then
  AB_VARIANTS="${AB_VARIANTS:?the variants the binaries were built with}" AB_RUNS=${RUNS:-1} \
    OUT="$R" timeout "${AB_S:-420}" bash scripts/gpu/topk_v2_ab.sh >"$R/ab_stdout.txt" 2>&1
  echo "ab rc=$?" >>"$R/gpu.txt"
  # compute-sanitizer on new's smoke binary, one config a forced cluster path (5 = Cluster-8,
  # 6 = Cluster-16, 7 = pool, 9 = Cluster-4, 10 = Cluster-2): racecheck and synccheck
  if [ "${SANONE:-1}" = 1 ]; then
    for tool in racecheck synccheck; do
      for cfg in "2 70000 512 5" "1 70000 2048 6" "2 70000 512 7" "2 40000 512 9" "2 30000 2048 10" "2 60000 512 10"; do
        set -- $cfg
        timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/ab_bin/ab_new --one $1 $2 $3 1 $4 \
          >"$R/san_${tool}_$1_$2_$3_$4.txt" 2>&1
        echo "$tool B=$1 L=$2 K=$3 path=$4 rc=$? $(grep -h 'SUMMARY' "$R/san_${tool}_$1_$2_$3_$4.txt" | head -1)" >>"$R/san_one.txt"
      done
    done
  fi
  for b in /tmp/ab_bin/ab_*; do
    [ -x "$b" ] || continue
    cuobjdump -sass "$b" 2>/dev/null | python3 scripts/gpu/sass_ops.py --filter topk_ >"$R/sass_ops_$(basename "$b").txt"
  done
else
  DSV4_PROP_SCALE=${SCALE:-20} OUT="$R/props" timeout "${PROPS_S:-240}" \
    bash scripts/gpu/run_bundle.sh --filter '^topk_v2_test' --budget "${PROPS_BUDGET:-220}" >"$R/props_stdout.txt" 2>&1
  echo "props rc=$?" >>"$R/gpu.txt"
  OUT="$R/san" timeout "${SAN_S:-300}" bash scripts/gpu/sanitize.sh --tools "${SAN_TOOLS:-racecheck synccheck memcheck}" \
    --budget "${SAN_BUDGET:-280}" >"$R/san_stdout.txt" 2>&1
  echo "san rc=$?" >>"$R/gpu.txt"
fi
tar czf "$OUT/$PART.tgz" -C "$OUT" "$PART"
tail -5 "$R/gpu.txt"
if [ "$PART" = ab ]; then
  sed -n '/^| B |/,$p' "$R/ab.txt"; cat "$R/san_one.txt" 2>/dev/null
  grep -h "cluster_kernel\|pool_kernel" "$R"/sass_ops_ab_new.txt | sed 's/ATOM[^ ]*//g' | cut -c1-300
fi
rm -rf "${R:?}"  # the tgz holds it (the device tool returns a limited number of files)
