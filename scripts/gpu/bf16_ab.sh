#!/usr/bin/env bash
# scripts/gpu/bf16_ab.sh -- A/B timing of OUR indexer kernels' build-time variants (bf16 small
# top-k first of all) on one H200, with one self-contained binary per variant (the check program
# scripts/gpu/indexer_kernels_gpu.cu linked with the kernel sources directly, no CMake).
#   bash scripts/gpu/bf16_ab.sh --build-only     HERE (nvcc, no GPU): writes .ab-bin/bf16.tar.xz
#   OUT=/some/dir bash scripts/gpu/bf16_ab.sh    THERE (carry [".ab-bin"]; builds if nothing prebuilt)
# Variants: $BF16_VARIANTS, name=nvcc-flags (several flags joined by commas), space separated;
# "default" (no flags) always runs first. Each variant: `check` (exactness; ablation variants
# DSV4_BF16_ABLATE=n leave rows unwritten and are expected to fail it) then `bench`, twice for
# default. Writes $OUT/bf16_ab.txt (a table of every bench line per variant) and the raw logs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/bf16_ab}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
FLAGS=(-std=c++20 -O3 -arch=sm_90a -lineinfo --expt-relaxed-constexpr -I. -Iinclude
       -DDSV4_TOPK_BLOCK_THREADS=1024 -DDSV4_BF16_BLOCK_THREADS=512)
SRCS=(kernels/common/validate.cu kernels/common/status_host.cu kernels/common/capabilities.cu
      kernels/topk_bf16_small/topk_bf16_small.cu kernels/block_amax/block_amax.cu
      kernels/candidate_block_table/candidate_block_table.cu kernels/occupancy_probe/occupancy_probe.cu
      scripts/gpu/indexer_kernels_gpu.cu)
VARIANTS="default= ${BF16_VARIANTS:-"occ4=-DDSV4_BF16_MIN_CTAS_PER_SM=4 nopf=-DDSV4_BF16_TABLE_PREFETCH=0"}"
VN=()
for kv in $VARIANTS; do VN+=("${kv%%=*}"); done
BIN=/tmp/bf16_ab_bin
PRE="$PWD/.ab-bin"
build_all() {
  rm -rf "$BIN"; mkdir -p "$BIN"
  local cmds=()
  for kv in $VARIANTS; do
    local flags=${kv#*=}
    cmds+=("nvcc ${FLAGS[*]} ${flags//,/ } ${SRCS[*]} -o $BIN/bf16_${kv%%=*} 2>&1 | grep -v Warning")
  done
  printf '%s\n' "${cmds[@]}" | xargs -d '\n' -P "${AB_JOBS:-16}" -n 1 bash -c >"$OUT/build.txt" 2>&1
  [ -x "$BIN/bf16_default" ] || { echo "build FAILED"; tail -20 "$OUT/build.txt"; return 1; }
  echo "$VARIANTS" >"$BIN/variants.txt"
}
if [ "${1:-}" = --build-only ]; then
  build_all || exit 1
  mkdir -p "$PRE" && tar -C "$BIN" -cJf "$PRE/bf16.tar.xz" . && ls -la "$PRE"
  exit 0
fi
LOG="$OUT/bf16_ab.txt"
{ date -u; nvidia-smi -L; } >"$LOG" 2>&1
if [ -f "$PRE/bf16.tar.xz" ]; then
  rm -rf "$BIN"; mkdir -p "$BIN"; tar -C "$BIN" -xJf "$PRE/bf16.tar.xz"
  [ "$(cat "$BIN/variants.txt")" = "$VARIANTS" ] || { echo "prebuilt variants differ from BF16_VARIANTS" | tee -a "$LOG"; exit 2; }
else
  build_all >>"$LOG" || { cat "$LOG"; exit 1; }
fi
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
python3 - "$OUT" "${VN[@]}" >>"$LOG" <<'PY'
import sys, re, os
o, vn = sys.argv[1], sys.argv[2:]
def tab(f):
    d = {}
    p = os.path.join(o, f)
    if os.path.exists(p):
        for l in open(p):
            m = re.match(r'\s*(\S.*?):\s*([\d.]+) us', l)
            if m: d[m.group(1)] = float(m.group(2))
    return d
runs = {v: tab(f"bench_{v}_1.txt") for v in vn}
d2 = tab("bench_default_2.txt")
print("| bench line | default us (run1/run2) | " + " | ".join(vn[1:]) + " |")
print("|---|---:|" + "---:|" * (len(vn) - 1))
for k in runs["default"]:
    print(f"| {k} | {runs['default'][k]:.1f}/{d2.get(k, -1):.1f} | " + " | ".join(f"{runs[v].get(k, -1):.1f}" for v in vn[1:]) + " |")
PY
cat "$LOG"
exit $rc
