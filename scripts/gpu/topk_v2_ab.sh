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
cd "$(dirname "$0")/../.." || exit 1
OUT="${OUT:-$PWD/out/topk_v2_ab}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
FLAGS=(-std=c++20 -O3 -arch=sm_90a -lineinfo --expt-relaxed-constexpr -I. -Iinclude
       -DDSV4_TOPK_BLOCK_THREADS=1024 -DDSV4_BF16_BLOCK_THREADS=512)
SRCS=(kernels/common/validate.cu kernels/common/status_host.cu kernels/common/capabilities.cu
      kernels/topk_v2/topk_v2_launch.cu kernels/topk_v2/topk_v2_entry.cu
      kernels/occupancy_probe/occupancy_probe.cu tests/kernels/topk_v2/gpu/topk_v2_gpu_smoke.cu)
# Variants of new: name=flags (several flags joined by commas), from $AB_VARIANTS (default below).
# AB_RUNS=1: base and new timed once instead of twice.
VARIANTS=${AB_VARIANTS:-"mb1=-DDSV4_TOPK_MAIN_MIN_BLOCKS=1 t200=-DDSV4_TOPK_STAGE_TARGET_PCT=200 p128=-DDSV4_TOPK_PAIR_RANK_MAX=128"}
VN=()
for kv in $VARIANTS; do VN+=("${kv%%=*}"); done
BIN=/tmp/ab_bin
PRE="$PWD/.ab-bin"
build_all() {  # -> $BIN/ab_{new,base,<variant>}, $BIN/ptxas_new.txt
  local jobs=${AB_JOBS:-16} base=/tmp/topk_ab_base
  rm -rf "$base" "$BIN"; mkdir -p "$base" "$BIN"
  cp -r kernels include simt tests "$base"/ 2>/dev/null
  [ -d .ab-base/kernels/topk_v2 ] || { echo "no .ab-base/kernels/topk_v2: see the header"; return 2; }
  cp .ab-base/kernels/topk_v2/* "$base/kernels/topk_v2/"
  local cmds=("nvcc ${FLAGS[*]} ${SRCS[*]} -o $BIN/ab_new"
              "cd $base && nvcc ${FLAGS[*]} ${SRCS[*]} -o $BIN/ab_base"
              "nvcc ${FLAGS[*]} -Xptxas -v -c kernels/topk_v2/topk_v2_launch.cu -o /tmp/ab_p.o 2>&1 | grep -E 'entry|spill|Used' >$BIN/ptxas_new.txt")
  for kv in $VARIANTS; do
    local flags=${kv#*=}
    cmds+=("nvcc ${FLAGS[*]} ${flags//,/ } ${SRCS[*]} -o $BIN/ab_${kv%%=*}")
  done
  printf '%s\n' "${cmds[@]}" | xargs -d '\n' -P "$jobs" -n 1 bash -c >"$OUT/build.txt" 2>&1
  [ -x "$BIN/ab_new" ] && [ -x "$BIN/ab_base" ] || { echo "build FAILED"; tail -20 "$OUT/build.txt"; return 1; }
}
if [ "${1:-}" = --build-only ]; then
  build_all || exit 1
  mkdir -p "$PRE"; echo "$VARIANTS" >"$BIN/variants.txt"
  tar -C "$BIN" -cJf "$PRE/ab.tar.xz" . && ls -la "$PRE"
  exit 0
fi
LOG="$OUT/ab.txt"
{ date -u; nvidia-smi -L; } >"$LOG" 2>&1
if [ -f "$PRE/ab.tar.xz" ]; then
  rm -rf "$BIN"; mkdir -p "$BIN"; tar -C "$BIN" -xJf "$PRE/ab.tar.xz"
  [ "$(cat "$BIN/variants.txt")" = "$VARIANTS" ] || { echo "prebuilt variants differ from AB_VARIANTS" | tee -a "$LOG"; exit 2; }
  echo "prebuilt binaries from .ab-bin" >>"$LOG"
else
  build_all >>"$LOG" || { cat "$LOG"; exit 1; }
fi
cp "$BIN/ptxas_new.txt" "$OUT/ptxas_new.txt"
rc=0
echo "== new --quick smoke (every forced path, families 0/3/6)" >>"$LOG"
timeout 70 $BIN/ab_new --quick >"$OUT/new_quick.txt" 2>&1 || rc=1
grep -c '^PASS' "$OUT/new_quick.txt" >>"$LOG"; grep -E '^FAIL|failing' "$OUT/new_quick.txt" | head -20 >>"$LOG"
T=/tmp/abt; mkdir -p $T
for i in $(seq 1 "${AB_RUNS:-2}"); do
  for v in base new "${VN[@]}"; do
    [ -x $BIN/ab_$v ] || continue
    [ $i = 2 ] && [ $v != base ] && [ $v != new ] && continue
    [ $SECONDS -gt 400 ] && { echo "skip $v run $i (time)" >>"$LOG"; continue; }
    echo "== $v --timing run $i" >>"$LOG"
    timeout 60 $BIN/ab_$v --timing >"$T/t_${v}_$i.txt" 2>&1 || { [ $v = new ] && rc=1; }
  done
done
python3 - "$T" "${VN[@]}" >>"$LOG" <<'PY'
import sys, re, os
o, vn = sys.argv[1], sys.argv[2:]
def tab(f):
    d = {}
    p = os.path.join(o, f)
    if not os.path.exists(p): return d
    for l in open(p):
        m = re.match(r'\| (\d+) \| (\d+) \| (\d+) \| ([-\d.]+) \|', l)
        if m: d[m.group(1,2,3)] = float(m.group(4))
    return d
t = {k: tab(f"t_{k}.txt") for k in ["base_1", "new_1", "base_2", "new_2"] + [v + "_1" for v in vn]}
print("| B | L | K | base us (run1/run2) | new us (run1/run2) | new/base (min) | " + " | ".join(vn) + " |")
print("|---:|---:|---:|---:|---:|---:|" + "---:|" * len(vn))
for k in t["base_1"]:
    g = lambda r: t.get(r, {}).get(k, -1)
    b = [g("base_1"), g("base_2")]; n = [g("new_1"), g("new_2")]
    ratio = min(x for x in n if x > 0) / min(x for x in b if x > 0) if max(n) > 0 and max(b) > 0 else -1
    print(f"| {k[0]} | {k[1]} | {k[2]} | {b[0]:.1f}/{b[1]:.1f} | {n[0]:.1f}/{n[1]:.1f} | {ratio:.2f} | " + " | ".join(f"{g(v + '_1'):.1f}" for v in vn) + " |")
PY
grep -H failing "$T"/t_*.txt >>"$LOG"
cat "$LOG"; cat "$OUT/ptxas_new.txt"
exit $rc
